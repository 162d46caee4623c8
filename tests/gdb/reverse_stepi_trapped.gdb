# gdb_reverse_stepi_trapped: reverse-stepi where the kernel counts nothing (no perf
# breakpoints): the possible predecessors' executions trapped one by one, capped
break 31
continue
reverse-stepi
x/i $pc
stepi
x/i $pc
delete
break 41
continue
watch -l value
reverse-continue
reverse-stepi
x/i $pc
info line *$pc
stepi
x/i $pc
reverse-next
x/i $pc
reverse-stepi
x/i $pc
print i
stepi
stepi
x/i $pc
stepi
x/i $pc
stepi
print value
delete
continue
