break mark
continue
continue
continue
continue
continue
continue
reverse-continue
reverse-continue
delete
continue
