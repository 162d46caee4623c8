# Signal tests (issue "Signals in recorded programs"): one program per line, built from
# tests/programs/<name>.c. Output of every program is deterministic (no DIFFER needed).
deja_rr_program_test(sig_segv_siginfo)
deja_rr_program_test(sig_segv_mprotect)
deja_rr_program_test(sig_bus_truncated)
deja_rr_program_test(sig_fpe_divzero)
deja_rr_program_test(sig_ill_ud2)
deja_rr_program_test(sig_trap_int3)
deja_rr_program_test(sig_nodefer)
deja_rr_program_test(sig_resethand EXIT 138)
deja_rr_program_test(sig_altstack)
deja_rr_program_test(sig_stack_overflow)
deja_rr_program_test(sig_send_self)
deja_rr_program_test(sig_mask_pending)
deja_rr_program_test(sig_sigsuspend_timer)
deja_rr_program_test(sig_pause_alarm)
deja_rr_program_test(sig_sigwaitinfo)
deja_rr_program_test(sig_sigtimedwait)
deja_rr_program_test(sig_signalfd)
deja_rr_program_test(sig_alarm_eintr_read)
deja_rr_program_test(sig_nanosleep_eintr)
deja_rr_test(sig_itimer_virtual COMMAND $<TARGET_FILE:sig_itimer_cpu> virtual)
deja_rr_test(sig_itimer_prof COMMAND $<TARGET_FILE:sig_itimer_cpu> prof)
deja_rr_program_test(sig_posix_timer)
deja_rr_program_test(sig_timerfd)
deja_rr_program_test(sig_restart_read)
deja_rr_program_test(sig_death_abort EXIT 134)
deja_rr_program_test(sig_death_segv EXIT 139)
deja_rr_program_test(sig_death_term EXIT 143)
deja_rr_program_test(sig_death_kill EXIT 137)
deja_rr_program_test(sig_death_quit EXIT 131)

# Signals from outside: kill from another process, SIGTERM to `deja record` passed on.
add_test(NAME external_signals
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/external_signal_test.sh
                 $<TARGET_FILE:deja> $<TARGET_FILE:trace_edit>
                 $<TARGET_FILE:sig_wait_external>)
set_tests_properties(external_signals PROPERTIES TIMEOUT 60)

# Signal-heavy programs nobody here wrote: a shell script with traps, and timeout(1)
# killing its child (a process tree; timeout exits 124).
deja_rr_test(real_shell_traps COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/programs/data/traps.sh)
deja_rr_test(real_timeout_sleep COMMAND timeout 1 sleep 5 EXIT 124)
deja_rr_test(real_timeout_int_trap
  COMMAND timeout -s INT 0.5 sh -c "trap 'echo got INT' INT && sleep 3 & wait" EXIT 124)
