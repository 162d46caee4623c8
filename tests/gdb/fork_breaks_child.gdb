# follow-fork-mode child: the same breakpoint stops the child only, then the exec it makes
# (catch exec) and the new program's own hit
set follow-fork-mode child
break work
catch exec
continue
print n
continue
print n
continue
continue
print n
continue
