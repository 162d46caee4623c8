set sysroot /
break mark
continue
checkpoint
continue
print round
print p[5]
print keep[0][7]
reverse-continue
print round
print p[3]
continue
continue
print keep[1][0]
restart 1
print round
print keep[0][299999]
delete
break 25
continue
next
print keep[1] != 0
next
print keep[1][299999]
reverse-continue
print keep[1] == 0
delete
continue
