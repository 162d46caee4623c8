# deja stops before the process ends (gdb shows SIGKILL, as with rr): from there gdb can
# go back; the test harness passes over that stop unless told otherwise
handle SIGKILL stop print
continue
print calls_total
break func
reverse-continue
print n
reverse-continue
print n
delete
continue
reverse-stepi
continue
continue
