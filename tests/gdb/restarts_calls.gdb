# restart N from inside a call's throw-away copy (a crash there), a checkpoint that does
# not exist (said, the session goes on), restart N and run after the program ended
break 33
continue
checkpoint
print crash(3)
restart 1
bt 1
print counter
print square(3)
restart 99
print counter
delete
continue
restart 1
print counter
run
break 33
run
print counter
delete
continue
