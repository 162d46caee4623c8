break 22
watch -l mark
continue
disable 2
continue
enable 2
reverse-continue
print i
