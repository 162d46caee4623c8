catch syscall exit_group
continue
watch -l value
reverse-continue
print value
reverse-continue
print value
continue
print value
delete
continue
