break 24
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
reverse-continue
continue
print v
continue
print v
continue
continue
print v
continue
continue
