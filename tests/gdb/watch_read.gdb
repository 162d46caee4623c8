break 12
continue
rwatch g
continue
x/i $pc
print sink
continue
x/i $pc
print sink
continue
x/i $pc
reverse-continue
x/i $pc
reverse-continue
x/i $pc
print sink
reverse-continue
x/i $pc
print sink
reverse-continue
print g
# access watchpoint: the writes and the read of sink in turn
delete
awatch sink
continue
continue
x/i $pc
continue
x/i $pc
continue
x/i $pc
reverse-continue
x/i $pc
reverse-continue
x/i $pc
reverse-continue
x/i $pc
reverse-continue
x/i $pc
