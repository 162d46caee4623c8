/* Which system calls the library buffers, and how: one policy for the libc functions it
 * replaces (wrappers.c) and for libc's own call sites it redirects (patch.c). A call that
 * may block is buffered only when deja learns that it blocked (the thread's context-switch
 * event armed: reads of pipes and sockets, futex waits; deja then restarts it traced and
 * runs another task) or when a probe says it will not block (files, or pipes, sockets and
 * terminals poll says are ready); sleeps and other waits stay traced. Writes (and
 * writevs) to descriptors 0-2 keep their bytes in the record, so replay can reproduce the
 * program's terminal output. */
#include <asm/termbits.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/close_range.h>
#include <linux/futex.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <stdbool.h>
#include <sys/syscall.h>

#include "preload/preload.h"

#define STAT_SIZE 144 /* the kernel's struct stat on x86-64 */
#define STATX_SIZE 256
#define TIMESPEC_SIZE 16
#define KERNEL_SIGACTION_SIZE 32 /* handler, flags, restorer, 8-byte mask */

/* The policy's cases too long for its switch: inlined into it (a buffered call's path
 * gets no extra call). */
#define HOT static inline __attribute__((always_inline))

/* Set once the process maps a file open for writing MAP_SHARED: the recorder tracks
 * changes to such files (replay's shared copy gets them) at traced writes, so its writes
 * of files stay traced. (A file mapped shared from a read-only descriptor and written
 * through another one is missed.) */
static bool shared_file_mapped;

/* Set once the process maps anything MAP_SHARED: the recorder runs processes that share
 * writable memory one at a time (record/record_shared.c), and learns what they share at
 * traced calls, so an mprotect that may make such memory writable stays traced. */
static bool shared_mapped;

/* The recorder shows the program its own view of the CPUs (record_cpus.c) by redirecting
 * opens of these files: they stay traced. */
static bool cpu_view_path(const char *p) {
  static const char sys[] = "/sys/", cpuinfo[] = "/proc/cpuinfo";
  if (!p)
    return false;
  size_t i = 0;
  while (i < sizeof sys - 1 && p[i] == sys[i])
    i++;
  if (i == sizeof sys - 1)
    return true;
  for (i = 0; i < sizeof cpuinfo && p[i] == cpuinfo[i]; i++)
    if (!p[i])
      return true;
  return false;
}

/* Descriptors open on a process's memory (/proc/PID/mem, opened through this library):
 * writes to them change memory, which the recorder records only at traced calls. Set
 * and cleared at opens, cleared at closes; one a dup made is not known (a stale bit
 * only makes a write traced). */
#define MEM_FD_MAX 1024
static uint64_t mem_fds[MEM_FD_MAX / 64];

static bool is_mem_fd(long fd) {
  return fd >= 0 && fd < MEM_FD_MAX && (mem_fds[fd / 64] >> (fd % 64) & 1);
}

static void note_mem_fd(long fd, bool mem) {
  if (fd < 0 || fd >= MEM_FD_MAX)
    return;
  if (mem)
    mem_fds[fd / 64] |= 1ull << (fd % 64);
  else
    mem_fds[fd / 64] &= ~(1ull << (fd % 64));
}

/* P past WORD when it starts with it, else NULL. */
static const char *past(const char *p, const char *word) {
  while (*word)
    if (*p++ != *word++)
      return NULL;
  return p;
}

/* P past a decimal number, else NULL. */
static const char *past_number(const char *p) {
  const char *q = p;
  while (*q >= '0' && *q <= '9')
    q++;
  return q == p ? NULL : q;
}

/* "/proc/", then "self", "thread-self" or a number, then "/mem" or "/task/NUMBER/mem". */
static bool proc_mem_path(const char *p) {
  if (!p || !(p = past(p, "/proc/")))
    return false;
  const char *q = past(p, "self");
  if (!q)
    q = past(p, "thread-self");
  if (!q)
    q = past_number(p);
  if (!q)
    return false;
  const char *t = past(q, "/task/");
  if (t && !(q = past_number(t)))
    return false;
  q = past(q, "/mem");
  return q && !*q;
}

/* The bytes a writev of CNT buffers at IOV sends, or -1 for a count or total the kernel
 * refuses. */
static long iov_total(const struct iovec *iov, long cnt) {
  if (cnt < 0 || cnt > IOV_MAX || (cnt && !iov))
    return -1;
  size_t total = 0;
  for (long i = 0; i < cnt; i++) {
    if (iov[i].iov_len > (size_t)SSIZE_MAX - total)
      return -1;
    total += iov[i].iov_len;
  }
  return (long)total;
}

/* Chaos mode: a preemption point where a woken thread may overtake the one that woke it
 * (a traced sched_yield: deja's scheduler decides who runs next). Made here, after the
 * buffered call has returned, so the registers that call leaves are those of a recording
 * without chaos mode and of its replay alike. */
static void chaos_preemption_point(void) { preload_raw_syscall(SYS_sched_yield, 0, 0, 0, 0, 0, 0); }

/* Chaos mode: after a write of RET bytes to FD, a preemption point when FD is a pipe or
 * socket (a reader may have been woken); whether it is, a buffered lseek tells. */
static long chaos_after_write(long fd, long ret) {
  if (ret > 0 && preload_chaos()) {
    const long seek[6] = {fd, 0, SEEK_CUR, 0, 0, 0};
    if (preload_buffered(SYS_lseek, seek, -1, 0, OUT_NONE, PROBE_NONE) < 0)
      chaos_preemption_point();
  }
  return ret;
}

/* write and writev. Those to descriptors 0-2 keep their bytes in the record (gathered
 * from a writev's buffers), for replay. With a file mapped MAP_SHARED, only writes of
 * pipes and sockets (which cannot change the file) are buffered. */
HOT long write_call(long nr, const long a[6]) {
  if (is_mem_fd(a[0]))
    return preload_traced(nr, a);
  if (a[0] >= 0 && a[0] <= 2) {
    long len = nr == SYS_write ? a[2] : iov_total((const struct iovec *)a[1], a[2]);
    if (len < 0)
      return preload_traced(nr, a); /* a count the kernel refuses (EINVAL) */
    return chaos_after_write(
        a[0], preload_buffered(nr, a, 1, (size_t)len, OUT_INPUT,
                               shared_file_mapped ? PROBE_WRITE_NOFILE : PROBE_WRITE));
  }
  if (a[0] < 0 || (shared_file_mapped && nr == SYS_writev))
    return preload_traced(nr, a);
  return chaos_after_write(a[0], preload_buffered(nr, a, -1, 0, OUT_WRITE,
                                                  nr == SYS_writev     ? PROBE_SEEKABLE
                                                  : shared_file_mapped ? PROBE_WRITE_NOFILE
                                                                       : PROBE_WRITE));
}

/* fcntl: the requests that never block (locks may). */
HOT long fcntl_call(long nr, const long a[6]) {
  switch (a[1]) {
  case F_GETFD:
  case F_SETFD:
  case F_GETFL:
  case F_SETFL:
  case F_DUPFD:
  case F_DUPFD_CLOEXEC: {
    long fd = preload_buffered(nr, a, -1, 0, OUT_NONE, PROBE_NONE);
    preload_fd_forget(fd); /* a number handed out again: what it was is not what it is */
    return fd;
  }
  }
  return preload_traced(nr, a);
}

/* mmap: anonymous private memory, and small files read whole. */
HOT long mmap_call(long nr, const long a[6]) {
  if (a[3] & MAP_SHARED)
    shared_mapped = true;
  if ((a[3] & MAP_SHARED) && (int)a[4] >= 0 && !shared_file_mapped) {
    /* Only a file open for writing: glibc maps gconv's cache shared, read-only. */
    long getfl[6] = {a[4], F_GETFL, 0, 0, 0, 0};
    long fl = preload_syscall(SYS_fcntl, getfl);
    shared_file_mapped = fl < 0 || (fl & O_ACCMODE) != O_RDONLY;
  }
  /* Anonymous private memory (malloc's large blocks, thread stacks): buffered, replay
   * makes it at the recorded address. File mappings stay traced (replay maps the
   * preserved file). */
  bool chaos_picks = preload_chaos() && !a[0]; /* chaos mode picks the address */
  if ((a[3] & (MAP_SHARED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_GROWSDOWN)) ==
          (MAP_PRIVATE | MAP_ANONYMOUS) &&
      !chaos_picks)
    return preload_buffered(nr, a, -1, 0, OUT_ARGS, PROBE_NONE);
  /* A small file read whole (git maps each object it reads): its bytes are recorded.
   * Not while a file is mapped shared and writable (a private mapping of it would see
   * its changes). */
  if (!shared_file_mapped && a[0] == 0 && a[2] == PROT_READ && a[3] == MAP_PRIVATE &&
      (int)a[4] >= 0 && a[5] == 0 && a[1] > 0 && (unsigned long)a[1] <= SBUF_FILE_MAP_MAX)
    return preload_buffered(nr, a, -1, 0, OUT_FILE_MAP, PROBE_NONE);
  return preload_traced(nr, a);
}

/* The thread's last futex wait slept until woken (a hand-over; not one that timed out,
 * as an idle worker's do, whose sleeps dwarf a stop more): its next one likely sleeps
 * too, and is made traced at once, which costs two stops where a buffered wait that
 * blocks costs three (deja interrupts it and makes it again traced). deja learns that
 * the traced wait sleeps from the context-switch event, which it enables itself.
 * Decided from results only, which a replay returns the same. */
static __thread bool t_wait_slept __attribute__((tls_model("initial-exec")));

/* A futex wait (a relative timeout traced: made again after it blocked, it would wait
 * longer). */
HOT long futex_wait(long nr, const long a[6], bool relative) {
  long ret = relative || t_wait_slept ? preload_traced(nr, a)
                                      : preload_buffered(nr, a, -1, 0, OUT_NONE, PROBE_BLOCKS);
  t_wait_slept = ret == 0;
  return ret;
}

/* futex: wakes, and waits deja learns blocked (the context-switch event). */
HOT long futex_call(long nr, const long a[6]) {
  switch (a[1] & FUTEX_CMD_MASK) {
  case FUTEX_WAKE:
  case FUTEX_WAKE_BITSET: { /* never block, write no memory */
    long woken = preload_buffered(nr, a, -1, 0, OUT_NONE, PROBE_NONE);
    if (woken > 0 && preload_chaos())
      chaos_preemption_point();
    return woken;
  }
  case FUTEX_WAIT: return futex_wait(nr, a, a[3] != 0);
  case FUTEX_WAIT_BITSET: return futex_wait(nr, a, false); /* an absolute deadline, or none */
  }
  /* requeues, priority inheritance, WAKE_OP: the kernel writes the futex word */
  return preload_traced(nr, a);
}

/* ioctl: the terminal queries. */
HOT long ioctl_call(long nr, const long a[6]) {
  switch ((unsigned long)a[1]) {
  case FIONREAD: return preload_buffered(nr, a, 2, sizeof(int), OUT_FIXED, PROBE_NONE);
  case TCGETS: return preload_buffered(nr, a, 2, sizeof(struct termios), OUT_FIXED, PROBE_NONE);
  case TIOCGWINSZ: return preload_buffered(nr, a, 2, sizeof(struct winsize), OUT_FIXED, PROBE_NONE);
  }
  return preload_traced(nr, a);
}

/* Whether the call acts on one of deja's own descriptors, which the program must not see
 * (a test probing which descriptors are open with fstat found deja's): EBADF, as
 * without deja, in a recording and in its replay alike. */
static bool on_deja_fd(long nr, const long a[6]) {
  switch (nr) {
  case SYS_read:
  case SYS_write:
  case SYS_writev:
  case SYS_pread64:
  case SYS_pwrite64:
  case SYS_lseek:
  case SYS_close:
  case SYS_fstat:
  case SYS_fcntl:
  case SYS_ioctl: return preload_is_deja_fd(a[0]);
  case SYS_newfstatat: return (a[3] & AT_EMPTY_PATH) && preload_is_deja_fd(a[0]);
  case SYS_statx: return (a[2] & AT_EMPTY_PATH) && preload_is_deja_fd(a[0]);
  default: return false;
  }
}

/* close_range over deja's descriptors (closefrom(3) before an exec, or in a process that
 * goes on): made over the ranges between them, so each thread keeps its context-switch
 * event (without it a blocked buffered call held the CPU until its slice ended). Marking
 * them close-on-exec changes nothing (they are already). */
static long close_range_around(const long a[6]) {
  unsigned long from = (unsigned int)a[0], to = (unsigned int)a[1];
  long fd = from <= to && !(a[2] & CLOSE_RANGE_CLOEXEC) ? preload_next_deja_fd(from, to) : -1;
  if (fd < 0)
    return preload_traced(SYS_close_range, a);
  long rc = 0;
  for (; fd >= 0 && rc == 0; fd = preload_next_deja_fd(from, to)) {
    const long part[6] = {(long)from, fd - 1, a[2], 0, 0, 0};
    if ((unsigned long)fd > from)
      rc = preload_traced(SYS_close_range, part);
    from = (unsigned long)fd + 1;
  }
  const long rest[6] = {(long)from, (long)to, a[2], 0, 0, 0};
  return rc == 0 && from <= to ? preload_traced(SYS_close_range, rest) : rc;
}

/* getpid and getppid stay traced: cheap enough, and what debuggers catch (`catch
 * syscall getpid`) and tests alter in traces. */
long preload_syscall(long nr, const long a[6]) {
  if (on_deja_fd(nr, a))
    return -EBADF;
  switch (nr) {
  case SYS_read: /* of a file, or of a pipe, socket or terminal that has data */
    return preload_buffered(nr, a, 1, (size_t)a[2], OUT_RESULT, PROBE_READ);
  case SYS_write:
  case SYS_writev: return write_call(nr, a);
  case SYS_pread64: /* of a pipe it fails at once (ESPIPE) */
    return preload_buffered(nr, a, 1, (size_t)a[2], OUT_RESULT, PROBE_NONE);
  case SYS_pwrite64:
    if (a[0] <= 2 || shared_file_mapped || is_mem_fd(a[0]))
      break;
    return preload_buffered(nr, a, -1, 0, OUT_NONE, PROBE_NONE);
  case SYS_open:
  case SYS_openat: {
    const char *path = (const char *)a[nr == SYS_open ? 0 : 1];
    long fd = cpu_view_path(path) ? preload_traced(nr, a)
                                  : preload_buffered(nr, a, -1, 0, OUT_NONE, PROBE_NONE);
    note_mem_fd(fd, proc_mem_path(path));
    preload_fd_forget(fd);
    return fd;
  }
  case SYS_close_range: return close_range_around(a);
  case SYS_close:
    note_mem_fd(a[0], false);
    preload_fd_forget(a[0]);
    return preload_buffered(nr, a, -1, 0, OUT_NONE, PROBE_NONE);
  case SYS_lseek:
  case SYS_access:
  case SYS_faccessat:
  case SYS_faccessat2:
  case SYS_gettid:
  case SYS_getuid:
  case SYS_geteuid:
  case SYS_getgid:
  case SYS_getegid: return preload_buffered(nr, a, -1, 0, OUT_NONE, PROBE_NONE);
  case SYS_fstat:
  case SYS_stat:
  case SYS_lstat: return preload_buffered(nr, a, 1, STAT_SIZE, OUT_FIXED, PROBE_NONE);
  case SYS_newfstatat: return preload_buffered(nr, a, 2, STAT_SIZE, OUT_FIXED, PROBE_NONE);
  case SYS_statx: return preload_buffered(nr, a, 4, STATX_SIZE, OUT_FIXED, PROBE_NONE);
  case SYS_getdents64: return preload_buffered(nr, a, 1, (size_t)a[2], OUT_RESULT, PROBE_PROC_DIR);
  case SYS_readlink: return preload_buffered(nr, a, 1, (size_t)a[2], OUT_RESULT, PROBE_NONE);
  case SYS_readlinkat: return preload_buffered(nr, a, 2, (size_t)a[3], OUT_RESULT, PROBE_NONE);
  case SYS_clock_gettime: return preload_buffered(nr, a, 1, TIMESPEC_SIZE, OUT_FIXED, PROBE_NONE);
  case SYS_gettimeofday:
    if (a[1])
      break; /* the obsolete time zone */
    return preload_buffered(nr, a, 0, TIMESPEC_SIZE, OUT_FIXED, PROBE_NONE);
  case SYS_time:
    if (a[0])
      break;
    return preload_buffered(nr, a, -1, 0, OUT_NONE, PROBE_NONE);
  case SYS_getrandom: return preload_buffered(nr, a, 0, (size_t)a[1], OUT_RESULT, PROBE_NONE);
  case SYS_fcntl: return fcntl_call(nr, a);
  case SYS_mmap: return mmap_call(nr, a);
  case SYS_mprotect:
    /* Making memory executable stays traced: where the kernel does not trap rdtsc the
     * recorder patches the code it finds there (task/tsc_patch.h). */
    if ((a[2] & PROT_EXEC) || (shared_mapped && (a[2] & PROT_WRITE)))
      break;
    return preload_buffered(nr, a, -1, 0, OUT_ARGS, PROBE_NONE);
  case SYS_munmap:
  case SYS_brk: return preload_buffered(nr, a, -1, 0, OUT_ARGS, PROBE_NONE);
  case SYS_rt_sigaction:
    /* A query (no new action; python asks for every signal's at start) changes nothing
     * replay must do; setting one stays traced (replay installs the handler). */
    if (a[1] || a[3] != 8)
      break;
    return preload_buffered(nr, a, 2, KERNEL_SIGACTION_SIZE, OUT_FIXED, PROBE_NONE);
  case SYS_seccomp:
  case SYS_prctl:
    if (nr == SYS_seccomp || a[0] == PR_SET_SECCOMP)
      preload_off(); /* see preload_off */
    break;
  case SYS_futex: return futex_call(nr, a);
  case SYS_ioctl: return ioctl_call(nr, a);
  }
  return preload_traced(nr, a);
}

/* The calls preload_syscall may buffer: libc's patched sites send only these to it. */
// clang-format off
const int preload_buffered_calls[] = {
    SYS_read,       SYS_write,         SYS_writev,       SYS_pread64,      SYS_pwrite64,
    SYS_lseek,      SYS_open,          SYS_openat,       SYS_close,        SYS_access,
    SYS_faccessat,  SYS_faccessat2,    SYS_gettid,       SYS_getuid,       SYS_geteuid,
    SYS_getgid,     SYS_getegid,       SYS_fstat,        SYS_stat,         SYS_lstat,
    SYS_newfstatat, SYS_statx,         SYS_getdents64,   SYS_readlink,     SYS_readlinkat,
    SYS_time,       SYS_clock_gettime, SYS_gettimeofday, SYS_getrandom,    SYS_mmap,
    SYS_munmap,     SYS_mprotect,      SYS_brk,          SYS_seccomp,      SYS_prctl,
    SYS_fcntl,      SYS_ioctl,         SYS_futex,        SYS_rt_sigaction, SYS_close_range,
    -1,
};
// clang-format on
