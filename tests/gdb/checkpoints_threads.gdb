# a checkpoint while a process has several threads is a fork too (its threads recreated
# when going back to it), and so is one after they ended
shell ps -o pgid= --ppid $(ps -o ppid= -p $PPID) >>$DEJA_TEST_PGIDS
break worker
continue
set $idx = index
checkpoint
monitor checkpoints
delete
break 25
continue
print sums[0]
checkpoint
monitor checkpoints
restart 1
print index == $idx
info threads
print sums[0]
restart 2
print sums[0]
print sums[1]
reverse-stepi
print sums[1]
delete checkpoint 1
monitor checkpoints
delete
continue
