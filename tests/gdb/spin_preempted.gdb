break setter
continue
watch flag
continue
print flag
info threads
delete
continue
