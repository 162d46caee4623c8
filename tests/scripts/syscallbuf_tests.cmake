# The in-process system call buffer (issue 9). The whole suite records with the buffer on
# (the default); these add programs that stress it, a subset recorded with -n, checks
# that the buffer is used and that a buffered call differing in replay is a divergence,
# and gdb on a replay with buffered calls.
deja_rr_program_test(sbuf_calls DIFFER)
deja_rr_program_test(sbuf_signals REPEAT 2)
deja_rr_program_test(sbuf_thread_pipe REPEAT 3)
deja_rr_program_test(sbuf_fork_exec)
deja_rr_program_test(sbuf_close_fds)
# The library's memory of which descriptors are files, made stale behind its back (a raw
# dup2, a thread's, a process sharing the descriptor table, a vfork child): the writes
# after it are stdout, which replay prints.
deja_rr_program_test(sbuf_fd_cache)
deja_rr_program_test(sbuf_fifo_open REPEAT 2)
# Small read-only mappings of data files are replayed as anonymous memory (the recording
# says so); the recording replays (rr_mmap_data_file checks the output).
add_test(NAME mmap_data_file_as_anon COMMAND ${DEJA_TEST_SCRIPTS}/syscallbuf_test.sh
  $<TARGET_FILE:deja> dump "(replayed as anonymous memory)" 3 $<TARGET_FILE:mmap_data_file>)
# sigaction queries are buffered (setting an action stays traced)
deja_rr_program_test(sbuf_sigaction_query)
add_test(NAME syscallbuf_sigaction_query COMMAND ${DEJA_TEST_SCRIPTS}/syscallbuf_test.sh
  $<TARGET_FILE:deja> buffered rt_sigaction 60 $<TARGET_FILE:sbuf_sigaction_query>)
# writev to stdout and stderr (a pipe) is buffered with its bytes, which replay writes
# again; also with -n (traced).
deja_rr_program_test(sbuf_writev)
add_test(NAME syscallbuf_writev_output COMMAND ${DEJA_TEST_SCRIPTS}/syscallbuf_test.sh
  $<TARGET_FILE:deja> output writev 200 $<TARGET_FILE:sbuf_writev>)
# Futex waits and wakes buffered: locks, semaphores, condition variables, timed waits,
# raw futex calls, a semaphore shared with a forked child; signals sent to a thread
# waiting in buffered calls. Their schedules vary (where waits block, where signals land).
deja_rr_program_test(sbuf_futex_sync VARY 4)
deja_rr_program_test(sbuf_futex_signals VARY 4)
# Python threads (the GIL, queue.Queue, locks, a thread pool) with buffered futexes.
deja_rr_test(real_python_queue_pool VARY 4 COMMAND /usr/bin/python3 -c [=[
import threading, queue, concurrent.futures
q = queue.Queue(maxsize=8)
lock = threading.Lock()
total = [0]
def producer(n):
    for i in range(n):
        q.put(i)
    q.put(None)
def consumer():
    while True:
        v = q.get()
        if v is None:
            break
        with lock:
            total[0] += v
threads = [threading.Thread(target=producer, args=(2000,)) for _ in range(3)]
threads += [threading.Thread(target=consumer) for _ in range(3)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(total[0])
with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
    print(sum(pool.map(lambda x: x * x, range(3000))))
]=])

# Anonymous private mmap, munmap, brk and mprotect are buffered; replay makes them from
# the library at the recorded addresses (and before a state point it restores). Threads
# doing so concurrently are preempted between them (state points). A recorded address
# the replay cannot get (edited into the trace: one already mapped) is a divergence.
deja_rr_program_test(sbuf_addr_space)
deja_rr_program_test(sbuf_addr_space_threads VARY 8)
add_test(NAME syscallbuf_munmap COMMAND ${DEJA_TEST_SCRIPTS}/syscallbuf_test.sh
  $<TARGET_FILE:deja> buffered munmap 400 $<TARGET_FILE:sbuf_addr_space>)
add_test(NAME syscallbuf_mmap_diverge COMMAND ${DEJA_TEST_SCRIPTS}/syscallbuf_test.sh
  $<TARGET_FILE:deja> mmap-diverge $<TARGET_FILE:trace_edit> $<TARGET_FILE:sbuf_addr_space>)

# Without the buffer (-n): every call traced.
foreach(program hello file_io stat_calls dir_listing pipe_basic mt_condvar_pingpong pt_fork_wait
    sig_alarm_eintr_read sbuf_calls sbuf_signals sbuf_fork_exec sbuf_futex_sync sbuf_addr_space)
  deja_rr_test(${program}_nobuf COMMAND $<TARGET_FILE:${program}> RECORD_ARGS -n)
endforeach()
deja_rr_test(real_ls_nobuf COMMAND ls -la /usr/lib RECORD_ARGS -n)

add_test(NAME syscallbuf_used COMMAND ${DEJA_TEST_SCRIPTS}/syscallbuf_test.sh $<TARGET_FILE:deja>
  used $<TARGET_FILE:sbuf_calls>)
add_test(NAME syscallbuf_diverge COMMAND ${DEJA_TEST_SCRIPTS}/syscallbuf_test.sh
  $<TARGET_FILE:deja> diverge $<TARGET_FILE:sbuf_diverge>)
# A buffered read that blocks until another thread writes: restarted as a traced read.
add_test(NAME syscallbuf_restarted COMMAND ${DEJA_TEST_SCRIPTS}/syscallbuf_test.sh
  $<TARGET_FILE:deja> restarted $<TARGET_FILE:sbuf_thread_pipe>)
# ...and a write of more than PIPE_BUF bytes to stdout that finds its pipe full (its
# registers at the traced entry must match in replay), recorded twice more as a program.
deja_rr_program_test(sbuf_pipe_write_blocks REPEAT 2)
add_test(NAME syscallbuf_restarted_write COMMAND ${DEJA_TEST_SCRIPTS}/syscallbuf_test.sh
  $<TARGET_FILE:deja> restarted-write $<TARGET_FILE:sbuf_pipe_write_blocks>)
# Futex waits that block are restarted as traced calls (timed ones from the start).
add_test(NAME syscallbuf_futex COMMAND ${DEJA_TEST_SCRIPTS}/syscallbuf_test.sh
  $<TARGET_FILE:deja> futex $<TARGET_FILE:sbuf_futex_sync>)
set_tests_properties(syscallbuf_used syscallbuf_diverge syscallbuf_restarted
  syscallbuf_restarted_write syscallbuf_futex
  PROPERTIES TIMEOUT 120)

# gdb on a replay with buffered calls: a watchpoint on memory a buffered call wrote.
deja_gdb_program(sbuf_watch)
deja_gdb_test(sbuf_watch sbuf_watch)
# ...and on memory from buffered mmap/munmap/brk calls, with a checkpoint and reverse
# execution across them.
deja_gdb_program(sbuf_heap)
deja_gdb_test(sbuf_heap sbuf_heap)
