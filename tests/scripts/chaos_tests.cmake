# Chaos mode and record --until-failure (issue 12). Each chaos_* program has a bug that
# shows only under unlucky scheduling, CPU counts or memory layouts: recorded without
# chaos mode it passes; `record -h --until-failure=40` must make it fail, and the failing
# trace must replay faithfully (scripts/chaos_test.sh).
set(DEJA_CHAOS_TEST ${CMAKE_CURRENT_LIST_DIR}/chaos_test.sh)

function(deja_chaos_test name program)
  add_test(NAME chaos_${name}
           COMMAND bash ${DEJA_CHAOS_TEST} $<TARGET_FILE:deja> -- $<TARGET_FILE:${program}> ${ARGN})
  set_tests_properties(chaos_${name} PROPERTIES TIMEOUT 300)
endfunction()

# A worker kept off the CPU for 500 ms while the main thread waits for it with a timeout.
deja_chaos_test(starve_worker chaos_starve_worker 500)
# The main thread kept off the CPU while a watchdog thread waits for its heartbeat.
deja_chaos_test(starve_main chaos_starve_main 100)
# A lone thread kept off the CPU for 300 ms (150 failed without chaos mode at load 9 on 2 cores).
deja_chaos_test(starve_lone chaos_starve_lone 300)
# A thread kept off the CPU for 50 ms inside the 50 ms window at 100 ms of its run,
# alone or with three idle threads (found by the pauses of a hunt's later recordings; 20
# ms inside 20 ms failed once without chaos mode at load 8 on 2 cores), and two mmaps
# sharing address bits 16-22, a later one right below an earlier one.
deja_chaos_test(starve_window chaos_starve_window 50 100 150)
deja_chaos_test(starve_window_idle chaos_starve_window 50 100 150 3)
deja_chaos_test(mmap_bits chaos_mmap_bits)
deja_chaos_test(mmap_below chaos_mmap_below)
# Wake-up races: the woken thread runs before the waker's next step.
deja_chaos_test(wakeup_futex chaos_wakeup_race futex)
deja_chaos_test(wakeup_pipe chaos_wakeup_race pipe)
# A program that assumes its core count, one that assumes two mmaps are adjacent.
deja_chaos_test(core_count chaos_core_count)
deja_chaos_test(mmap_adjacent chaos_mmap_adjacent)

# The program sees as many CPUs as deja records on (1-8 under chaos mode, the same for the
# whole recording), the same way everywhere it looks, and the replay shows the same.
deja_rr_program_test(cpu_count_view)
deja_rr_test(chaos_cpu_count_view REPEAT 4 RECORD_ARGS -h COMMAND $<TARGET_FILE:cpu_count_view>)

# Chaos recordings of racy programs replay faithfully, several of each (with the system
# call buffer on: the sbuf_* ones buffer reads, writes, futex waits and wakes).
foreach(program mt_racy_counter mt_timer_compute pt_pipeline sbuf_thread_pipe sbuf_futex_sync
        sbuf_calls)
  deja_rr_test(chaos_${program} REPEAT 3 RECORD_ARGS -h COMMAND $<TARGET_FILE:${program}>)
endforeach()
deja_rr_test(chaos_mt_condvar_pingpong REPEAT 2 RECORD_ARGS -h
  COMMAND $<TARGET_FILE:mt_condvar_pingpong>)
# Stop signals at preemption points: a state point taken at the group stop a SIGSTOP or
# SIGTSTP caused (or at one of the process's stops while a SIGCONT is delivered). About
# half of these recordings have one; replay diverged on each before the fix.
deja_rr_test(chaos_stop_signal_cycles REPEAT 3 RECORD_ARGS -h
  COMMAND $<TARGET_FILE:stop_signal_cycles>)
deja_rr_test(chaos_real_sh_pipeline REPEAT 2 RECORD_ARGS -h
  COMMAND sh -c "echo one | tr a-z A-Z | wc -c")

# record --until-failure: a program failing on its third run, one that never fails, -o,
# bad N, SIGINT to deja.
add_test(NAME record_until_failure
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/until_failure_test.sh $<TARGET_FILE:deja>
                 $<TARGET_FILE:fail_third_run> $<TARGET_FILE:hello>
                 $<TARGET_FILE:chaos_starve_lone> 20 3000)
set_tests_properties(record_until_failure PROPERTIES TIMEOUT 120)
