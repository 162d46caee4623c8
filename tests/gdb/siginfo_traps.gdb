# $_siginfo at deja's stops is what the kernel gives a live thread (gdb scripts read it):
# a breakpoint's SI_KERNEL (128), a single step's TRAP_TRACE (2), a watchpoint's
# TRAP_HWBKPT (4) with the pc, forwards and backwards; not the replay's own ptrace stop
break main
continue
print $_siginfo.si_signo
print $_siginfo.si_code
stepi
print $_siginfo.si_code
watch watched
continue
print $_siginfo.si_code
print $_siginfo._sifields._sigfault.si_addr == $pc
reverse-continue
print $_siginfo.si_code
reverse-stepi
print $_siginfo.si_code
