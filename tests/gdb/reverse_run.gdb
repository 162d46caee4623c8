break mark
continue
continue
print v
run
print value
continue
print v
info breakpoints
delete
continue
