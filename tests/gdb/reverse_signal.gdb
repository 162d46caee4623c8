# back over the line that raises the signal (its handler runs inside it), forwards again,
# then from the handler's first line back into the line that raised it: with the buffer
# on, kill's libc site is not patched (a trampoline has no symbols: gdb's reverse-step
# out of the handler ran back to the start of the recording)
handle SIGUSR1 nostop noprint
break 23
continue
reverse-next
reverse-next
print after
reverse-next
print after
next
next
print handled
break on_usr1
reverse-continue
print handled
reverse-step
reverse-step
print after
reverse-step
print after
