break fib if n == 15 && who == 1
continue
print n
print who
info breakpoints
delete
break 29
continue
break fib if n == 16 && who == 1
reverse-continue
print n
up
print n
reverse-continue
up
print i
print who
continue
up
print n
info breakpoints
continue
