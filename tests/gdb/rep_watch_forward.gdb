break 25
continue
set $big = (unsigned long)big
watch -l big[500000]
continue
print $rcx
print $rdi - $big
reverse-continue
print $rcx
print $rdi - $big
continue
print $rcx
print $rdi - $big
continue
