break 21
continue
watch -l other
reverse-continue
reverse-stepi
x/i $pc
print j
stepi
x/i $pc
reverse-stepi
x/i $pc
print j
delete
watch -l value
reverse-continue
print value
reverse-stepi
info line *$pc
x/i $pc
print i
print value
stepi
info line *$pc
reverse-stepi
x/i $pc
reverse-stepi
x/i $pc
print i
stepi
stepi
x/i $pc
delete
break 21
continue
print other
