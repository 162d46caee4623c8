monitor when
watch -l value
reverse-continue
print value
delete
continue
