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
break 41
continue
watch -l other
reverse-continue
set $w = work
reverse-stepi
x/i $pc
print j
reverse-stepi
x/i $pc
print j
reverse-stepi
x/i $pc
print j
stepi
stepi
stepi
x/i $pc
print work == $w
stepi
print other
continue
print work
break *done
reverse-continue
reverse-stepi
x/i $pc
stepi
x/i $pc
