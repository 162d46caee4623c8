break worker
continue
info threads
thread 2
bt
delete
break 25
continue
print sums
continue
