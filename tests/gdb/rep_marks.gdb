break mark
continue
continue
continue
continue
reverse-continue
delete
continue
