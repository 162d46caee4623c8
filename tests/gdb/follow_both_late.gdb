# detach-on-fork off: the parent held at its breakpoint while gdb debugs the child, then
# resumed: it ran on meanwhile (the recorded order), and gdb's console says so
set detach-on-fork off
break child_work
break parent_work
continue
inferior 2
continue
print value
inferior 1
continue
info inferiors
