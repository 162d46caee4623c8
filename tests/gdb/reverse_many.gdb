tbreak 30
continue
watch -l value
reverse-continue
reverse-continue
print value
continue
continue
