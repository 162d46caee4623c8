# gdb's default (follow the parent, detach the child): a breakpoint both processes reach
# stops the parent only
break work
continue
print n
continue
print n
continue
