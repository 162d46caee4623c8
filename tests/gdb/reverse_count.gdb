break 18
continue
break f
reverse-continue
print i
reverse-continue
print i
break g
reverse-continue
print i
reverse-continue
print i
continue
print i
continue
print i
