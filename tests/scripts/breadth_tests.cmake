# Breadth (issue 10): the system calls and process behaviours ordinary programs use.
# Included from tests/CMakeLists.txt, which defines deja_rr_test; programs are built from
# tests/programs/br_*.c.
deja_rr_program_test(br_unknown_syscall DIFFER)
deja_rr_program_test(br_rare_calls DIFFER)
deja_rr_program_test(br_sysv_shm DIFFER)
deja_rr_program_test(br_sysv_sem_msg DIFFER)
deja_rr_program_test(br_sched_yield_pingpong REPEAT 2)
deja_rr_program_test(br_exec_from_thread DIFFER REPEAT 3)
deja_rr_program_test(br_stop_signals DIFFER REPEAT 3)
deja_rr_program_test(br_exec_keeps_signals DIFFER)
deja_rr_program_test(br_ppoll_sigmask DIFFER REPEAT 2)
deja_rr_program_test(br_seccomp_filter DIFFER)
deja_rr_program_test(br_copy_to_stdout DIFFER)
deja_rr_test(br_thread_deaths_exit COMMAND $<TARGET_FILE:br_thread_deaths> exit DIFFER REPEAT 3)
deja_rr_test(br_thread_deaths_fatal COMMAND $<TARGET_FILE:br_thread_deaths> fatal EXIT 139 DIFFER REPEAT 3)
deja_rr_test(br_thread_deaths_abort COMMAND $<TARGET_FILE:br_thread_deaths> abort EXIT 134 DIFFER REPEAT 3)
deja_rr_test(br_thread_deaths_leader COMMAND $<TARGET_FILE:br_thread_deaths> leader DIFFER REPEAT 3)
# cpuid running natively: the replay runs on the recording's CPU.
add_test(NAME br_cpu_bind COMMAND sh ${DEJA_TEST_SCRIPTS}/cpu_bind_test.sh $<TARGET_FILE:deja>
         $<TARGET_FILE:br_cpuid_apic>)
set_tests_properties(br_cpu_bind PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)
deja_rr_program_test(br_vdso_lookup DIFFER)
deja_rr_test(br_exec_from_main COMMAND $<TARGET_FILE:br_exec_from_thread> main DIFFER REPEAT 3)
deja_rr_program_test(br_namespaces DIFFER)
# A page changed after a state point and changed back before the next (issue 10 gap 1).
deja_rr_program_test(br_state_revert DIFFER)
# io_uring is refused with ENOSYS; programs fall back to plain calls.
deja_rr_program_test(br_io_uring_fallback DIFFER)
# ptrace of a child by the recorded program, emulated between recorded tasks.
deja_rr_program_test(br_ptrace_child DIFFER REPEAT 2)
deja_rr_test(br_ptrace_traceme COMMAND $<TARGET_FILE:br_ptrace_child> traceme DIFFER REPEAT 2)
deja_rr_test(br_strace COMMAND strace -f true REPEAT 2)
# A perf event ring buffer is refused (EPERM); the program reads the counter instead.
deja_rr_program_test(br_perf_ring DIFFER)
deja_rr_test(br_strace_fork COMMAND strace -f -o /dev/null sh -c "ls / >/dev/null; (echo sub) | cat; echo $$ | cat" DIFFER REPEAT 2)
# gdb as the recorded program: breakpoints (written through /proc/PID/mem), single steps.
deja_rr_test(br_gdb_inferior COMMAND gdb -batch -nx -ex "break main" -ex run -ex next -ex next -ex continue --args $<TARGET_FILE:hello> DIFFER)
# gdb's hardware watchpoint on a global (debug registers through PTRACE_POKEUSER): the
# three changes it must report are counted, with the buffer on and off.
set(gdb_watch_script "gdb -batch -nx -ex 'break main' -ex run -ex 'watch counter' -ex continue \
-ex continue -ex continue -ex delete -ex continue --args $<TARGET_FILE:br_watched> \
| awk '/New value/ { n++ } { print } END { exit n == 3 ? 0 : 1 }'")
deja_rr_test(br_gdb_watch COMMAND sh -c "${gdb_watch_script}" DIFFER)
deja_rr_test(br_gdb_watch_nobuf COMMAND sh -c "${gdb_watch_script}" DIFFER RECORD_ARGS -n)

# Issue 29: programs that work without deja, each recorded with the buffer on and with -n.
function(deja_rr_both program)
  deja_rr_program_test(${program} ${ARGN})
  deja_rr_test(${program}_nobuf COMMAND $<TARGET_FILE:${program}> ${ARGN} RECORD_ARGS -n)
endfunction()
# The stat family into a struct that ends at a guard page, or runs into it (EFAULT).
deja_rr_both(br_stat_guard DIFFER)
deja_rr_both(br_mknod DIFFER)
deja_rr_both(br_inotify DIFFER)
deja_rr_both(br_truncate_tmp DIFFER)
# Calls right after unknown numbers; a number with high bits the kernel ignores.
deja_rr_both(br_after_unknown DIFFER)
# Device and socket outputs at their real sizes (ioctls whose encoding does not say what
# they write, getsockopt, capget), each ending at a guard page.
deja_rr_both(br_tty_ioctls DIFFER)
deja_rr_both(br_fs_ioctls DIFFER)
deja_rr_both(br_sockopts_caps DIFFER)
deja_rr_both(br_unknown_ioctl DIFFER)
# An ioctl deja does not know is named at record time.
add_test(NAME br_unknown_ioctl_said COMMAND ${DEJA_TEST_SCRIPTS}/record_says_test.sh
  $<TARGET_FILE:deja> 0 "ioctl request 0x8946 on .* is unknown to deja" $<TARGET_FILE:br_unknown_ioctl>)
set_tests_properties(br_unknown_ioctl_said PROPERTIES TIMEOUT 120)
# mlock/madvise: replay returns the recorded result where running it could not give it.
deja_rr_both(br_mlock_madvise DIFFER)
# Writes into the program's own memory through /proc/self/mem and process_vm_writev.
deja_rr_both(br_proc_self_mem DIFFER)
# Signal frames read by their handlers; poll racing an interval timer and a child.
deja_rr_both(br_signal_frame DIFFER)
deja_rr_both(br_poll_signal REPEAT 3)
# The legacy vsyscall page (time, gettimeofday, getcpu), also in a loop while a timer's
# signals come: recorded at an interrupt right after the kernel's emulated return.
deja_rr_both(br_vsyscall DIFFER)
# Faults a SIGSEGV handler resolves: write barriers, PROT_NONE reservations, a code page
# mapped by the handler; threads sharing a barrier.
deja_rr_both(br_prot_none DIFFER)
deja_rr_both(br_prot_none_threads REPEAT 2)
# PID namespaces: the init kills and reaps a child and an orphan; exits while a child
# runs (the kernel kills it); dies of a fault (a traced init would fault forever).
foreach(mode reap init_exits init_fault)
  deja_rr_test(br_pid_ns_${mode} COMMAND $<TARGET_FILE:br_pid_ns> ${mode} REPEAT 2)
  deja_rr_test(br_pid_ns_${mode}_nobuf COMMAND $<TARGET_FILE:br_pid_ns> ${mode} REPEAT 2
    RECORD_ARGS -n)
endforeach()
# Issue 29, ptrace by the recorded program (tests/programs/br_ptrace_cases.c): SEIZE and
# INTERRUPT of a spinning child, group stops (ATTACH to a stopped child, a tracee's own, LISTEN),
# single steps, PEEKUSER/POKEUSER/SETREGS, PTRACE_KILL,
# exec under TRACEME; buffered and -n; SEIZE also on two CPUs (ptrace calls serialised).
foreach(mode seize stopped groupstop listen singlestep regs kill exec)
  deja_rr_test(br_ptrace_${mode} COMMAND $<TARGET_FILE:br_ptrace_cases> ${mode} DIFFER REPEAT 2)
  deja_rr_test(br_ptrace_${mode}_nobuf COMMAND $<TARGET_FILE:br_ptrace_cases> ${mode} DIFFER
    REPEAT 2 RECORD_ARGS -n)
endforeach()
deja_rr_test(br_ptrace_seize_cpus2 COMMAND $<TARGET_FILE:br_ptrace_cases> seize DIFFER REPEAT 2
  RECORD_ARGS --cpus=2)
# A child's SIGSTOP while deja interrupts it for its tracer's ptrace call (two slots):
# its group stop is that stop, not the interrupt's (taken for it, the child ran on, the
# LISTEN failed and the recording hung on the orphan). Eight times in a row.
deja_rr_test(br_ptrace_listen_many COMMAND $<TARGET_FILE:br_ptrace_cases> listen 8 DIFFER
  RECORD_ARGS --cpus=2)
deja_rr_test(br_ptrace_listen_many_nobuf COMMAND $<TARGET_FILE:br_ptrace_cases> listen 8 DIFFER
  RECORD_ARGS --cpus=2 -n)
# A child killed by SIGKILL while it spins (tests/programs/br_kill_child.c): replay kills
# it where the recording held it instead of letting it run on.
foreach(mode spin threads stopped)
  deja_rr_test(br_kill_child_${mode} COMMAND $<TARGET_FILE:br_kill_child> ${mode} DIFFER REPEAT 2)
  deja_rr_test(br_kill_child_${mode}_cpus2 COMMAND $<TARGET_FILE:br_kill_child> ${mode} DIFFER
    REPEAT 2 RECORD_ARGS --cpus=2)
endforeach()
# A recorded tracer's waits and events (tests/programs/br_ptrace_waits.c): SIGCHLD blocked,
# a waiter thread, traced clones, vfork-done events, a tracer exiting before its tracee
# (with PTRACE_O_EXITKILL: the tracee killed).
foreach(mode sigchld waiter clone vforkdone tracerdies exitkill)
  deja_rr_test(br_ptrace_${mode} COMMAND $<TARGET_FILE:br_ptrace_waits> ${mode} DIFFER REPEAT 2)
  deja_rr_test(br_ptrace_${mode}_nobuf COMMAND $<TARGET_FILE:br_ptrace_waits> ${mode} DIFFER
    REPEAT 2 RECORD_ARGS -n)
endforeach()
deja_rr_test(br_ptrace_sigchld_cpus2 COMMAND $<TARGET_FILE:br_ptrace_waits> sigchld DIFFER
  REPEAT 2 RECORD_ARGS --cpus=2)
# deja's own descriptors do not answer fstat or fcntl (tests/programs/br_own_fds.c).
deja_rr_test(br_own_fds COMMAND $<TARGET_FILE:br_own_fds> DIFFER)
deja_rr_test(br_own_fds_nobuf COMMAND $<TARGET_FILE:br_own_fds> DIFFER RECORD_ARGS -n)
# A program's changes of its core file limit (tests/programs/br_core_limit.c).
deja_rr_test(br_core_limit COMMAND $<TARGET_FILE:br_core_limit> DIFFER)
# Output through dups of stdout and stderr (descriptors above 2): buffered writes to them
# are made traced, so the recorder keeps their bytes as output.
deja_rr_both(br_dup_stdout DIFFER)
deja_rr_test(br_dup_stdout_cpus2 COMMAND $<TARGET_FILE:br_dup_stdout> DIFFER RECORD_ARGS --cpus=2)
# 32-bit system calls (int $0x80) from 64-bit code: those with a 64-bit twin laid out
# alike are recorded as it and emulated in replay; another stops the recording, named.
deja_rr_both(br_int80 DIFFER)
add_test(NAME br_int80_said COMMAND ${DEJA_TEST_SCRIPTS}/record_says_test.sh
  $<TARGET_FILE:deja> 70 "32-bit system call number 13 \\(int \\$0x80\\).*cannot record"
  $<TARGET_FILE:br_int80> time)
set_tests_properties(br_int80_said PROPERTIES TIMEOUT 120)
# Listings of /proc/PID/fd leave deja's descriptors out (listed buffered: made traced).
deja_rr_both(br_proc_fds DIFFER)
deja_rr_test(br_proc_fds_cpus2 COMMAND $<TARGET_FILE:br_proc_fds> DIFFER RECORD_ARGS --cpus=2)
# Short-lived threads one after another: each closes its context-switch event as it ends.
deja_rr_both(br_thread_churn DIFFER)
# A timer's signal while the program spins on buffered calls: a held signal is delivered
# within a millisecond (at a state point), not at the end of the time slice.
deja_rr_both(br_signal_spin DIFFER REPEAT 2)
# A file mapped MAP_SHARED after another of the same name and first content was truncated
# while mapped (Python's test_mmap): each file gets a working copy of its own in replay.
deja_rr_both(br_shared_refile DIFFER)
# Threads raise a signal while another switches its action between a handler and SIG_IGN
# (Python's test_signal): a signal is delivered only once no sigaction is in flight.
deja_rr_both(br_sigaction_race DIFFER REPEAT 3)
# A tracer that emulates its child's calls: PTRACE_SYSEMU (each call skipped, answered by
# the tracer), then PTRACE_SYSEMU_SINGLESTEP to the next call.
deja_rr_both(br_ptrace_sysemu DIFFER)
# The local CID of a VM socket device, an ioctl whose encoding names no size.
if(EXISTS /dev/vsock)
  deja_rr_both(br_vsock_cid DIFFER)
endif()
# pidfd_open/getfd/send_signal, close_range, F_NOTIFY, descriptors shared by threads,
# prctl options (tests/programs/br_fd_calls.c).
deja_rr_both(br_fd_calls DIFFER)
# Its close_range(fd, ~0) spares deja's context-switch events (fd 900 and up): the
# library makes it over the ranges around them (no recorded close_range covers fd 900).
add_test(NAME br_close_range_spares_deja COMMAND sh -c [=[
  t=$(mktemp -d /tmp/deja-close-range.XXXXXX) && trap 'rm -rf "$t"' EXIT &&
  "$1" record -o "$t/t" "$2" >/dev/null 2>&1 || exit 1
  "$1" dump "$t/t" | sed -n 's/.* syscall close_range(\(0x[0-9a-f]*\), \(0x[0-9a-f]*\),.*/\1 \2/p' >"$t/ranges"
  n=0; bad=0
  while read -r lo hi; do
    n=$((n + 1)); [ $((lo)) -le 900 ] && [ $((hi)) -ge 900 ] && bad=$((bad + 1))
  done <"$t/ranges"
  echo "$n close_range events, $bad over fd 900"; [ $n -ge 2 ] && [ $bad -eq 0 ]
  ]=] sh $<TARGET_FILE:deja> $<TARGET_FILE:br_fd_calls>)
set_tests_properties(br_close_range_spares_deja PROPERTIES TIMEOUT 120)
# More ptrace by the recorded program (tests/programs/br_ptrace_more.c): TRACEME from a
# thread (its end told to the tracer's wait, whose made-again call a SIGCHLD interrupts),
# GET_THREAD_AREA, a tracer dying while its multi-threaded tracee is stopped.
foreach(mode traceme_thread thread_area mt_tracee)
  deja_rr_test(br_ptrace_${mode} COMMAND $<TARGET_FILE:br_ptrace_more> ${mode} DIFFER REPEAT 2)
  deja_rr_test(br_ptrace_${mode}_nobuf COMMAND $<TARGET_FILE:br_ptrace_more> ${mode} DIFFER
    REPEAT 2 RECORD_ARGS -n)
endforeach()
# A clone with a bad TLS pointer; a group stop of eight busy threads at once
# (tests/programs/br_clone_stops.c).
foreach(mode bad_tls mt_stop)
  deja_rr_test(br_clone_${mode} COMMAND $<TARGET_FILE:br_clone_stops> ${mode} DIFFER REPEAT 2)
  deja_rr_test(br_clone_${mode}_nobuf COMMAND $<TARGET_FILE:br_clone_stops> ${mode} DIFFER
    REPEAT 2 RECORD_ARGS -n)
endforeach()
# The first process exits leaving a stopped child (tests/programs/br_stopped_orphan.c):
# the recording ends with its status (not waiting for the orphan: a hang before), says so
# and leaves the orphan stopped; it replays.
add_test(NAME br_stopped_orphan COMMAND sh -c [=[
  t=$(mktemp -d /tmp/deja-orphan.XXXXXX) && trap 'rm -rf "$t"' EXIT
  for mode in "" -n; do
    timeout 60 "$1" record $mode -o "$t/t$mode" "$2" >"$t/out" 2>"$t/err"; status=$?
    child=$(sed -n 's/^stopped child \([0-9]*\): 1$/\1/p' "$t/out")
    [ -n "$child" ] && kill -9 "$child" # (if its process group was orphaned: a SIGHUP ended it)
    cat "$t/err"
    [ $status -eq 5 ] && [ -n "$child" ] || { echo "FAIL$mode: status $status"; exit 1; }
    grep -q "stays stopped by SIGSTOP" "$t/err" || { echo "FAIL$mode: not said"; exit 1; }
    "$1" replay -a "$t/t$mode" >"$t/replayed" || { echo "FAIL$mode: replay"; exit 1; }
    cmp "$t/out" "$t/replayed" || exit 1
  done
  ]=] sh $<TARGET_FILE:deja> $<TARGET_FILE:br_stopped_orphan>)
set_tests_properties(br_stopped_orphan PROPERTIES TIMEOUT 200)
