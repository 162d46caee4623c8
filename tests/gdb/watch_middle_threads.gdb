break 25
continue
watch v
continue
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
reverse-continue
print v
reverse-continue
print v
continue
print v
