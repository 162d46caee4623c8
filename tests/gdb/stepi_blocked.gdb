break mark
continue
thread 2
stepi
print $rax
set $after_call = $pc
stepi
print $pc != $after_call
continue
