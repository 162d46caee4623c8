# thread-local variables (qGetTLSAddr) in the thread that stopped and in others, nine
# threads listed; the executable's and libc's (errno)
break mark
continue
print tlsvar
print errno
info threads
thread apply all print tlsvar
continue
print tlsvar
print errno
delete
continue
