continue
break fib if n == 5
reverse-continue
print calls
reverse-continue
print calls
continue
print calls
continue
print calls
print $_siginfo.si_signo
reverse-continue
print calls
reverse-continue
print calls
