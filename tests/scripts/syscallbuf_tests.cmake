# The in-process system call buffer (issue 9). It is off by default for now (a part of
# the suite does not pass with it yet: see docs/ARCHITECTURE.md); these tests record with
# it on (--syscall-buffer, or DEJA_SYSCALL_BUFFER=1): programs that stress it, a broad
# subset of the suite's programs, checks that it is used and that a buffered call
# differing in replay is a divergence, and gdb on a replay with buffered calls.
deja_rr_program_test(sbuf_calls DIFFER RECORD_ARGS --syscall-buffer)
deja_rr_program_test(sbuf_signals REPEAT 2 RECORD_ARGS --syscall-buffer)
deja_rr_program_test(sbuf_thread_pipe REPEAT 3 RECORD_ARGS --syscall-buffer)
deja_rr_program_test(sbuf_fork_exec RECORD_ARGS --syscall-buffer)
deja_rr_program_test(sbuf_close_fds RECORD_ARGS --syscall-buffer)
deja_rr_program_test(sbuf_fifo_open REPEAT 2 RECORD_ARGS --syscall-buffer)

# The suite's own programs with the buffer on.
foreach(program
    hello write_stderr file_io dir_listing stat_calls at_calls access_calls readlink_exe cwd
    dup_fcntl pipe_basic pipe_nonblock poll_pipe select_pipe epoll_eventfd nanosleep uname
    ids mmap_anon brk_malloc proc_self lots_of_output memfd socketpair_fds tcp_loopback
    mt_condvar_pingpong mt_mutex_counter mt_threads_exit pt_fork_wait pt_vfork_exec
    pt_pipeline sig_alarm_eintr_read sig_restart_read sig_send_self hello_static
    file_io_static)
  deja_rr_test(${program}_buf COMMAND $<TARGET_FILE:${program}> RECORD_ARGS --syscall-buffer)
endforeach()
foreach(program clock_gettime gettimeofday getrandom urandom)
  deja_rr_test(${program}_buf COMMAND $<TARGET_FILE:${program}> DIFFER
    RECORD_ARGS --syscall-buffer)
endforeach()
deja_rr_test(real_ls_buf COMMAND ls -la /usr/lib RECORD_ARGS --syscall-buffer)
deja_rr_test(real_sh_pipeline_buf COMMAND sh -c "ls /usr/include/linux | sort -r | head -n 5"
  RECORD_ARGS --syscall-buffer)
deja_rr_test(real_python3_buf COMMAND /usr/bin/python3 -c "import json,os; print(json.dumps(sorted(os.listdir('/usr'))))"
  RECORD_ARGS --syscall-buffer)

# Without the buffer (-n), which overrides DEJA_SYSCALL_BUFFER=1.
foreach(program sbuf_calls sbuf_signals sbuf_fork_exec)
  deja_rr_test(${program}_nobuf COMMAND $<TARGET_FILE:${program}> RECORD_ARGS -n)
endforeach()

add_test(NAME syscallbuf_used COMMAND ${DEJA_TEST_SCRIPTS}/syscallbuf_test.sh $<TARGET_FILE:deja>
  used $<TARGET_FILE:sbuf_calls>)
add_test(NAME syscallbuf_diverge COMMAND ${DEJA_TEST_SCRIPTS}/syscallbuf_test.sh
  $<TARGET_FILE:deja> diverge $<TARGET_FILE:sbuf_diverge>)
set_tests_properties(syscallbuf_used syscallbuf_diverge PROPERTIES TIMEOUT 120
  ENVIRONMENT DEJA_SYSCALL_BUFFER=1)

# gdb on a replay with buffered calls: a watchpoint on memory a buffered call wrote.
deja_gdb_program(sbuf_watch)
deja_gdb_test(sbuf_watch sbuf_watch)
set_tests_properties(gdb_sbuf_watch PROPERTIES ENVIRONMENT DEJA_SYSCALL_BUFFER=1)
