set follow-fork-mode child
break child_work
break parent_work
continue
print n
bt
print value
next
next
print value
continue
