break 31
continue
print after
break 26
reverse-continue
print i
print mark
reverse-continue
print i
print mark
stepi
reverse-stepi
print i
reverse-continue
print i
print mark
reverse-continue
print (long) mark
