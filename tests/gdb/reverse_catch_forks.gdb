# reverse-continue stops at forks, vforks and execs as gdb's catchpoints show them
# forwards. gdb waits for a vfork's end before anything else: after a vfork stop, forwards
# or backwards, a reverse resume gets it at once (a fork stop first trips an assertion)
catch vfork
continue
catch fork
reverse-continue
continue
break forks.c:21
continue
# from after the vfork: the vfork, then the fork, and forwards again
reverse-continue
reverse-continue
continue
continue
# without catchpoints gdb lets the children go and reverse-continue goes on
delete
break forks.c:13
reverse-continue
# an exec, backwards from the new program's main
catch exec
continue
set $exec_pc = $pc
break forks.c:10
continue
reverse-continue
print $pc == $exec_pc
continue
print argc
continue
