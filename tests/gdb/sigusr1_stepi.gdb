# stepi over a `syscall` that signals the task itself, into the handler, and back
break *send_usr1_insn
continue
stepi
stepi
print $_siginfo.si_signo
stepi
x/i $pc
print handled
reverse-stepi
x/i $pc
print $_siginfo.si_signo
reverse-stepi
x/i $pc
reverse-stepi
x/i $pc
stepi
stepi
continue
