handle SIGUSR1 nostop noprint
break on_usr1
set debug remote 1
continue
set debug remote 0
print handled
continue
