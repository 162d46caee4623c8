break mark
continue
checkpoint
continue
print v
checkpoint
monitor checkpoints
restart 1
print v
print value
next
print value
restart 2
print v
delete checkpoint 1
monitor checkpoints
delete
continue
