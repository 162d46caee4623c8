break 18
continue
watch -l counter
continue
continue
print sum
continue
print sum
reverse-continue
reverse-continue
print sum
continue
continue
delete
continue
