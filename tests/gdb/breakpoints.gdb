break func
continue
bt
continue
info breakpoints
delete
break func if n == 30
continue
print n
delete
tbreak func
continue
info breakpoints
break 17
continue
print doubled
print calls_total
continue
