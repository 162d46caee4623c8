break 17
continue
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
continue
print value
