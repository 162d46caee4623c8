# rwatch g at line 12, one read, then awatch g instead: its hits are counted apart from the rwatch's
break 12
continue
rwatch g
continue
delete
awatch g
continue
x/i $pc
reverse-continue
x/i $pc
reverse-continue
x/i $pc
reverse-continue
x/i $pc
