# br_stop_signals' child debugged (deja replay -p): its stops and continues are not
# gdb's to see; it ends with exit_group while its other thread ticks
handle SIGSTOP SIGTSTP SIGCONT nostop noprint
continue
