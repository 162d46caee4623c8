# reverse-stepi and reverse-next over calls that run millions of instructions (no system
# call in them): the instruction before the return address is the callee's ret
break 22
continue
reverse-stepi
x/i $pc
stepi
reverse-next
reverse-next
print total
reverse-stepi
x/i $pc
next
print total
next
next
print total
