break 23
continue
reverse-next
print i
reverse-next
print i
reverse-next
print i
next
next
print i
delete
break mark
reverse-continue
reverse-finish
delete
continue
