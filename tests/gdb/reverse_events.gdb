# reverse-continue stops at signals and caught system calls (return, then entry), the last ones first
handle SIGUSR1 nostop noprint pass
break 27
continue
handle SIGUSR1 stop print pass
reverse-continue
print round_no
catch syscall getppid
reverse-continue
print round_no
print $rax == ppid && ppid > 0
# its entry, then the signal before it
reverse-continue
print round_no
reverse-continue
print round_no
print got
# forwards from the signal's delivery: its handler, then the call's entry
continue
print round_no
print got
delete 2
handle SIGUSR1 nostop noprint pass
reverse-continue
continue
print got
print round_no
