# a backtrace from a caught call libc's stdio makes (its `syscall' patched into a jump to
# a trampoline with the buffer on): gdb unwinds through the preload library and the
# trampoline (preload_hook's CFI) to libc's write and on to _start; from the stop at the
# process's end too
catch syscall write
continue
continue
continue
continue
continue
continue
continue
bt
# the stop before the process ends: in _exit (whose exit_group site stays unpatched)
handle SIGKILL stop print
delete
continue
bt
continue
