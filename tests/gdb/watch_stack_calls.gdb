break 32
continue
watch -l target
reverse-continue
bt 2
print v & 0xff
reverse-continue
print target
continue
continue
continue
print target
print acc
