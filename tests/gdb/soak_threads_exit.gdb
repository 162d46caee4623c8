# reverse-continue from after the thread's exit stops at the return of the call the
# exited thread made (was: skipped, on to the main thread's), then at its entry, then at
# main's return
break 23
continue
catch syscall getppid
reverse-continue
print thread_ppid
print $rax == main_ppid
reverse-continue
print $orig_rax
reverse-continue
print main_ppid
delete
continue
