break setter
continue
watch flag
continue
info threads
delete
continue
