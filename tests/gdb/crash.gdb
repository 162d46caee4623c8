continue
bt
print p
print $_siginfo.si_signo
print $_siginfo._sifields._sigfault.si_addr
info registers rip
continue
