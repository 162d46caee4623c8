# from the output's write: reverse-continue stops at the last read()'s `syscall`, after
# `marker = 3`; a stepi over it is the watchpoint's stop, reverse-stepi back over it too
catch syscall write
continue
continue
delete
watch -l value
reverse-continue
print marker
x/i $pc
set $at = $pc
stepi
print $pc == $at + 2
reverse-stepi
print $pc == $at
print marker
reverse-continue
print marker
x/i $pc
continue
print marker
