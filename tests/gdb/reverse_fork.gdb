break 18
continue
watch -l value
reverse-continue
print value
reverse-continue
print value
reverse-continue
delete
continue
