# checkpoints of a process tree: the parent and its living child are forked
shell ps -o pgid= --ppid $(ps -o ppid= -p $PPID) >>$DEJA_TEST_PGIDS
break mark
continue
checkpoint
continue
print value
checkpoint
continue
print v
monitor checkpoints
restart 1
print v
continue
print value
restart 2
continue
print v
reverse-continue
print v
delete checkpoint 2
monitor checkpoints
delete
continue
monitor when
