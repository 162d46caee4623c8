# Inside a default container (issue 28): tests/tools/container_run applies the part of
# Docker's default seccomp profile (Kubernetes' RuntimeDefault) that matters to deja: ASLR
# cannot be turned off, perf events, clone3 and the CAP_SYS_ADMIN calls are refused.
# Each program is recorded inside, replayed outside (replay -a, checking the output) and
# inside (replay -a -q); the *_out_in ones are recorded outside and replayed inside.
set(DEJA_CONTAINER $<TARGET_FILE:container_run>)

foreach(program aslr_addresses aslr_addresses_static hello_static brk_malloc big_heap_preempt
        pt_fork_wait pt_vfork_exec pt_exec_script br_stop_signals proc_self at_random
        mt_thread_names sbuf_calls)
  deja_rr_test(container_${program} COMMAND $<TARGET_FILE:${program}>
    RECORD_IN ${DEJA_CONTAINER} REPLAY_IN ${DEJA_CONTAINER})
endforeach()
# Nondeterministic ones, recorded several times.
foreach(program mt_racy_counter mt_condvar_pingpong pt_pipeline)
  deja_rr_test(container_${program} REPEAT 3 COMMAND $<TARGET_FILE:${program}>
    RECORD_IN ${DEJA_CONTAINER} REPLAY_IN ${DEJA_CONTAINER})
endforeach()
deja_rr_test(container_python3 DIFFER COMMAND /usr/bin/python3 -c
  "(lambda random, time, os: print(random.random(), time.time(), os.getpid(), os.urandom(8).hex()))(*map(__import__, ['random', 'time', 'os']))"
  RECORD_IN ${DEJA_CONTAINER} REPLAY_IN ${DEJA_CONTAINER})
# Each thread computes long enough (~0.1 s recorded) to be preempted a few times, so the
# schedules of a few recordings differ (with a tenth of it, 6 recordings were often alike).
deja_rr_test(container_python_threads VARY 10 COMMAND /usr/bin/python3 -c [=[
import threading
out = []
workers = [threading.Thread(target=lambda n=n: out.append(sum(range(n * 1000000)))) for n in range(1, 4)]
[w.start() for w in workers]
[w.join() for w in workers]
print(sorted(out))
]=] RECORD_IN ${DEJA_CONTAINER} REPLAY_IN ${DEJA_CONTAINER})
deja_rr_test(container_make_j2 VARY 4 TIMEOUT 300
  COMMAND make -j2 -C ${DEJA_TEST_DATA_DIR}/mk OUT=${CMAKE_CURRENT_BINARY_DIR}/mkout_container
  RECORD_IN ${DEJA_CONTAINER} REPLAY_IN ${DEJA_CONTAINER})
# Recorded outside (ASLR off), replayed inside (ASLR on).
foreach(program aslr_addresses mt_racy_counter pt_fork_wait)
  deja_rr_test(container_${program}_out_in COMMAND $<TARGET_FILE:${program}>
    REPLAY_IN ${DEJA_CONTAINER})
endforeach()
# Only perf events refused (a host that forbids them): the buffer goes without its
# context-switch event.
foreach(program mt_condvar_pingpong pipe_basic sbuf_calls)
  deja_rr_test(container_noperf_${program} COMMAND $<TARGET_FILE:${program}>
    RECORD_IN ${CMAKE_BINARY_DIR}/tests/tools/no_perf_run)
endforeach()
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/tests/tools/no_perf_run CONTENT
  "#!/bin/sh\nexec $<TARGET_FILE:container_run> --no-perf-only \"$@\"\n"
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
# A program that turns ASLR off itself (setarch -R): refused inside (unseen by deja, refused
# the same way when replayed outside), allowed outside (replayed inside with ASLR on).
deja_rr_test(container_setarch
  COMMAND sh -c "setarch x86_64 -R $<TARGET_FILE:aslr_addresses>; echo status $?"
  RECORD_IN ${DEJA_CONTAINER} REPLAY_IN ${DEJA_CONTAINER})
deja_rr_test(container_setarch_out_in
  COMMAND sh -c "setarch x86_64 -R $<TARGET_FILE:aslr_addresses>; echo status $?"
  REPLAY_IN ${DEJA_CONTAINER})
# Chaos mode and the unbuffered recorder inside.
deja_rr_test(container_chaos_mt_racy_counter REPEAT 2 RECORD_ARGS -h
  COMMAND $<TARGET_FILE:mt_racy_counter> RECORD_IN ${DEJA_CONTAINER} REPLAY_IN ${DEJA_CONTAINER})
deja_rr_test(container_unbuffered_pt_pipeline RECORD_ARGS -n
  COMMAND $<TARGET_FILE:pt_pipeline> RECORD_IN ${DEJA_CONTAINER} REPLAY_IN ${DEJA_CONTAINER})
