# a breakpoint reached by reverse-continue, then `watch -l` there
break 28
continue
delete
break 24
reverse-continue
watch -l v
continue
continue
reverse-continue
print v
reverse-continue
print v
reverse-continue
print v
reverse-continue
print v
# a watchpoint set after reverse-stepi (back into spin's return)
delete
break 26
continue
reverse-stepi
reverse-stepi
reverse-stepi
info line *$pc
watch v
continue
print v
continue
print v
reverse-continue
print v
reverse-continue
print v
reverse-continue
print v
