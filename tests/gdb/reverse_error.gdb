break 19
continue
reverse-stepi
x/i $pc
reverse-stepi
print value
delete
watch -l value
reverse-continue
print value
continue
print value
