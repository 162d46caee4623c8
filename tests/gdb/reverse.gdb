break 22
continue
print value
watch -l value
reverse-continue
print value
info line *$pc
reverse-continue
print value
reverse-continue
continue
print value
continue
print value
delete
break mark
reverse-continue
print v
stepi
print $pc
reverse-stepi
print $pc
reverse-stepi
print $pc
reverse-finish
monitor when
delete
continue
