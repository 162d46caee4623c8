break getpid
break dup
continue
bt
continue
bt
reverse-continue
bt
continue
bt
delete
continue
