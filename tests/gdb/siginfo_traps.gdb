# $_siginfo at deja's stops is what the kernel gives a live thread (gdb scripts read it):
# a breakpoint's SI_KERNEL (128), a single step's TRAP_TRACE (2), a watchpoint's
# TRAP_HWBKPT (4) with the pc, forwards and at a reverse-continue's watchpoint stop; not
# the replay's own ptrace stop. (Not a reverse-stepi after it: under load that fails now
# and then with "ended before the position was found again", and one onto a breakpoint's
# address reads si_code 1 or 2 from run to run - open bugs of reverse stepping.)
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
