break 25
continue
reverse-next
reverse-next
next
reverse-step
print n
print c
reverse-step
print n
delete
break *fill_rep
continue
print $rcx
stepi
print $rcx
x/i $pc
continue
print $rcx
