# a checkpoint of a process that maps a file MAP_SHARED, which then changes: going back
# shows the content as it was
shell ps -o pgid= --ppid $(ps -o ppid= -p $PPID) >>$DEJA_TEST_PGIDS
break mark
continue
monitor checkpoints
checkpoint
monitor checkpoints
continue
print seen
monitor checkpoints
restart 1
print v
print seen
continue
print v
delete
continue
