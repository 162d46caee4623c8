# br_stop_signals (tests/programs) under gdb with no breakpoint: the parent is debugged;
# its child stops and continues (SIGSTOP, SIGTSTP, SIGCONT) while its thread ticks
continue
