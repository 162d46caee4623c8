/* One table of every x86-64 system call, read by both the recorder and the replayer.
 * For each call: its name, how replay treats it, and which memory the kernel writes (the
 * recorder saves those bytes after the call; replay writes them back). */
#ifndef DEJA_SYSCALL_TABLE_H
#define DEJA_SYSCALL_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/* How replay treats a call; the recorder records every call but the unsupported ones. */
enum syscall_replay {
  SC_UNSUPPORTED = 0, /* recording stops with a message naming the call (exit 70) */
  SC_EMULATE,         /* replay does not run it: result and written memory come from the trace */
  SC_EXECUTE,         /* replay runs it too (shapes the address space: mmap, munmap, brk, ...) */
  SC_EXECUTE_IF_OK,   /* replay runs it when it succeeded when recorded; a failure is emulated */
};

/* Calls whose recording or replay needs more than the table's columns say name a hook:
 * the recorder and the replayer each map the hooks they need to a function (the other
 * side treats the call by its mode). A new special call is one row naming a new hook
 * here, plus the function in record_syscall.c and/or replay_syscall.c. */
#define SYSCALL_HOOKS(X)                                                                            \
  X(exit)        /* record: written at the entry (no exit stop); replay: runs, the exit waits */    \
  X(clone)       /* replay: creates the task, which gets the recorded tid */                        \
  X(mmap)        /* record: preserves the mapped file; replay: maps the preserved copy */           \
  X(mremap)      /* replay: moves to the recorded address */                                        \
  X(unmap)       /* record: pages saved again at a state point; replay: fork advice noted */        \
  X(brk)         /* record: as unmap, for the whole heap */                                         \
  X(sigreturn)   /* replay: restores every register from the frame (none are put back) */           \
  X(sigsuspend)  /* replay: the signal that ends it is sent first */                                \
  X(tid_result)  /* replay: returns the recorded tid, not the replay's; keeps the address */        \
  X(robust_list) /* replay: runs; the thread's robust list is kept (for checkpoints) */             \
  X(altstack)    /* replay: runs; the thread's alternate signal stack is kept (checkpoints) */      \
  X(rseq)        /* record: refused with ENOSYS */                                                  \
  X(write)       /* record: output to deja's stdout/stderr (buffer, result bytes) */                \
  X(writev)      /* record: output to deja's stdout/stderr (iovecs) */                              \
  X(copy_out)    /* record: what sendfile/splice/copy_file_range sent to deja's stdout/stderr */    \
  X(refuse)      /* record: may be refused with an errno (record_refuse.c) */                       \
  X(shmat)       /* record: the segment's content; replay: attaches a segment like it */            \
  X(masked_wait) /* replay: skipped, or run as rt_sigsuspend when a signal its temporary          \
                    mask let through ended it (replay_masked_wait.c) */ \
  X(ioctl)       /* record: says so when deja does not know what the request writes */              \
  X(dents)       /* record: deja's descriptors taken out of /proc/PID/fd listings */

#define SYSCALL_HOOK_ENUM(name) SCH_##name,
enum syscall_hook { SCH_NONE = 0, SYSCALL_HOOKS(SYSCALL_HOOK_ENUM) SCH_COUNT };
#undef SYSCALL_HOOK_ENUM

/* How the size of one kernel-written memory region is found. */
enum syscall_out_kind {
  OUT_NONE = 0,
  OUT_FIXED,                /* size bytes at pointer arg ptr_arg */
  OUT_ARG,                  /* size = args[size_arg] * size (size==0 means 1) */
  OUT_RESULT,               /* size = result * size when result > 0 (size==0 means 1) */
  OUT_MIN_ARG_RESULT,       /* size = min(args[size_arg], result) * size when result > 0
                        (size==0 means 1) */
  OUT_SOCKLEN,              /* args[size_arg] points at a socklen_t: the region at ptr_arg is
                        the value after the call capped at size (the value before is
                        gone by then); the socklen_t itself too */
  OUT_IOVEC_RESULT,         /* ptr_arg = struct iovec *, size_arg = count: the first result bytes
                        spread over the iovecs */
  OUT_MSGHDR,               /* ptr_arg = struct msghdr * (recvmsg): name, iov (result bytes),
                        control, and the msghdr's namelen/controllen/flags */
  OUT_MMSGHDR,              /* ptr_arg = struct mmsghdr[], result = count received */
  OUT_FDSET,                /* select: fd_set at ptr_arg sized by args[0] (nfds) */
  OUT_POLLFD,               /* ptr_arg = struct pollfd[], size_arg = count: revents (whole array) */
  OUT_EPOLL,                /* epoll_wait: result * sizeof(struct epoll_event) */
  OUT_GETDENTS,             /* result bytes */
  OUT_IOCTL,                /* size from the ioctl request (args[1]) encoding / known requests */
  OUT_FCNTL,                /* F_GETLK / F_OFD_GETLK write a struct flock at args[2] */
  OUT_PRCTL,                /* per option (PR_GET_NAME 16 bytes, ...) */
  OUT_FUTEX,                /* none, except the words FUTEX_WAKE_OP and the PI operations change */
  OUT_FIXED_IF_INTERRUPTED, /* size bytes at ptr_arg, written only when the call was
                        interrupted by a signal (nanosleep's remaining time) */
  OUT_FIXED_ALWAYS,         /* size bytes at ptr_arg, written whatever the result except -EFAULT
                        (select/pselect6/ppoll update their timeout even on failure) */
  OUT_PAGES,                /* mincore: one byte per page of args[size_arg] bytes */
  OUT_NODEMASK,             /* get_mempolicy: node bitmap of args[size_arg] - 1 bits, in longs */
  OUT_MMSGHDR_SENT,         /* sendmmsg: msg_len of the first result struct mmsghdr at ptr_arg */
  OUT_CLONE,                /* clone/clone3 in the parent: parent tid and pidfd words */
  OUT_SPECIAL,              /* per call, by command: SysV IPC control, msgrcv, ptrace,
                               keyctl, quotactl, sysfs, ... (syscall_regions_special.c) */
};

struct syscall_out {
  uint8_t kind;     /* enum syscall_out_kind */
  uint8_t ptr_arg;  /* which argument (0..5) is the pointer */
  uint8_t size_arg; /* which argument holds a count/size, when the kind uses one */
  uint32_t size;    /* fixed size or element size */
};

#define SYSCALL_MAX_OUT 4

struct syscall_desc {
  int nr;
  const char *name;
  uint8_t replay; /* enum syscall_replay */
  uint8_t hook;   /* enum syscall_hook */
  uint8_t nargs;  /* for dump: how many arguments are meaningful */
  struct syscall_out out[SYSCALL_MAX_OUT];
};

/* NULL for numbers the table does not know at all (outside 0..max, as the kernel reads
 * them: the low 32 bits, signed). Numbers no kernel
 * assigns get a row emulating them (the kernel answers -ENOSYS); that row is valid until
 * the next lookup of such a number from the same thread. */
const struct syscall_desc *syscall_table_lookup(long nr);
/* Whether deja knows what ioctl REQUEST writes (its encoding says so, or deja's table of
 * the requests it does not): the output of an unknown one is not recorded. */
bool syscall_ioctl_known(uint32_t request);
/* Whether replay runs an madvise with ADVICE that returned RESULT when recorded: only
 * advice that changes memory or what a fork copies, and only when it took effect (0, or
 * ENOMEM: the mapped parts of a range with holes got it). Others return the recorded
 * result: replay does not lock memory (mlock is emulated), and hints depend on the
 * machine's state. */
bool syscall_madvise_runs(uint64_t advice, int64_t result);
/* "read", or "syscall_123" for unknown numbers (static buffer per call site is fine). */
const char *syscall_name(long nr);
/* -1 when unknown. */
long syscall_number(const char *name);

/* A region of tracee memory the kernel wrote during a call. */
struct mem_region {
  uint64_t addr;
  uint64_t len;
};

/* Reads LEN bytes of tracee memory at ADDR into BUF; returns 0 or -1. The recorder passes
 * a reader over the stopped tracee, so regions that depend on tracee memory (iovecs,
 * msghdr, socklen) are resolved after the call. */
typedef int (*syscall_mem_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

/* Fills OUT with up to MAX regions the kernel wrote for this call (after it returned
 * RESULT with arguments ARGS); returns how many, or -1 when there are more than MAX,
 * or -2 when tracee memory needed to size them could not be read (or RD is NULL).
 * Calls that failed (result < 0, except where a failing call still writes) write nothing.
 * Null pointers and empty regions are skipped. */
int syscall_written_regions(const struct syscall_desc *d, const uint64_t args[6], int64_t result,
                            syscall_mem_read_fn rd, void *rd_ctx, struct mem_region *out, int max);

#endif
