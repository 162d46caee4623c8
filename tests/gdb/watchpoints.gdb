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
continue
