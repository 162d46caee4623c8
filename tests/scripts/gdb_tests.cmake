# Real gdb against deja replays (scripts/gdb_replay_test.sh): small programs from
# tests/gdb/NAME.c built with -g -O0, gdb commands from tests/gdb/NAME.gdb and the
# patterns gdb's output must show, in order, from tests/gdb/NAME.expect.

set(DEJA_GDB_TEST_DIR ${CMAKE_CURRENT_SOURCE_DIR}/gdb)
set(DEJA_GDB_PROGRAMS_DIR ${CMAKE_BINARY_DIR}/tests/gdb)

# The programs are recorded, so the directory's options (sanitizers) are replaced.
function(deja_gdb_program name)
  add_executable(gdb_program_${name} ${DEJA_GDB_TEST_DIR}/${name}.c)
  set_target_properties(gdb_program_${name} PROPERTIES
    OUTPUT_NAME ${name}
    COMPILE_OPTIONS "-g;-O0;-Wall;-Wextra;-D_GNU_SOURCE"
    LINK_OPTIONS ""
    RUNTIME_OUTPUT_DIRECTORY ${DEJA_GDB_PROGRAMS_DIR})
endfunction()

# deja_gdb_test(NAME PROGRAM [MODE gdb|twice|goto|server|child] [EXIT status] [SCRIPT S]
#               [TARGET T] [REPEAT N] [REQUIRES CAP...] [BOTH]): test gdb_NAME, with the commands
# and patterns of S (default NAME); the program of target T instead of
# gdb_program_PROGRAM; N recordings. CAP: a feature `deja caps' names; a script that sets
# watchpoints (watch, rwatch, awatch) requires watchpoints by itself (the debug registers
# or page protection), one with hardware breakpoints (hbreak, thbreak) debug-registers.
# On a machine without one the test is reported skipped. BOTH: also gdb_NAME_nobuf, the
# same session on a recording made with -n (no system call buffer), which must behave the
# same (as gdb on rr does, whose buffer gdb does not see either).
function(deja_gdb_test name program)
  cmake_parse_arguments(PARSE_ARGV 2 GDB "BOTH"
                        "MODE;EXIT;SCRIPT;LIBRARY;REPLACEMENT;TARGET;REPEAT;DEJA;EXPECT"
                        "REQUIRES;RECORD_OPTIONS")
  set(script ${name})
  if(GDB_SCRIPT)
    set(script ${GDB_SCRIPT})
  endif()
  file(STRINGS ${DEJA_GDB_TEST_DIR}/${script}.gdb watch_lines
       REGEX "^[ \t]*(watch|rwatch|awatch)[ \t]")
  if(watch_lines)
    list(APPEND GDB_REQUIRES watchpoints)
  endif()
  file(STRINGS ${DEJA_GDB_TEST_DIR}/${script}.gdb hw_lines REGEX "^[ \t]*(hbreak|thbreak)[ \t]")
  if(hw_lines)
    list(APPEND GDB_REQUIRES debug-registers)
  endif()
  set(target gdb_program_${program})
  if(GDB_TARGET)
    set(target ${GDB_TARGET})
  endif()
  set(deja $<TARGET_FILE:deja>)
  if(GDB_DEJA)
    set(deja ${GDB_DEJA})
  endif()
  set(expect ${script})
  if(GDB_EXPECT)
    set(expect ${GDB_EXPECT})
  endif()
  set(args --deja ${deja} --program $<TARGET_FILE:${target}>
      --commands ${DEJA_GDB_TEST_DIR}/${script}.gdb --expect ${DEJA_GDB_TEST_DIR}/${expect}.expect)
  foreach(opt IN LISTS GDB_RECORD_OPTIONS)
    list(APPEND args --record-option ${opt})
  endforeach()
  if(GDB_REPEAT)
    list(APPEND args --repeat ${GDB_REPEAT})
  endif()
  if(GDB_MODE)
    list(APPEND args --mode ${GDB_MODE})
  endif()
  if(DEFINED GDB_EXIT)
    list(APPEND args --exit ${GDB_EXIT})
  endif()
  if(GDB_LIBRARY)
    list(APPEND args --library ${GDB_LIBRARY} --replacement ${GDB_REPLACEMENT})
  endif()
  list(REMOVE_DUPLICATES GDB_REQUIRES)
  foreach(cap IN LISTS GDB_REQUIRES)
    list(APPEND args --requires ${cap})
  endforeach()
  add_test(NAME gdb_${name} COMMAND sh ${DEJA_TEST_SCRIPTS}/gdb_replay_test.sh ${args})
  set_tests_properties(gdb_${name} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
  if(GDB_BOTH)
    add_test(NAME gdb_${name}_nobuf COMMAND sh ${DEJA_TEST_SCRIPTS}/gdb_replay_test.sh ${args}
             --record-option -n)
    set_tests_properties(gdb_${name}_nobuf PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
  endif()
endfunction()

foreach(program breakpoints watchpoints stepping registers time_random threads writes spin_preempted
        calls process_info crash crash_thread abort sigusr1 syscalls forks reverse fork_tree
        shared_map reverse_spin reverse_fork reverse_count reverse_far threads_state
        reverse_inside reverse_stepi reverse_events reverse_many libc_breaks sbuf_preempted
        sbuf_inside_call sbuf_user_preempted sigusr1_stepi stepi_blocked follow reverse_blocked
        reverse_error reverse_ret watch_stack watch_threads sbuf_same_regs watch_middle
        watch_libc watch_read output_stops catch_buffered reverse_step_threads
        reverse_long_call preempted_loops reverse_indirect_call)
  deja_gdb_program(${program})
endforeach()
target_link_libraries(gdb_program_threads PRIVATE pthread)
target_link_libraries(gdb_program_reverse_step_threads PRIVATE pthread)
target_link_libraries(gdb_program_spin_preempted PRIVATE pthread)
target_link_libraries(gdb_program_crash_thread PRIVATE pthread)
target_link_libraries(gdb_program_reverse_spin PRIVATE pthread)
target_link_libraries(gdb_program_sbuf_preempted PRIVATE pthread)
target_link_libraries(gdb_program_sbuf_inside_call PRIVATE pthread)
target_link_libraries(gdb_program_sbuf_user_preempted PRIVATE pthread)
target_link_libraries(gdb_program_sbuf_same_regs PRIVATE pthread)
target_link_libraries(gdb_program_threads_state PRIVATE pthread)
target_link_libraries(gdb_program_reverse_many PRIVATE pthread)
target_link_libraries(gdb_program_stepi_blocked PRIVATE pthread)
target_link_libraries(gdb_program_reverse_blocked PRIVATE pthread)
target_link_libraries(gdb_program_watch_threads PRIVATE pthread)
target_link_libraries(gdb_program_preempted_loops PRIVATE pthread)
# the reverse soak's findings (scripts/reverse_soak.sh), linked statically: without the
# preload library their calls are all traced (none goes through the system call buffer)
foreach(program soak_signal soak_threads_exit watch_syscall)
  deja_gdb_program(${program})
  set_target_properties(gdb_program_${program} PROPERTIES LINK_OPTIONS "-static")
endforeach()
target_link_libraries(gdb_program_soak_threads_exit PRIVATE pthread)

deja_gdb_test(breakpoints breakpoints EXIT 7)
# the stop before the process ends (SIGKILL, as rr shows it) and going back from there
deja_gdb_test(exit_stop breakpoints EXIT 7)
deja_gdb_test(watchpoints watchpoints)
# watch -l on a local whose stack page the calls and other locals use all the time; a
# watched global written by the other thread next to a busy counter (page-protection
# watchpoints pass over the accesses to the rest of the page), forwards and backwards
deja_gdb_test(watch_stack watch_stack)
deja_gdb_test(watch_threads watch_threads REPEAT 3)
# watchpoints set in the middle of a stretch, after some of its writes (at a breakpoint,
# at a stop reverse-continue or reverse-stepi reached): their stops are numbered from the
# stretch's start, so reverse-continue lands on each write in turn; the same in a second
# thread (recorded twice: threads), and a breakpoint in a loop that ran in the stretch
deja_gdb_test(watch_middle watch_middle)
deja_gdb_test(watch_middle_back watch_middle)
deja_gdb_test(watch_middle_break watch_middle)
# a struct member written by libc's memset and memcpy (vector stores), forwards and
# backwards
deja_gdb_test(watch_libc watch_libc)
# read watchpoints stop at reads only, access ones at both, forwards and backwards (the
# debug registers trap writes as reads: deja decodes the instruction to tell them apart)
deja_gdb_test(watch_read watch_read)
# an rwatch replaced by an awatch on the same bytes, and a watch and an awatch on the same
# bytes: each counts its own hits
deja_gdb_test(watch_switch watch_read)
deja_gdb_test(watch_both watch_read)
# a watched local beside 40 000 calls' frames: the store hooks, where watchpoints are by
# page protection
deja_gdb_program(watch_stack_calls)
deja_gdb_test(watch_stack_calls watch_stack_calls)
# a watched local beside qsort's and sin's frames (a call through a register, SSE
# stores), and the same with watchpoints by page protection on any machine
deja_gdb_program(watch_sort_local)
target_link_libraries(gdb_program_watch_sort_local PRIVATE m)
deja_gdb_test(watch_sort_local watch_sort_local)
deja_gdb_test(watch_sort_local_pages watch_sort_local SCRIPT watch_sort_local)
set_tests_properties(gdb_watch_sort_local_pages
                     PROPERTIES ENVIRONMENT "DEJA_NO_DEBUG_REGISTERS=1;DEJA_NO_PERF_BREAKPOINTS=1")
deja_gdb_program(watch_middle_threads)
target_link_libraries(gdb_program_watch_middle_threads PRIVATE pthread)
deja_gdb_test(watch_middle_threads watch_middle_threads REPEAT 2)
deja_gdb_test(stepping stepping)
deja_gdb_test(registers registers)
deja_gdb_test(time_random time_random MODE twice)
deja_gdb_test(threads threads)
# a stretch the recording preempted runs for real under gdb (the natural state point search)
# (its main thread spins writing a counter beside the watched flag: with page-protection
# watchpoints the store hooks write it through an alias, where a fault per write took 90 s
# here. Recorded three times: the spin and the setter's loop are preempted at different
# places each time. The setter's state point's recorded pages hold the counter as the
# main thread had it then, which the replay has only at the main thread's next state
# point: before state_match_at passed over such bytes, one recording in six diverged
# and others ran 20 000 passes of the spin, 60 s)
deja_gdb_test(spin_preempted spin_preempted REPEAT 3)
# a breakpoint hit after many preempted stretches in loops branched into and in libc's
# string functions: each runs for real once, its state point found by a jump hook
deja_gdb_test(preempted_loops preempted_loops MODE twice REPEAT 2 BOTH)
deja_gdb_test(goto_event breakpoints MODE goto EXIT 7)
deja_gdb_test(server stepping MODE server)
deja_gdb_test(writes_refused writes)
# gdb's call/print of functions run in a diversion; the replay is unchanged
deja_gdb_test(calls calls)
# a library replaced on disk after the recording: gdb reads the recorded copy (vFile)
foreach(version v1 v2)
  add_library(gdb_library_${version} SHARED ${DEJA_GDB_TEST_DIR}/library_${version}.c)
  set_target_properties(gdb_library_${version} PROPERTIES
    OUTPUT_NAME gdbdemo
    COMPILE_OPTIONS "-g;-O0;-fPIC"
    LINK_OPTIONS ""
    LIBRARY_OUTPUT_DIRECTORY ${DEJA_GDB_PROGRAMS_DIR}/${version})
endforeach()
deja_gdb_program(library)
target_link_libraries(gdb_program_library PRIVATE gdb_library_v1)
set_target_properties(gdb_program_library PROPERTIES
  BUILD_RPATH "$ORIGIN" SKIP_BUILD_RPATH FALSE BUILD_WITH_INSTALL_RPATH FALSE)
deja_gdb_test(library library MODE library
  LIBRARY $<TARGET_FILE:gdb_library_v1> REPLACEMENT $<TARGET_FILE:gdb_library_v2>)
# info proc / info inferiors: the recorded pid and command line
deja_gdb_test(process_info process_info MODE twice)
# gdb stops at every recorded signal before its delivery (a crash at the faulting
# instruction, in any thread), honours `handle ... nostop`; catch syscall/fork/vfork/exec
deja_gdb_test(crash crash EXIT 139)
deja_gdb_test(crash_thread crash_thread EXIT 139)
deja_gdb_test(abort abort EXIT 134)
deja_gdb_test(sigusr1 sigusr1)
deja_gdb_test(sigusr1_nostop sigusr1)
# stepi over a `syscall` that signals the task, into the handler (the kernel reports that
# step itself), and reverse-stepi back over the delivery stop
deja_gdb_test(sigusr1_stepi sigusr1_stepi)
# a child stopped and continued by signals, with a thread ticking, under gdb without any
# breakpoint (recorded six times: the schedules differ): the parent debugged, then the
# child (-p), whose exit_group ends its ticking thread
deja_gdb_test(soak_stop_signals - TARGET br_stop_signals REPEAT 6)
deja_gdb_test(soak_stop_signals_child - TARGET br_stop_signals REPEAT 6 MODE child)
deja_gdb_test(syscalls syscalls MODE twice)
deja_gdb_test(forks forks)
# breakpoints in libc set before the start, where the preload library patches system
# call sites (getpid's first bytes): the patcher must not see them; stops forwards and
# reverse there
deja_gdb_test(libc_breaks libc_breaks)
# reverse execution: reverse-continue onto watchpoints and breakpoints, reverse-stepi,
# reverse-finish, the start of history, forwards after backwards
deja_gdb_test(reverse reverse)
deja_gdb_test(reverse_run reverse)
deja_gdb_test(reverse_events reverse_events)
deja_gdb_test(reverse_entry reverse_events)
# catchpoints backwards: a caught call's return then its entry, forks, vforks and execs
# (as forwards); a call that blocked while another thread made thousands of calls
# (recorded again for each run: the schedule varies)
deja_gdb_test(reverse_catch reverse_events BOTH)
deja_gdb_test(reverse_catch_forks forks)
deja_gdb_test(reverse_catch_blocked reverse_blocked)
deja_gdb_test(reverse_catch_blocked_again reverse_blocked SCRIPT reverse_catch_blocked)
# found by the reverse soak: a stepi from a signal's delivery stop into its handler
deja_gdb_test(soak_signal_step soak_signal)
# and a caught call of a thread that has exited, backwards (recorded twice: threads)
deja_gdb_test(soak_threads_exit soak_threads_exit)
deja_gdb_test(soak_threads_exit_again soak_threads_exit SCRIPT soak_threads_exit)
# reverse-continue and reverse-stepi onto a watched write made by a system call: the
# call's `syscall` instruction
deja_gdb_test(watch_syscall watch_syscall)
# the same in a dynamically linked program, with the buffer on (the library's copy of the
# recorded bytes writes them) and off, forwards and backwards
deja_gdb_program(watch_kernel)
deja_gdb_test(watch_kernel watch_kernel BOTH)
deja_gdb_test(watch_kernel_pages watch_kernel SCRIPT watch_kernel BOTH)
set_tests_properties(gdb_watch_kernel_pages gdb_watch_kernel_pages_nobuf
                     PROPERTIES ENVIRONMENT "DEJA_NO_DEBUG_REGISTERS=1;DEJA_NO_PERF_BREAKPOINTS=1")
deja_gdb_test(reverse_step reverse)
# reverse-next and reverse-step across a signal's handler, and out of it
deja_gdb_program(reverse_signal)
deja_gdb_test(reverse_signal reverse_signal BOTH)
deja_gdb_test(reverse_checkpoints reverse)
# checkpoints are forks: restart N, reverse moves from them, a process tree (the session
# starts after the fork), multi-threaded processes (threads recreated in the fork, with
# their kernel state; recorded again for each run: the schedule varies)
deja_gdb_test(checkpoints_forks reverse)
# The tree recorded on one CPU: the child reads its pipe after the parent's checkpoints,
# so each checkpoint forks both processes. Recorded on two CPUs the child may be
# blocked in its read (or in a call the replayed filter stopped) at a checkpoint, which
# is then made by replaying to it instead of a fork: the same session, the same values.
deja_gdb_test(checkpoints_fork_tree fork_tree MODE goto RECORD_OPTIONS --cpus=1)
deja_gdb_test(checkpoints_fork_tree_parallel fork_tree MODE goto REPEAT 3
              SCRIPT checkpoints_fork_tree EXPECT checkpoints_fork_tree_parallel
              RECORD_OPTIONS --cpus=2)
deja_gdb_test(checkpoints_threads threads)
deja_gdb_test(checkpoints_thread_state threads_state)
deja_gdb_test(checkpoints_thread_state_again threads_state SCRIPT checkpoints_thread_state)
# a file mapped MAP_SHARED changes after a checkpoint: going back replays instead
deja_gdb_test(checkpoints_shared_map shared_map)
# the write in another thread (recorded again for each run: the schedule varies)
deja_gdb_test(reverse_threads threads)
deja_gdb_test(reverse_threads_again threads SCRIPT reverse_threads)
# across preempted loops of two threads, the write in the other thread (recorded twice:
# the schedule varies); across a fork; breakpoint hits counted in the kernel
deja_gdb_test(reverse_spin reverse_spin)
deja_gdb_test(reverse_spin_again reverse_spin SCRIPT reverse_spin)
deja_gdb_test(reverse_spin_break reverse_spin REPEAT 2)
# breakpoints after millions of passes through a preempted stretch's state point address
deja_gdb_program(loop_marks)
target_link_libraries(gdb_program_loop_marks PRIVATE pthread)
deja_gdb_test(loop_marks loop_marks REPEAT 2)
deja_gdb_program(rep_marks)
target_link_libraries(gdb_program_rep_marks PRIVATE pthread)
deja_gdb_test(rep_marks rep_marks REPEAT 2)
deja_gdb_test(reverse_fork reverse_fork)
deja_gdb_test(reverse_count reverse_count)
# conditional breakpoints deja evaluates (gdb's agent expressions) on a function two
# threads enter 14 000 times each, forwards and backwards (recorded twice: threads)
deja_gdb_program(cond_breaks)
target_link_libraries(gdb_program_cond_breaks PRIVATE pthread)
deja_gdb_test(cond_breaks cond_breaks REPEAT 2)
# the same backwards from a crash (the end of an event), twice
deja_gdb_program(cond_crash)
deja_gdb_test(cond_crash cond_crash EXIT 139)
# the write after a long loop: the instruction before it counted in the kernel (more
# single steps than the limit would need)
# (where the kernel cannot count, the loop's branch is counted by a counting hook; the
# loops' writes to `work` beside the watched bytes go through the store hooks where
# watchpoints are by page protection)
deja_gdb_test(reverse_far reverse_far)
set_tests_properties(gdb_reverse_far PROPERTIES ENVIRONMENT DEJA_TL_MAX_STEPS=20000)
# reverse-stepi after reverse-continues that stopped after long loops: the instructions
# before the writes counted from the checkpoint inside the stretch, and from a loop's
# branch (fewer single steps allowed than the loop takes)
deja_gdb_test(reverse_stepi reverse_stepi) # (as reverse_far)
set_tests_properties(gdb_reverse_stepi PROPERTIES ENVIRONMENT DEJA_TL_MAX_STEPS=20000)
# its first part on every machine: where nothing counts executions, they are trapped
deja_gdb_test(reverse_stepi_trapped reverse_stepi REPEAT 2)
set_tests_properties(gdb_reverse_stepi_trapped PROPERTIES ENVIRONMENT DEJA_TL_MAX_STEPS=20000)
# reverse moves deep inside one long stretch of user code: from the checkpoints taken
# inside it, the values and pcs seen forwards
# (30 million writes beside the watched bytes: with page-protection watchpoints the store
# hooks take them, a fault each took hours)
deja_gdb_test(reverse_inside reverse_inside)
deja_gdb_test(reverse_inside_disabled reverse_inside)
# the same in the second thread of a two-thread process (recorded twice: the schedule
# varies): DEJA_TL_DEBUG shows a move starting from a checkpoint inside the stretch
deja_gdb_program(reverse_inside_threads)
target_link_libraries(gdb_program_reverse_inside_threads PRIVATE pthread)
deja_gdb_test(reverse_inside_threads reverse_inside_threads)
deja_gdb_test(reverse_inside_threads_again reverse_inside_threads SCRIPT reverse_inside_threads)
set_tests_properties(gdb_reverse_inside_threads gdb_reverse_inside_threads_again
                     PROPERTIES ENVIRONMENT DEJA_TL_DEBUG=1)
# a position the search cannot reach: gdb is told why and the session goes on
deja_gdb_test(reverse_error reverse_error)
set_tests_properties(gdb_reverse_error PROPERTIES ENVIRONMENT DEJA_TL_MAX_STEPS=1000)
# back over a call whose callee ends in a long rep stosb (reverse-next, reverse-step), a
# breakpoint on it and stepi over it; reverse-continue onto a watched write in the middle
# of one
deja_gdb_test(reverse_ret reverse_ret)
deja_gdb_test(reverse_rep_watch reverse_ret)
deja_gdb_test(rep_watch_forward reverse_ret)
# across a thread's thousands of system calls (DEJA_TL_DEBUG shows the windows passed
# over); from `deja replay -g N', starting at the checkpoints taken on the way there
deja_gdb_test(reverse_many reverse_many)
deja_gdb_test(reverse_goto reverse_many MODE goto)
set_tests_properties(gdb_reverse_many gdb_reverse_goto PROPERTIES ENVIRONMENT DEJA_TL_DEBUG=1)
# preempted right after the library's `syscall`: those stretches run for real under gdb
deja_gdb_test(sbuf_preempted sbuf_preempted)
# a loop of buffered calls interrupted twice with the same registers (the lseek probe's
# return): the stretch between is in the trace all the same (recorded 3 times)
deja_gdb_test(sbuf_same_regs sbuf_same_regs REPEAT 3)
# preempted inside the library after a buffered call (its record is in the next flush):
# those stretches run until the call starts; their end is restored
deja_gdb_test(sbuf_inside_call sbuf_inside_call)
# preempted in user code after buffered calls: the match passes over the buffer's `used`
# and the dead stack below each thread's sp; every tick() hit is counted
deja_gdb_test(sbuf_user_preempted sbuf_user_preempted)
# threads: each test records anew, so a second one sees other preemption points
deja_gdb_test(sbuf_inside_call_again sbuf_inside_call SCRIPT sbuf_inside_call)
deja_gdb_test(sbuf_user_preempted_again sbuf_user_preempted SCRIPT sbuf_user_preempted)
# stepi of a thread blocked in a system call (recorded twice: the schedule varies)
deja_gdb_test(stepi_blocked stepi_blocked)
deja_gdb_test(stepi_blocked_again stepi_blocked SCRIPT stepi_blocked)
# forks gdb follows: the child (follow-fork-mode child), or both (detach-on-fork off)
deja_gdb_test(follow_child follow)
deja_gdb_test(follow_both follow)
deja_gdb_test(follow_both_late follow BOTH)
# a breakpoint both processes reach after a fork stops the one gdb follows only (the
# parent, or the child with follow-fork-mode child, through its exec: catch exec)
deja_gdb_program(fork_breaks)
deja_gdb_test(fork_breaks fork_breaks BOTH)
deja_gdb_test(fork_breaks_child fork_breaks BOTH)
# what the program printed before a stop is shown before gdb shows it (buffered writes too:
# the records the task made so far), once, also after going back
deja_gdb_test(output_stops output_stops BOTH)
# reverse-next and reverse-step in one thread while another made system calls and worked
# in between: the previous line of the same thread, as gdb on rr lands
deja_gdb_test(reverse_step_threads reverse_step_threads BOTH REPEAT 2)
# reverse-stepi and reverse-next over calls running millions of instructions (a loop; libc's
# memset through the PLT): the callee's ret found by counting, not single steps
deja_gdb_test(reverse_long_call reverse_long_call BOTH)
deja_gdb_test(reverse_indirect_call reverse_indirect_call BOTH)
deja_gdb_test(siginfo_traps watchpoints BOTH)
# catch syscall at the calls made through the system call buffer (no events): entry and
# return with a live process's registers, forwards and backwards, as with -n
deja_gdb_test(catch_buffered catch_buffered BOTH)
# backtraces from there reach _start (through the trampoline of a patched libc site)
deja_gdb_test(catch_backtrace catch_buffered BOTH)
# thread-local variables in every thread of nine (the executable's and libc's errno)
deja_gdb_program(tls)
target_link_libraries(gdb_program_tls PRIVATE pthread)
deja_gdb_test(tls tls BOTH)
# restart N and run: from a call's throw-away copy, after the end, after a crash; a
# checkpoint that does not exist
deja_gdb_test(restarts_calls calls BOTH)
deja_gdb_test(restarts_crash crash EXIT 139 BOTH)
# gdb's calls that send signals fail in the copy they run in (as in rr's diversions)
deja_gdb_program(diversion)
deja_gdb_test(diversion diversion BOTH)
# positions: when, when-tid as rr's scripts use them; run N / starti N to an event
deja_gdb_test(positions output_stops BOTH)
# rr's when-ticks (deja's exact position, back with monitor goto), elapsed-time, and
# info recording
deja_gdb_program(monitor)
deja_gdb_test(monitor monitor BOTH)

# gdb sessions with deja (and gdb) inside a default container (container_tests.cmake):
# recorded with ASLR on, perf events refused; reverse-continue onto watchpoints.
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/tests/tools/deja_in_container CONTENT
  "#!/bin/sh\nexec $<TARGET_FILE:container_run> $<TARGET_FILE:deja> \"$@\"\n"
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
deja_gdb_test(container_reverse reverse SCRIPT reverse
  DEJA ${CMAKE_BINARY_DIR}/tests/tools/deja_in_container)
deja_gdb_test(container_watch_threads watch_threads SCRIPT watch_threads REPEAT 2
  DEJA ${CMAKE_BINARY_DIR}/tests/tools/deja_in_container)
