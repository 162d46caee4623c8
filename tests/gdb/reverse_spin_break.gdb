# reverse-continue onto a breakpoint after the other thread's preempted spin: the
# stretches that may reach it are tried on a copy (counted in the copy itself where the
# kernel cannot count)
catch syscall exit_group
continue
break reverse_spin.c:18
reverse-continue
print value
info threads
reverse-continue
continue
print value
delete
continue
