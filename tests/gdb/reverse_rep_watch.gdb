break 27
continue
watch -l big[500000]
reverse-continue
print $rcx
print $rdi - (unsigned long)p
continue
print $rcx
continue
