# what the program printed before each stop is shown before gdb shows the stop; going
# back and forwards again does not print it again
break mark
continue
continue
reverse-continue
continue
continue
delete
break 19
continue
next
next
print counter
continue
