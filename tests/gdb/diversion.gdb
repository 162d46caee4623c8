# signals from gdb's calls are not sent (ENOSYS, as rr); the session goes on
break 23
continue
print shoot_parent()
print thread_kill()
print shoot_self()
print bump()
print counter
next
print counter
continue
