# reverse-continue stops at forks, vforks and execs as gdb's catchpoints show them
# forwards: from after the vfork, the vfork, then the fork (gdb waits for a vfork's end
# before anything else: it gets it at once), and forwards again
break 21
continue
catch fork
catch vfork
reverse-continue
reverse-continue
continue
continue
# without catchpoints gdb lets the children go and reverse-continue goes on
delete
break 13
reverse-continue
# an exec, backwards from the new program's main
catch exec
continue
set $exec_pc = $pc
break 10
continue
reverse-continue
print $pc == $exec_pc
continue
print argc
continue
