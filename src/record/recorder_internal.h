/* State shared by the recorder's files: the task table, the trace being written. */
#ifndef DEJA_RECORD_RECORDER_INTERNAL_H
#define DEJA_RECORD_RECORDER_INTERNAL_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "record/chaos.h"
#include "task/page_hashes.h"
#include "record/recorder.h"
#include "syscalls/env_refusals.h"
#include "syscalls/syscall_table.h"
#include "task/task.h"
#include "task/tsc_patch.h"
#include "trace/trace_buf.h"
#include "trace/trace_event.h"
#include "trace/trace_files.h"
#include "trace/trace_stream.h"

#define CPU_VIEW_FILES 4

/* What the program is told about the CPUs (record_cpus.c). */
struct cpu_view {
  int count;
  cpu_set_t set;
  int files[CPU_VIEW_FILES]; /* memfds with the contents of the files that list CPUs */
};

/* A system call argument deja changed at entry, put back at exit. */
struct syscall_rewrite {
  int kind;
  int arg; /* the argument register changed, and its value */
  uint64_t value;
  uint64_t mem; /* program memory overwritten (a path), and its content */
  size_t len;
  uint8_t saved[64];
};

/* A file (or shared memory object) mapped MAP_SHARED and writable. */
struct shared_key {
  dev_t dev;
  ino_t ino;
  bool sem; /* a semaphore of sem_open (/dev/shm/sem.*): see sem_routed */
};

/* A recorded process: what its threads share. */
struct rproc {
  pid_t pid;
  /* What makes it share memory with other processes, so that they never run user code
   * at once (record_shared.c): a process whose memory it uses (CLONE_VM, a vfork before
   * its child's exec; 0: none), and its writable MAP_SHARED mappings. */
  pid_t vm_peer;
  struct shared_key *keys;
  int nkeys;
  bool tracer; /* it made a ptrace call: it reaches into others, it runs alone */
  /* Its library makes every operation on its semaphores of sem_open a call deja makes
   * (record_sem.c): those mappings alone let it run beside the others that do. */
  bool sem_routed;
  struct page_hashes *pages; /* for state points */
  bool seccomp;              /* the program installed a seccomp filter */
  int refs;
  /* mmaps of files replay maps as anonymous memory (record_anon_files.c) */
  struct mem_region *anon;
  int nanon, cap_anon;
  struct tsc_table tsc; /* rdtsc sites patched into traps (tsc_patch.h) */
};

enum rtask_state {
  T_NEW,       /* created, waiting for its first stop and its parent's clone event */
  T_READY,     /* stopped by us at a boundary, may run user code when scheduled */
  T_RUNNING,   /* running user code (in a run slot) */
  T_IN_KERNEL, /* resumed into a system call */
  T_EXITING,   /* past its exit event */
  T_STOPPED,   /* in a group stop (SIGSTOP & co.), held with PTRACE_LISTEN until SIGCONT */
  T_PTRACED,   /* in a ptrace stop for a recorded tracer (record_ptrace.c) */
  T_EMU_WAIT,  /* a tracer waiting for its tracees: its wait call is made again later */
};

/* The stops of a task traced by another recorded task (record_ptrace.c). */
enum emu_stop {
  EMU_NONE,
  EMU_SIGNAL,        /* signal-delivery stop: at deja's own delivery stop */
  EMU_SIGNAL_LATER,  /* ...of a signal the kernel would send now (SIGTRAP after exec) */
  EMU_SYSCALL_ENTRY, /* at deja's entry stop, not yet recorded */
  EMU_SYSCALL_EXIT,  /* at deja's exit stop, recorded */
  EMU_EVENT,         /* a PTRACE_EVENT stop (exec) */
  EMU_EXIT_EVENT,    /* PTRACE_EVENT_EXIT, at deja's own */
  EMU_CLONE_EVENT,   /* PTRACE_EVENT_CLONE/FORK/VFORK, at deja's own (recorded) */
  EMU_GROUP,         /* a group stop (SIGSTOP & co.), at deja's own */
};

/* X traced by another recorded task: ptrace emulated as rr does (record_ptrace.c). */
struct emu_trace {
  struct rtask *tracer;  /* NULL: not traced by a recorded task */
  bool seized, syscalls; /* syscalls: resumed with PTRACE_SYSCALL */
  unsigned long options;
  enum emu_stop stop;
  int status;      /* the wait status its tracer's wait reports */
  bool unreported; /* not yet reported by a wait */
  int inject;      /* a signal the tracer let through: delivered without another stop */
  siginfo_t si;    /* at a signal-delivery stop */
  unsigned long msg;
  bool exit_after;       /* after the exec event stop: the execve exit stop */
  bool in_call;          /* its tracer saw the entry of the call in progress */
  bool start_stop;       /* a new task of a traced one: it starts with a stop */
  bool tracer_is_parent; /* the kernel tells the tracer of its end */
  bool interrupt;        /* PTRACE_INTERRUPT: an event stop once it is between stretches */
  bool listening;        /* PTRACE_LISTEN at a group stop: a SIGCONT is an event stop */
  bool sysemu;           /* resumed with PTRACE_SYSEMU(_SINGLESTEP): its next call is skipped */
  bool skip_call;        /* at an entry stop under SYSEMU: the call is not run */
};

/* What an emulated ptrace call did to its tracee, for replay to do again. */
struct emu_effect {
  pid_t tid; /* 0: nothing */
  uint64_t addr;
  uint32_t len; /* memory written at addr (0: none) */
  uint8_t data[8];
  uint8_t *big; /* the bytes when more than 8 (malloc'ed, freed at the next call) */
  bool regs;    /* registers set */
  struct user_regs_struct r;
};

/* What an emulated ptrace call leaves to the run loop for the tracee it let go: the stops
 * of recorded tasks are handled there, above record_ptrace.c. */
struct ptrace_action {
  enum { PTRACE_NEXT_NONE, PTRACE_NEXT_ENTER, PTRACE_NEXT_STOP } what;
  struct rtask *tracee; /* ENTER: resumed from its entry stop, it goes into its call */
  int status;           /* STOP: the wait status of a stop of the tracee, to handle */
};

struct held_signal {
  siginfo_t si;
  bool resent;
};

struct rtask {
  struct task t;
  struct rproc *proc;
  enum rtask_state state;
  int slot;             /* the run slot it holds (record_slots.c), or -1 */
  int stopped_by;       /* the signal of its group stop (T_STOPPED) */
  bool ptrace_deferred; /* at a ptrace call's entry, waiting for other slots to empty */
  bool out_deferred;    /* at a write's entry, waiting for another task's write to the file */
  bool woke;    /* ready after a call that blocked (it had given its slot up), not run since */
  int out_lock; /* the output lock its write holds or waits for, plus one (0: none) */
  uint64_t out_wait_seq;           /* ...since (record_output_order.c) */
  int cpu;                         /* the CPU its affinity names, or -1 when deja did not set one */
  bool first_stop_seen, announced; /* T_NEW until both */
  /* the system call in progress */
  bool in_syscall, entry_emitted, clone_done;
  pid_t vfork_child; /* a vfork's child whose exec (or end) is not in the trace yet */
  int refused;       /* the errno a call refused at its entry returns (0: it runs) */
  uint64_t entry_seq;
  struct user_regs_struct entry;
  /* a 32-bit call (int $0x80): entry is its 64-bit twin's view, entry32 the registers the
   * trace keeps (replay compares them at the call) */
  bool compat32;
  struct user_regs_struct entry32;
  bool vsyscall; /* a call through the vsyscall page, recorded at its interrupt's stop */
  struct timespec entered;
  int deliver; /* signal to pass on at the next resume */
  /* registers at the last boundary (syscall exit, state point) while no user code ran,
   * and the `used` word of its system call buffer then (record_at_boundary) */
  bool at_boundary;
  struct user_regs_struct boundary_regs;
  uint32_t boundary_used;
  struct held_signal held[32];
  int nheld;
  struct timespec held_since; /* when the first of them was held */
  bool interrupting;          /* PTRACE_INTERRUPT sent */
  bool desched;               /* ...because it was switched out inside a buffered call */
  bool sbuf_restarted;        /* a buffered call that blocked restarted as a traced call: the
                          next entry is that call's, which blocks (others run at once) */
  bool exit_emitted;
  bool entry_regs_read;  /* t.regs hold the registers of the entry stop being handled */
  pid_t exec_former_tid; /* at an exec from another thread: its tid before (see below) */
  struct chaos_task ct;
  struct syscall_rewrite rw;
  struct emu_trace pt;
  bool emulated; /* the call in progress was emulated at its entry: its result */
  bool not_run;  /* ...skipped for its tracer's PTRACE_SYSEMU: it had no effect */
  int64_t emu_result;
  int sem_op;        /* the call in progress is the library's semaphore operation (0: not) */
  uint64_t sem_word; /* ...on this semaphore word, as deja left it */
  struct emu_effect effect;
  struct ptrace_action ptrace_next; /* what its emulated ptrace call left to the loop */
  bool wait_tracer;                 /* the wait call in progress may report tracees */
  bool wait_again;                  /* ...and is made again after its exit (T_EMU_WAIT) */
  siginfo_t chld_si; /* the SIGCHLD deja sent for a tracee's stop, as the kernel makes it */
  struct timespec wait_since;
};

/* A tracee that ended, for a tracer that is not its parent (whose wait the kernel
 * would not tell). */
struct emu_zombie {
  pid_t tracer_pid, tid;
  int status;
};

/* One CPU deja records on: the task it runs user code (or is in a system call that may
 * not block) and since when. Tasks in different slots share no memory. */
struct record_slot {
  struct rtask *cur;
  struct timespec slice_start;
  int cpu;
};

#define RECORD_MAX_SLOTS 64

struct recorder {
  const struct record_options *o;
  struct emu_zombie *zombies;
  int nzombies, cap_zombies;
  struct trace_writer *w;
  struct trace_files *files; /* the preserved files */
  struct tbuf rec, data, addrs;
  uint64_t events;
  struct stat out_st[3];
  bool out_ok[3];
  bool warned_cpuid;
  uint32_t warned_ioctls[32]; /* the unknown ioctl requests deja said it does not know */
  int nwarned_ioctls;
  bool tsc_patch;     /* the kernel does not trap rdtsc: deja patches it (tsc_patch.h) */
  uint64_t tsc_sites; /* ...how many sites it patched */
  struct timespec last_flush;
  struct rtask **tasks;
  int ntasks, cap;
  struct record_slot slots[RECORD_MAX_SLOTS];
  int nslots;
  int ptrace_waiting;          /* tasks at a ptrace call's entry waiting for the slots to empty */
  struct rtask *out_writer[2]; /* the task whose write to deja's stdout [0] or stderr is in
                                  the kernel (record_output_order.c) */
  int out_waiting;             /* tasks at a write's entry waiting for it */
  bool out_multi;              /* several slots, and a second process was made: output is traced */
  uint64_t out_wait_seq;
  int slots_busy;             /* slots holding a task */
  struct timespec busy_since; /* ...since */
  int64_t parallel_ns;        /* time two slots or more held a task (DEJA_STATS) */
  int next_rr;                /* round-robin position */
  uint64_t seq;
  int64_t slice_ns;
  pid_t root;
  int root_status;
  uint64_t state_points;
  int64_t state_point_ns;
  uint64_t state_point_bytes; /* pages saved by state points */
  struct chaos chaos;
  int64_t settle_ns;            /* chaos: waiting for woken tasks' stops */
  struct cpu_view cpus;         /* what the program is told about the CPUs */
  sigset_t chld;                /* what the loop waits for: SIGCHLD, the context-switch signal */
  struct env_refusals refusals; /* what the environment refuses unseen (exec events) */
};

/* CLOCK_MONOTONIC now, in ns: the time each event is written with (struct event.time_ns). */
static inline int64_t event_time_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec * 1000000000L + now.tv_nsec;
}

static inline int64_t elapsed_ns(const struct timespec *since) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (now.tv_sec - since->tv_sec) * 1000000000L + (now.tv_nsec - since->tv_nsec);
}

/* X is traced by another recorded task (its ptrace emulated: record_ptrace.c). */
static inline bool record_ptrace_traced(const struct rtask *x) { return x->pt.tracer != NULL; }

/* The files below are listed bottom to top: each calls only files listed before it
 * (syscallbuf_record.c and syscallbuf_announce.c: syscallbuf_record.h). */

/* chaos.c: chaos mode applied to the tasks (see chaos.h) */
void chaos_task_init(struct recorder *r, struct rtask *x);
/* Refreshes priorities, starts and ends intervals, and treats tasks that became ready
 * (new, or back from a call that blocked) as scheduling events. */
void chaos_tick(struct recorder *r);
/* X released the CPU inside a system call that blocks. */
void chaos_task_blocked(struct recorder *r, struct rtask *x);
int64_t chaos_now(void);

/* record_shared.c: which processes share memory, so never run user code at once. */
/* Whether tasks X and Y may not run user code at the same time: the same process, or
 * processes that share memory, or a recorded tracer and its tracee. */
bool record_tasks_share(const struct rtask *x, const struct rtask *y);
/* After a call of X that may have changed its shared mappings (mmap, mprotect, shmat,
 * munmap, mremap, shmdt, execve): they are read again. */
void record_shared_changed(struct rtask *x);
/* At the exit of X's system call (entry registers in x->entry): record_shared_changed
 * when the call is one of those. */
void record_shared_after_call(struct rtask *x);
/* A new process CHILD made by X's clone, fork or vfork (x->entry): it shares what X's
 * shares, and X's memory itself with CLONE_VM. */
void record_shared_forked(struct rproc *child, const struct rtask *x);
/* X's process has a new image: it shares nothing but what it maps shared anew. */
void record_shared_exec(struct rtask *x);
void record_shared_free(struct rproc *p);

/* record_sem.c: the library's semaphore operations (SBUF_SEM_NR), made by deja. */
/* At the call's entry: skipped by the kernel, made at its exit. */
int record_sem_entry(struct recorder *r, struct rtask *x);
/* At its exit: makes the operation on the word; its result. */
int64_t record_sem_exit(struct rtask *x);
/* The word as the operation left it, into the event. */
void record_sem_effect(const struct rtask *x, struct event *ev);

/* record_slots.c: the CPUs deja records on, one run slot each. */
/* Sets up the slots: at most LIMIT (0: every CPU in ALLOWED), the first on PINNED (deja's
 * own CPU). Under chaos mode, or where cpuid runs natively, one. */
void record_slots_init(struct recorder *r, const cpu_set_t *allowed, int pinned, int limit);
/* The slot X runs in, or NULL. */
struct record_slot *record_slot_of(struct recorder *r, const struct rtask *x);
/* X gives up its slot (it no longer runs user code, or blocked in a call). */
void record_slot_release(struct recorder *r, struct rtask *x);
/* X takes slot S (and S's CPU). */
void record_slot_take(struct recorder *r, struct record_slot *s, struct rtask *x);
/* Whether X shares memory with a task running in another slot. */
bool record_slot_conflict(struct recorder *r, const struct rtask *x);
/* The CPUs of the slots, for what the program is told. */
void record_slots_cpus(const struct recorder *r, cpu_set_t *out);

/* record_output_order.c: writes to deja's stdout and stderr, one at a time on several
 * slots (see there). */
/* At X's entry stop (registers in x->t.regs): true when X's write waits for another
 * task's (X is then ready, without a slot, until record_output_next names it). */
bool record_output_waits(struct recorder *r, struct rtask *x);
/* X's call left the kernel (its event written), or X ended: its lock is free. */
void record_output_done(struct recorder *r, struct rtask *x);
/* A waiting task whose lock is free now, which takes it; NULL when none. */
struct rtask *record_output_next(struct recorder *r);
/* At X's clone event that made process C: when it is the recording's second process on
 * several slots, both trace their output from now on. 0, or -1 (the trace failed). */
int record_output_forked(struct recorder *r, struct rtask *x, struct rtask *c);

/* record_cpus.c: the CPUs the program is told about (sched_getaffinity, the files that
 * list them) and chaos mode's mmap addresses; system call arguments changed at entry are
 * put back at exit, so the program and the trace see its own. */
void record_cpus_init(struct recorder *r, const cpu_set_t *slots, int pinned_cpu, int count);
void record_cpus_free(struct recorder *r);
void record_rewrite_entry(struct recorder *r, struct rtask *x);
void record_rewrite_exit(struct recorder *r, struct rtask *x);

/* record_sysv_shm.c: the region shmat mapped at RESULT, whose content the event carries
 * (the segment may hold data from before); 1, or 0 when it cannot be found. */
int record_shmat_contents(struct rtask *x, int64_t result, struct mem_region *out);

/* record_stop.c: at a group stop of X with SIG: true when X stays stopped (SIGSTOP,
 * SIGTSTP, SIGTTIN, SIGTTOU), false when it goes on (the end of a stop: SIGCONT came). */
bool record_group_stop(struct recorder *r, struct rtask *x, int sig);
/* SIGSTOP, SIGTSTP, SIGTTIN or SIGTTOU: a signal whose default action is a group stop. */
bool record_is_stop_signal(int sig);

/* record_seccomp.c: after call D of X (event EV, result set): notes filters installed,
 * and flags failed calls replay would execute (EVF_NOT_RUN) once a filter is there. */
void record_seccomp_exit(struct rtask *x, const struct syscall_desc *d, struct event *ev);

/* record_progress.c: true when every task waits in a ptrace stop deja will never end. */
bool record_stuck(struct recorder *r);
/* True when the first process ended and every task left is in a group stop, traced by
 * no recorded tracer. */
bool record_only_stopped(struct recorder *r);
/* Lets those tasks go (untraced, still stopped), saying so, and forgets them. */
void record_leave_stopped(struct recorder *r);

/* record_ns_pid.c: the pid under which task VIEWER sees task TID (PID namespaces), or
 * -1 when it cannot be told. */
pid_t record_pid_seen_by(pid_t viewer, pid_t tid);
/* Whether X is the init of a PID namespace (its innermost id is 1). */
bool record_ns_init(const struct rtask *x);

/* record_anon_files.c: private read-only mappings of data files replay maps as
 * anonymous memory holding the file's bytes. */
/* After X's mmap (entry registers E) of a file FILE_SIZE bytes long mapped at ADDR: true
 * when replay maps it so (EVF_FILE_AS_ANON); the range is remembered. */
bool record_file_as_anon(struct rtask *x, const struct user_regs_struct *e, uint64_t addr,
                         uint64_t file_size, bool elf);
/* Forgets the ranges inside [ADDR, ADDR+LEN) (unmapped). */
void record_anon_files_unmapped(struct rproc *p, uint64_t addr, uint64_t len);
/* A range of such memory the library mapped (a buffered file mapping); false when the
 * process has too many already (its madvise(MADV_DONTNEED) would then be missed). */
bool record_anon_files_add(struct rproc *p, uint64_t addr, uint64_t len);
/* mremap moved [OLD, OLD+OLD_LEN) to TO, NEW_LEN bytes long (its grown part maps the file
 * in replay too). */
void record_anon_files_moved(struct rproc *p, uint64_t old, uint64_t old_len, uint64_t to,
                             uint64_t new_len);
/* At the exit of X's call (a madvise that discarded pages, which the kernel refills from
 * the file): the remembered ranges it covers, at most ROOM, into OUT; their number. */
int record_anon_files_discarded(const struct rtask *x, struct mem_region *out, int room);
/* A forked process inherits its parent's mappings. */
void record_anon_files_copy(struct rproc *to, const struct rproc *from);

/* record_files.c: each fills FILE (the preserved file's name) when the call needs one. */
/* After an mmap of a file; returns 0, or -1 with a message in WHY. */
int record_mmap_file(struct recorder *r, struct rtask *x, struct event *ev, char *file,
                     size_t filelen, char *why, size_t whylen);
/* For a call that changed a file some recorded process maps MAP_SHARED (write family,
 * sendfile, copy_file_range, splice, ftruncate, fallocate, truncate, open with O_TRUNC):
 * marks EV with EVF_FILE_CHANGE and reads the bytes written back into r->data, which must
 * be empty. */
void record_file_change(struct recorder *r, struct rtask *x, struct event *ev, char *file,
                        size_t filelen);
/* After an mremap that grew a private file mapping: preserves the grown range (EVF_FILE_REMAP). */
int record_mremap_file(struct recorder *r, struct rtask *x, struct event *ev, char *file,
                       size_t filelen, char *why, size_t whylen);

/* record_program.c (recorder.h): the program's path, and programs deja cannot record. */

/* record_refuse.c: the errno to refuse the call X enters with, or 0 to let it run. */
int record_refusal(struct recorder *r, struct rtask *x, long nr);
/* At the exit of X's getdents64 or getdents that returned RESULT: a listing of a recorded
 * process's descriptors loses deja's own (record_fd_hide.c); the result left. */
int64_t record_hide_deja_fds(struct recorder *r, struct rtask *x, int64_t result);

/* record_tasks.c: the task table. */
struct rtask *recorder_find_task(struct recorder *r, pid_t tid);
struct rtask *recorder_add_task(struct recorder *r, pid_t tid, struct rproc *proc);
/* Takes X out of the table and frees it (and its process with its last task); what its
 * end means to others is record_task_gone's. */
void recorder_remove_task(struct recorder *r, struct rtask *x);
void recorder_vfork_released(struct recorder *r, pid_t tid);

/* record_write.c: the trace being written. */
/* EV encoded and appended to the trace; 0, or -1 after saying why. */
int recorder_write_event(struct recorder *r, const struct event *ev);
/* The EV_ENTER events due before an event of X (see there). 0 or -1. */
int recorder_write_enters(struct recorder *r, struct rtask *x);
/* After an event was written: the count, and the periodic flush. 0 or -1. */
int recorder_event_written(struct recorder *r);
int recorder_abort(struct recorder *r, const char *why);
/* Says that writing the trace failed (and what to do when the disk is full). */
void recorder_write_failed(struct recorder *r);

/* syscallbuf_record.c: the buffers (syscallbuf_record.h). */

/* record_emit.c: X's event into the trace, after X's buffered calls (syscallbuf_record.c)
 * and the EV_ENTER events due. 0 or -1. */
int recorder_emit(struct recorder *r, struct rtask *x, const struct event *ev);
/* recorder_emit in parts, for an event streamed into the trace: the EV_ENTER events due
 * before X's event, then (once the event is written) recorder_event_written. */
int recorder_emit_enters(struct recorder *r, struct rtask *x);

/* record_state_point.c: state points and boundaries. */
/* At a PTRACE_INTERRUPT stop: records a state point unless nothing ran since the last
 * boundary. Returns 0 or RECORD_DEJA_FAILED. */
int record_state_point(struct recorder *r, struct rtask *x);
/* X (its registers in x->t.regs) is at a boundary now: nothing it does before it runs user
 * code again needs a state point. */
void record_set_boundary(struct rtask *x);
/* X ran no user code since its last boundary, as far as the recorder can tell. */
bool record_at_boundary(struct rtask *x);
/* X's registers and buffer are as at its last boundary (whether or not it is at one). */
bool record_unmoved(struct rtask *x);

/* syscallbuf_announce.c: a traced call's entry as the buffer sees it (syscallbuf_record.h). */

/* record_exec_thread.c: execve from a thread other than the main one. */
/* At PTRACE_EVENT_EXIT: whether X was killed by a sibling's execve (no exit event). */
bool record_killed_by_exec(struct recorder *r, struct rtask *x, int status);
/* At PTRACE_EVENT_EXEC on X: the task that called execve; X itself when it exec'd. When
 * another thread did, X (the old main thread) gets no exit event, and once X is gone the
 * thread takes its tid (record_exec_take_tid). */
struct rtask *record_exec_caller(struct recorder *r, struct rtask *x);
void record_exec_take_tid(struct rtask *t, pid_t tid);

/* record_exit.c: a task's end. */
/* X's exit event, with wait STATUS (once). 0 or RECORD_DEJA_FAILED. */
int record_emit_exit(struct recorder *r, struct rtask *x, int status);
/* X at its PTRACE_EVENT_EXIT stop: its exit recorded, X let die. */
int recorder_exit_stop(struct recorder *r, struct rtask *x);

/* record_ptrace_wait.c: the waits of recorded tracers (see there). */
int record_ptrace_wait_entry(struct recorder *r, struct rtask *x);
bool record_ptrace_wait_exit(struct recorder *r, struct rtask *x);
/* Waiting tracers whose wait is due again become ready; the time until the next. */
int64_t record_ptrace_tick(struct recorder *r);
/* A SIGCHLD deja sent X for a tracee's stop: SI gets what the kernel's would hold. */
bool record_ptrace_chld_info(struct rtask *x, siginfo_t *si);
/* X ended with wait STATUS: a tracer that is not its parent is told by its wait. */
void record_ptrace_exited(struct recorder *r, struct rtask *x, int status);
/* A task left the recording: the waits of every tracer look again. */
void record_ptrace_wake_waits(struct recorder *r);

/* record_ptrace.c: ptrace between recorded tasks, emulated (see there). Each of the
 * stops returns true when the task is now held in a stop for its tracer (or swallowed). */
/* At the entry of X's ptrace call: answered here (0, or RECORD_DEJA_FAILED). A tracee it
 * lets go may leave work to the run loop in x->ptrace_next. */
int record_ptrace_call(struct recorder *r, struct rtask *x);
bool record_ptrace_entry_stop(struct recorder *r, struct rtask *x);
bool record_ptrace_exit_stop(struct recorder *r, struct rtask *x);
bool record_ptrace_exec_stop(struct recorder *r, struct rtask *x);
/* At the point a signal is delivered to X (its delivery stop, at a boundary). */
bool record_ptrace_signal_stop(struct recorder *r, struct rtask *x, int sig, const siginfo_t *si);
/* The syscall event of X's emulated call: its effects on the tracee. */
void record_ptrace_effects(struct rtask *x, struct event *ev);
/* After a pwrite64 or write of X that wrote RESULT bytes: a write into a recorded
 * process's memory (its own too) through /proc/PID/mem (debuggers do this) is such an
 * effect too. */
void record_ptrace_mem_write(struct recorder *r, struct rtask *x, int64_t result);
bool record_ptrace_exit_event(struct recorder *r, struct rtask *x);
/* At X's group stop by SIG (a stop signal), or at the end of one (another SIG, with X
 * T_STOPPED): true when X's tracer sees it (X is then in its ptrace stop). */
bool record_ptrace_group_stop(struct recorder *r, struct rtask *x, int sig);
/* At PTRACE_EVENT_CLONE/FORK/VFORK of X (recorded): a tracer asking for it sees the
 * event, and the new task is traced by it too. */
bool record_ptrace_clone_event(struct recorder *r, struct rtask *x, int event);
/* At X's PTRACE_EVENT_VFORK_DONE stop: true when its tracer asked for it (now its stop). */
bool record_ptrace_vfork_done(struct recorder *r, struct rtask *x);
/* Y's tracer ended: Y is let go from its stop (as by PTRACE_DETACH without a signal); what
 * is left to the run loop, which then detaches Y (record_ptrace_detach). */
struct ptrace_action record_ptrace_let_go(struct recorder *r, struct rtask *y);
void record_ptrace_detach(struct rtask *y);

/* record_signal.c */
/* Returns the signal to deliver on resume (0: none or held back), -2 when X is now held
 * in a stop for its tracer, or -1 after a failure. */
int record_signal(struct recorder *r, struct rtask *x, int sig);
void record_resend_held(struct rtask *x);

/* record_syscall.c: each returns 0, or RECORD_DEJA_FAILED after aborting; the entry also
 * 1 for a call that goes on unrecorded (its task was killed meanwhile, or its hook says). */
int record_syscall_entry(struct recorder *r, struct rtask *x);
int record_syscall_exit(struct recorder *r, struct rtask *x);

/* record_vsyscall.c: calls through the legacy vsyscall page. */
/* Whether REGS are at the page (a seccomp stop of such a call). */
bool record_in_vsyscall_page(const struct user_regs_struct *regs);
/* In the recorded program before its execve, with -n: a filter that traces only them. */
void record_vsyscall_filter(void);
/* At the entry of X's call through the page: 0 (its event follows at X's next stop), or
 * RECORD_DEJA_FAILED. */
int record_vsyscall_entry(struct recorder *r, struct rtask *x);
int record_clone(struct recorder *r, struct rtask *x);
int record_exec(struct recorder *r, struct rtask *x);
/* Appends to r->data the RESULT bytes a write-family call of X wrote, read back from the
 * program: one buffer (write, pwrite64) or, with IOV, iovecs (writev, pwritev, pwritev2).
 * Returns 0 or -1. */
int record_gather_written(struct recorder *r, struct rtask *x, bool iov, int64_t result);

/* record_schedule.c: which task runs user code. */
/* Whether X may not run now: chaos mode's high-priority-only intervals. */
bool record_held(struct recorder *r, struct rtask *x);
/* A task other than EXCEPT is ready and may run. */
bool record_any_ready(struct recorder *r, struct rtask *except);
/* X runs user code now (with the signal it is to get), as the running task. */
void record_resume_running(struct recorder *r, struct rtask *x);
/* Picks the next task to run user code: round robin; under --chaos the highest priority
 * first, at random among equals, none that an interval holds. */
void record_schedule(struct recorder *r);
/* The running task C should stop running user code now. */
bool record_should_preempt(struct recorder *r, struct rtask *c);
/* At a stop of the running task C between two stretches (a call's exit): a task that
 * woke from a blocking call waits for C's slot (one of C's threads, or a process sharing
 * memory with C), and takes it now, as the kernel would run it at once on another CPU. */
bool record_woken_waits(struct recorder *r, struct rtask *c);
/* A task inside the kernel (or new) that the kernel made runnable: it is about to stop. */
bool record_task_runnable(pid_t tid);
/* How long to wait for the next stop before acting (-1: no limit). */
int64_t record_wait_budget(struct recorder *r);
/* That wait ran out: a running task blocked in a call gives up its turn. */
void record_on_timeout(struct recorder *r);

/* record_stops.c: a stop of a recorded task handled. */
/* A stop of task TID (wait STATUS): 0, or RECORD_DEJA_FAILED. */
int recorder_handle_stop(struct recorder *r, pid_t tid, int status);
/* X's entry stop recorded and X resumed into the call (also after a ptrace stop). */
int recorder_enter_syscall(struct recorder *r, struct rtask *x);
/* Tasks whose ptrace call waited for the other slots (record_stops.c) make it now that
 * they are empty. 0, or RECORD_DEJA_FAILED. */
int record_ptrace_deferred(struct recorder *r);
/* Tasks whose write waited for another's (record_output_order.c) make it now. 0, or
 * RECORD_DEJA_FAILED. */
int record_output_deferred(struct recorder *r);
/* X leaves the recording (it ended, or an exec'ing thread took its tid): a tracer's end
 * lets its tracees go, waits look again, and X leaves the table. */
void record_task_gone(struct recorder *r, struct rtask *x);

/* record_loop.c: the run loop, until no task is left: 0, or RECORD_DEJA_FAILED. */
int record_loop(struct recorder *r);

/* record_start.c: starting the program. */
/* Forks the program PATH (with signal mask MASK), stopped before its execve. */
pid_t record_spawn(const struct record_options *o, const char *path, const sigset_t *mask);
/* Seizes the stopped child and lets it run to its execve. Returns 0, or the exit status
 * when it never got there. */
int record_start_tracing(struct recorder *r, pid_t pid);

/* The exit status of `deja record' for a wait status of the program (recorder.h). */
int record_exit_status(int wstatus);

/* The entry registers X's call event keeps: entry32 for a 32-bit call. */
static inline const struct user_regs_struct *rtask_entry_regs(const struct rtask *x) {
  return x->compat32 ? &x->entry32 : &x->entry;
}

#endif
