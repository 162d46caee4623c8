/* The preload library's internal interface, its files bottom to top: the buffered call
 * and the traced fallback (preload.c, with fd_cache.c below it), the policy (policy.c), libc's replaced functions
 * (wrappers.c) and redirected call sites (patch.c), the start (init.c). */
#ifndef DEJA_PRELOAD_PRELOAD_H
#define DEJA_PRELOAD_PRELOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "preload/syscallbuf_abi.h"

#define EXPORT __attribute__((visibility("default")))

/* How many bytes of the output argument the kernel wrote. */
enum out_kind {
  OUT_NONE,
  OUT_RESULT,   /* the result counts them (read, readlink, getrandom, getdents64) */
  OUT_FIXED,    /* all OUTMAX of them when the call returned 0 (stat, clock_gettime) */
  OUT_INPUT,    /* none: the record keeps the bytes a write to descriptor 0-2 sent (the first
                   `result` of the OUTMAX at argument OUTARG, or gathered from a writev's
                   buffers), for replay's output */
  OUT_ARGS,     /* a call that changes the address space: the record keeps its six arguments,
                   and in a replay the library makes it for real (SBUF_EXEC_ADDR) */
  OUT_FILE_MAP, /* a private read-only mmap of a small file (SBUF_FILE_MAP_MAX) */
  OUT_WRITE,    /* none: a write to descriptor 3 or above, made traced when it is a dup of
                   deja's stdout/stderr (the recorder then keeps its bytes as output) */
};

/* How a call on descriptor a[0] that might block is made sure not to: probes the
 * library makes (untraced, their results in the record) before buffering it. */
enum probe {
  PROBE_NONE,
  PROBE_SEEKABLE,     /* only a seekable descriptor (a file) */
  PROBE_READ,         /* a file, or one poll says is readable (then a read returns at once) */
  PROBE_WRITE,        /* a file, or one poll says is writable, for at most PIPE_BUF bytes (any
                     size with the context-switch event) */
  PROBE_WRITE_NOFILE, /* as PROBE_WRITE, but never a file (it may be mapped MAP_SHARED) */
  PROBE_BLOCKS,       /* any descriptor or none (a futex wait): made with the context-switch
                         event armed, traced when the thread has none */
  PROBE_PROC_DIR,     /* traced when a directory of /proc (deja hides its own descriptors
                         from /proc/PID/fd listings) */
};

/* Runs call NR buffered when the thread has a buffer with room, else traced. The kernel
 * writes argument OUTARG's memory (at most OUTMAX bytes: exactly what it writes), and
 * the record keeps a copy (a replay copies it back). When PROBE says the call could block, it is made
 * traced. Returns the raw result (-errno on failure). */
long preload_buffered(long nr, const long a[6], int outarg, size_t outmax, enum out_kind kind,
                      enum probe probe);
/* The policy (policy.c): call NR buffered when that is safe, else traced. Raw result. */
long preload_syscall(long nr, const long a[6]);
/* The numbers preload_syscall may buffer, ending with -1. */
extern const int preload_buffered_calls[];
/* The call made traced, from the library's own `syscall` instruction. Raw result. */
long preload_traced(long nr, const long a[6]);
long preload_raw_syscall(long nr, long a0, long a1, long a2, long a3, long a4, long a5);
void preload_copy(void *dst, const void *src, size_t n);
/* Redirects libc's own system call instructions to the buffer (patch.c). */
void preload_patch_libc(void);
/* Once the fixed page is mapped (init.c): buffers may be taken, starting with the calling
 * thread's. False when deja did not take it: the library stays off. */
bool preload_start_buffers(void);
/* From now on, threads that end close their context-switch events (init.c, at start). */
void preload_watch_thread_ends(void);
/* In the child of fork(): its thread's buffer announced again, with an event of its own. */
void preload_forked_child(void);
/* From now on every call of this process is made traced: it installs a seccomp filter
 * of its own, whose errno results the recorder sees only at traced calls' entries. */
void preload_off(void);
/* deja records in chaos mode: the calls whose results chaos mode chooses stay traced. */
bool preload_chaos(void);
/* deja took the process's first buffer: the library is on. */
bool preload_on(void);
/* preload_off was called. */
bool preload_is_off(void);
/* Whether FD is one of deja's own descriptors (a context-switch event). */
bool preload_is_deja_fd(long fd);
/* The lowest of deja's descriptors in [FROM, TO], or -1. */
long preload_next_deja_fd(unsigned long from, unsigned long to);
/* The descriptors known to be files while recording (fd_cache.c): FD seekable; FD
 * seekable and not deja's stdout or stderr (plain). Noted after the probes said so,
 * forgotten when FD is closed or handed out again. */
bool preload_fd_seekable(long fd);
bool preload_fd_plain(long fd);
void preload_fd_note(long fd, bool plain);
void preload_fd_forget(long fd);
/* A raw result as libc returns it: -1 with errno set on failure. */
long preload_errno(long ret);

#endif
