/* What the gdb remote protocol server needs from whatever it debugs (a replay, or a fake
 * in the unit tests). The server owns the protocol; the target owns execution. All calls
 * are made from the server's thread while the target is stopped, except that resume()
 * blocks until the target stops again and polls INTERRUPTED (Ctrl-C from gdb). */
#ifndef DEJA_GDB_TARGET_H
#define DEJA_GDB_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "gdb/gdb_agent.h"

enum gdb_stop_kind {
  GDB_STOP_SIGNAL,         /* stopped with signal `signo` (SIGTRAP after a step or breakpoint,
                          SIGINT after an interrupt, or a signal the program received) */
  GDB_STOP_WATCH,          /* a watchpoint triggered: watch_type/watch_addr; signo = SIGTRAP */
  GDB_STOP_SWBREAK,        /* a software breakpoint at the thread's pc; signo = SIGTRAP */
  GDB_STOP_HWBREAK,        /* a hardware breakpoint; signo = SIGTRAP */
  GDB_STOP_EXITED,         /* the process exited with exit_code (W packet) */
  GDB_STOP_KILLED,         /* the process was killed by signal signo (X packet) */
  GDB_STOP_HISTORY_END,    /* replay reached the end (or, reversing, the start) of the trace;
                          reported as T05 with "replaylog:end" / "replaylog:begin" */
  GDB_STOP_EXEC,           /* the thread's process exec'ed: exec_path (T05 exec:<hex path>) */
  GDB_STOP_SYSCALL_ENTRY,  /* entering system call `syscall_no` (catch syscall) */
  GDB_STOP_SYSCALL_RETURN, /* returning from system call `syscall_no` */
  GDB_STOP_FORK,           /* the thread forked child_pid (catch fork) */
  GDB_STOP_VFORK,          /* the thread vforked child_pid (catch vfork) */
  GDB_STOP_VFORK_DONE,     /* the vfork child exec'ed or exited: the parent runs again */
};

enum gdb_watch_type { GDB_WATCH_WRITE = 2, GDB_WATCH_READ = 3, GDB_WATCH_ACCESS = 4 };

struct gdb_stop {
  enum gdb_stop_kind kind;
  pid_t pid, tid;
  int signo;
  int exit_code;
  enum gdb_watch_type watch_type;
  uint64_t watch_addr;
  bool history_begin; /* GDB_STOP_HISTORY_END: true when the start was reached */
  char exec_path[256];
  int syscall_no;             /* GDB_STOP_SYSCALL_* */
  pid_t child_pid, child_tid; /* GDB_STOP_FORK, GDB_STOP_VFORK */
  /* Text for gdb's console, shown before the stop (what could not be done on the way,
   * deja's messages while the target ran); "" for none. */
  char note[2048];
};

#define GDB_NSIG 65       /* Linux signal numbers 1..64 */
#define GDB_NSYSCALLS 512 /* x86-64 system call numbers */

/* Which stops gdb wants to see, as its packets set them. */
struct gdb_stop_filter {
  bool pass[GDB_NSIG]; /* QPassSignals: delivered without a stop (Linux numbers) */
  bool catch_syscalls; /* QCatchSyscalls:1 */
  bool any_syscall;    /* ...with no list: every call */
  bool syscalls[GDB_NSYSCALLS];
  bool fork_events, vfork_events, exec_events; /* gdb understands these stop replies */
};

enum gdb_resume_action { GDB_CONTINUE, GDB_STEP };

/* Registers of one thread as gdb's amd64 description wants them. */
struct gdb_thread_regs {
  struct user_regs_struct gpr;
  /* The XSAVE area as PTRACE_GETREGSET NT_X86_XSTATE returns it (standard, non-compacted
   * format: legacy FXSAVE region, XSAVE header at 512, components at the offsets cpuid
   * leaf 0xd gives). xsave_len 0 when unavailable. */
  uint8_t xsave[4096];
  size_t xsave_len;
};

struct gdb_target {
  void *ctx;
  /* Threads of the debugged processes; returns how many were written (pid, tid pairs). */
  int (*threads)(void *ctx, pid_t *pids, pid_t *tids, int max);
  int (*get_regs)(void *ctx, pid_t tid, struct gdb_thread_regs *out);
  /* Returns bytes read (may be short at unmapped memory), or -1. */
  long (*read_mem)(void *ctx, pid_t tid, uint64_t addr, void *buf, size_t len);
  /* Z/z packets: type 0 software breakpoint, 1 hardware breakpoint, 2/3/4 watchpoints
   * (write/read/access), with TID the thread gdb selected (Hg). Returns 0, or -1 when unsupported (server answers "" for 0/1
   * types it cannot do, E01 otherwise). */
  int (*set_break)(void *ctx, pid_t tid, int type, uint64_t addr, int len, bool insert);
  /* The conditions of the breakpoint set_break just inserted at ADDR (a Z0/Z1 packet's
   * agent expressions, gdb_agent.h; N 0: none): it is a hit only where one of them holds,
   * or one cannot be evaluated. Each insert of the same breakpoint sends them all again.
   * 0 or -1. NULL: conditions are not offered (ConditionalBreakpoints), gdb evaluates
   * them itself. */
  int (*break_conds)(void *ctx, pid_t tid, uint64_t addr, const struct gdb_agent_expr *conds,
                     int n);
  /* Resumes TID (or all threads with tid -1) and blocks until the next stop. REVERSE runs
   * backwards. Returns 0 with *stop filled, or -1 on failure. */
  int (*resume)(void *ctx, enum gdb_resume_action action, pid_t tid, bool reverse,
                struct gdb_stop *stop, bool (*interrupted)(void *arg), void *arg);
  /* Absolute path of the process's executable as gdb should load it; 0 or -1. */
  int (*exec_file)(void *ctx, pid_t pid, char *buf, size_t len);
  /* The process's auxiliary vector; returns its length or -1. */
  long (*auxv)(void *ctx, pid_t pid, void *buf, size_t len);
  /* `monitor CMD` (qRcmd): writes the reply text into OUT; returns 0, or -1 for an
   * unknown command. */
  int (*monitor)(void *ctx, const char *cmd, char *out, size_t len);
  /* The stop the target is at now (for the `?` packet). */
  void (*current_stop)(void *ctx, struct gdb_stop *stop);
  /* gdb's `run` (vKill then vRun): starts the program again from the beginning (or from
   * what ARG, run's first argument or "", names) and fills *stop. 0 or -1. NULL: a kill
   * ends the session. */
  int (*restart)(void *ctx, const char *arg, struct gdb_stop *stop);
  /* gdb changed which stops it wants (called before the next resume). */
  void (*set_filter)(void *ctx, const struct gdb_stop_filter *filter);
  /* Writes from gdb (an inferior call, or gdb putting back what it wrote). 0, or -1 when
   * refused. */
  int (*set_regs)(void *ctx, pid_t tid, const struct gdb_thread_regs *regs);
  int (*write_mem)(void *ctx, pid_t tid, uint64_t addr, const void *buf, size_t len);
  /* The siginfo of the thread's last stop (qXfer:siginfo:read); bytes written or -1. gdb
   * reads it before an inferior call and writes it back (set_siginfo) after. */
  long (*siginfo)(void *ctx, pid_t tid, void *buf, size_t len);
  int (*set_siginfo)(void *ctx, pid_t tid, const void *buf, size_t len);
  /* Files as process PID sees them (vFile; PID 0: the debugged process). open_file
   * returns a read-only host descriptor the server then owns, or -errno; readlink the
   * target's length, or -errno. */
  int (*open_file)(void *ctx, pid_t pid, const char *path);
  long (*readlink)(void *ctx, pid_t pid, const char *path, char *buf, size_t len);
  /* gdb lets go of process PID (D;PID), one threads() lists: 1 when it still holds
   * another process (a forked child it follows), so the session goes on; 0 ends it. NULL:
   * letting go of any process threads() lists ends the session. */
  int (*detach)(void *ctx, pid_t pid);
  /* The name of thread TID (its comm, as `info threads` shows it) into BUF; 0, or -1
   * for none. NULL: threads have no names. */
  int (*thread_name)(void *ctx, pid_t tid, char *buf, size_t len);
  /* qGetTLSAddr: the address of the thread-local variable at OFFSET in the TLS block of
   * the module whose link_map is at LM (0: the executable), in thread TID. 0 with *ADDR,
   * or -1 with a reason in ERR (gdb shows it). NULL: not offered. */
  int (*tls_address)(void *ctx, pid_t tid, uint64_t lm, uint64_t offset, uint64_t *addr, char *err,
                     size_t errlen);
};

/* Serves the gdb remote protocol on the connected socket FD until gdb detaches, kills or
 * disconnects. Returns 0, or -1 on an I/O error (message printed). */
int gdb_serve(int fd, const struct gdb_target *t);

#endif
