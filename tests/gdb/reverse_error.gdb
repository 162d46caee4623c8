break 19
continue
reverse-stepi
print value
delete
watch -l value
reverse-continue
print value
continue
print value
