# a thread blocked in read while the main thread made thousands of calls (events):
# reverse-continue finds the read's return, then its entry where it blocked, thousands of
# events back; forwards from there, the return again
break reverse_blocked.c:47
continue
catch syscall read
reverse-continue
print calls_made
print $rax
reverse-continue
print calls_made < 6000
print $rax
print $orig_rax
print $rdi == fds[0]
continue
print calls_made
continue
