break main
continue
next
next
next
step
bt 1
finish
stepi
x/i $pc
until 19
info line *$pc
print d
continue
