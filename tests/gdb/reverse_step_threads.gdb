# reverse-next and reverse-step in main while the worker thread ran in between (system
# calls and work): each lands on main's previous line, in main's thread
break 35
continue
set $work_at_35 = worker_work
reverse-next
print $_thread
reverse-next
reverse-next
print a
print worker_work < $work_at_35
reverse-step
print $_thread
reverse-finish
reverse-next
print $_thread
print a
next
next
step
print $_thread
finish
next
next
next
print $_thread
print a
delete
continue
