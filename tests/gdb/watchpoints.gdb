break main
continue
watch watched
continue
continue
delete
rwatch read_only
continue
delete
awatch accessed
continue
delete
print watched
print sink
print accessed
continue
