# reverse-continue stops at a caught call's return, then at its entry, with the
# registers and the frame line a forward stop shows (the entry: rax -ENOSYS, orig_rax the
# call, the pc right after its syscall instruction)
handle SIGUSR1 nostop noprint pass
catch syscall getppid
continue
set $entry_pc = $pc
set $entry_rsp = $rsp
continue
set $ret_rax = $rax
delete 1
break reverse_events.c:27
continue
catch syscall getppid
reverse-continue
print round_no
print $rax == $ret_rax && $pc == $entry_pc
reverse-continue
print round_no
print $rax
print $orig_rax
print $pc == $entry_pc && $rsp == $entry_rsp
# one instruction back from the entry is its syscall; then the calls of round 2
reverse-stepi
x/i $pc
reverse-continue
print round_no
reverse-continue
print round_no
print stage
# forwards from an entry found backwards: its return, then the next call
continue
print round_no
print $rax == $ret_rax
continue
print round_no
delete
continue
