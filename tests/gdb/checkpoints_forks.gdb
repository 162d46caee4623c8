# checkpoints are forks: restart N gives the values of the first pass; reverse moves
# after checkpoints were taken; delete checkpoint
shell ps -o pgid= --ppid $(ps -o ppid= -p $PPID) >>$DEJA_TEST_PGIDS
break mark
continue
checkpoint
print value
next
print value
continue
print work
checkpoint
monitor checkpoints
restart 1
print value
next
print value
continue
print work
print v
reverse-stepi
stepi
print $pc
reverse-stepi
reverse-continue
print v
print value
delete
watch -l value
continue
delete
restart 2
print v
watch -l value
reverse-continue
delete
delete checkpoint 1
monitor checkpoints
restart 1
restart 2
print v
continue
