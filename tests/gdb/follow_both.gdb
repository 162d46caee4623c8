set detach-on-fork off
break child_work
break parent_work
continue
print n
print value
inferior 2
continue
print n
next
next
print value
info inferiors
