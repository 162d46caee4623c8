# a checkpoint while three workers run: restart 1 recreates them (registers, FPU, signal
# masks, alternate stacks, clear-child-tid addresses, robust lists) and the pages a fork
# does not copy, the replay goes on to the same end from there, and reverse-continue
# finds a write in another thread
shell ps -o pgid= --ppid $(ps -o ppid= -p $PPID) >>$DEJA_TEST_PGIDS
handle SIGUSR1 nostop noprint
break 71 if index == 1 && round == 10
continue
set $c_pc = $pc
set $c_sp = $sp
set $c_rbx = $rbx
set $c_fs = $fs_base
set $c_xmm0 = $xmm0.v2_int64[0]
set $c_xmm1 = $xmm1.v2_int64[1]
set $v0 = values[0]
set $v1 = values[1]
set $v2 = values[2]
thread apply 1 -q set $m_pc = $pc
thread apply 1 -q set $m_sp = $sp
checkpoint
monitor checkpoints
info threads
delete
break 97
continue
print values
print on_altstack
restart 1
print $pc == $c_pc && $sp == $c_sp && $rbx == $c_rbx && $fs_base == $c_fs
print $xmm0.v2_int64[0] == $c_xmm0 && $xmm1.v2_int64[1] == $c_xmm1
print values[0] == $v0 && values[1] == $v1 && values[2] == $v2
print index
print round
info threads
thread apply 2 -q print $pc == $m_pc && $sp == $m_sp
print/x blocked_mask()
print altstack_size()
print *dontfork_page + *wipeonfork_page
continue
print values
print on_altstack
watch -l values[1]
reverse-continue
print round
info threads
continue
delete
continue
