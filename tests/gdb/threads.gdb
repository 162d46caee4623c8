break worker
continue
info threads
thread 2
bt
delete
continue
