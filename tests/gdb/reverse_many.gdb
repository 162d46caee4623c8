tbreak 35
continue
watch -l value
reverse-continue
reverse-continue
reverse-continue
reverse-continue
print value
continue
continue
continue
continue
