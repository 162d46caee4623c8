# a breakpoint set in the middle of the stretch, in a loop that already ran 1000 times in it
break 24
continue
break 13
continue
continue
continue
print i
up
print sum
reverse-continue
print i
up
print sum
reverse-continue
print i
up
print sum
reverse-continue
print sum
