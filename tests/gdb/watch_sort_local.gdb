break 33
continue
watch -l marker
reverse-continue
print r
continue
continue
print marker
print acc < 0
delete
continue
