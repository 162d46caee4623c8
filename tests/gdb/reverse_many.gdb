catch syscall exit_group
continue
delete
watch -l value
reverse-continue
reverse-continue
reverse-continue
reverse-continue
print value
continue
continue
continue
continue
