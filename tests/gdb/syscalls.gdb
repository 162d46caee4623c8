catch syscall getpid
continue
continue
print $rax
delete
catch syscall 231
continue
continue
