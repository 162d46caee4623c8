# from a caught call's entry: one instruction back is its syscall; reverse-continue
# searches the code that ran before the call in the same stretch (stage's write)
handle SIGUSR1 nostop noprint pass
catch syscall getppid
continue
reverse-stepi
x/i $pc
continue
watch stage
reverse-continue
print stage
continue
print stage
continue
print (int)round_no
