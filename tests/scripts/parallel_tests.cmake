# Recording on several CPUs (issue 30, src/record/record_slots.c): processes that share no
# memory run at once, processes sharing writable memory one at a time. Every recording
# here runs on two CPUs (--cpus=2; the default is every CPU); the programs race, so each is
# recorded until recordings differ (VARY) or several times (REPEAT), and every recording
# is replayed and checked.
# Children racing to write one pipe, their exits reaped in the order wait() reports.
deja_rr_program_test(par_pipe_race VARY 5 RECORD_ARGS --cpus=2)
# Children racing to append to one file (O_APPEND); the parent prints it.
deja_rr_program_test(par_file_race VARY 5 RECORD_ARGS --cpus=2)
# Two processes signalling each other while both compute, then one killed.
deja_rr_program_test(par_signals VARY_OUTPUT 5 RECORD_ARGS --cpus=2)
# Lost updates between processes sharing an anonymous and a file mapping.
deja_rr_program_test(par_shared_map REPEAT 3 RECORD_ARGS --cpus=2)
deja_rr_test(par_shared_mprotect REPEAT 3 RECORD_ARGS --cpus=2 COMMAND $<TARGET_FILE:par_shared_map> mprotect)
deja_rr_program_test(par_compute REPEAT 2 RECORD_ARGS --cpus=2 ARGS 20000000)
# Children racing for tokens on semaphores of sem_open (made by deja, so they run at
# once): the split replays exactly; without the buffer (-n) glibc makes them, and the
# processes run one at a time.
deja_rr_program_test(par_sem REPEAT 4 RECORD_ARGS --cpus=2)
deja_rr_test(par_sem_nobuf REPEAT 2 RECORD_ARGS --cpus=2 -n COMMAND $<TARGET_FILE:par_sem>)
# ...and when one child installs a seccomp filter of its own (it then runs alone).
deja_rr_test(par_sem_seccomp REPEAT 2 RECORD_ARGS --cpus=2 COMMAND $<TARGET_FILE:par_sem> 20000 seccomp)
# Two children printing 2000 numbered lines each to stdout at once, one through libc's
# write (the buffer's path: traced on several CPUs), one by a raw system call (traced):
# the replay prints the lines in the recorded order (and the pids make runs differ).
deja_rr_program_test(par_output DIFFER REPEAT 5 RECORD_ARGS --cpus=2 TIMEOUT 300)
# ...and on one CPU, where libc's writes are buffered and the raw ones traced.
deja_rr_test(par_output_one_cpu DIFFER REPEAT 2 RECORD_ARGS --cpus=1
  COMMAND $<TARGET_FILE:par_output> 500)
# A pool of two Python worker processes (they share only semaphores: run at once).
deja_rr_test(real_python_pool VARY 3 RECORD_ARGS --cpus=2
  COMMAND /usr/bin/python3 -c [=[
import multiprocessing as mp
def work(n):
    return sum(i * i for i in range(n)) % 1000003
if __name__ == '__main__':
    with mp.Pool(2) as pool:
        print(pool.map(work, [20000 + k for k in range(8)]))
]=])
# What ran at once and what did not, by the recorder's own account; the CPU count the
# program is told; --cpus.
add_test(NAME parallel_slots
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/parallel_test.sh $<TARGET_FILE:deja>
                 $<TARGET_FILE:par_compute> $<TARGET_FILE:par_shared_map> $<TARGET_FILE:par_sem>)
set_tests_properties(parallel_slots PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
