# the entry and return of each write, with the number and result a live process shows,
# forwards and backwards; the output of a write before its return stop
catch syscall write
continue
print $orig_rax
print $rax
continue
print $rax
continue
continue
print $rax
reverse-continue
print $rax
reverse-continue
print $orig_rax
reverse-continue
print $rax
print lines
continue
continue
delete
catch syscall read
continue
continue
print $rax
delete
catch syscall getpid
continue
continue
delete
continue
