break main
continue
set var recorded_value = 5
print recorded_value
next
print recorded_value
continue
