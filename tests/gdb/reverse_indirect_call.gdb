# reverse-stepi and reverse-next over long calls through a tail call and a pointer: the
# instruction before the return address is the ret of the function they reached
break 31
continue
reverse-stepi
x/i $pc
stepi
reverse-next
reverse-next
print total
reverse-stepi
x/i $pc
stepi
reverse-next
reverse-next
print total
next
next
print total
