break 24
watch -l mark
continue
set $w1 = work
continue
set $w2 = work
set $pc2 = $pc
continue
continue
delete
watch -l after
reverse-continue
reverse-stepi
x/i $pc
print i
stepi
x/i $pc
delete
watch -l mark
reverse-continue
print i
reverse-continue
print i
print work == $w2
reverse-stepi
x/i $pc
reverse-stepi
x/i $pc
print left
stepi
stepi
x/i $pc
stepi
print $pc == $pc2
reverse-continue
print i
reverse-continue
print i
print work == $w1
reverse-continue
print (long) mark
