/* The events of a recording, as records of the trace's `events` stream. Event numbers are
 * positions in the stream, starting at 1 (what `deja dump` shows and `replay -g` takes). */
#ifndef DEJA_TRACE_EVENT_H
#define DEJA_TRACE_EVENT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/user.h>

#include "trace/trace_buf.h"

enum event_kind {
  EV_EXEC = 1, /* a process image started: regs and initial stack after execve */
  EV_SYSCALL,  /* a system call: entry regs, result, memory the kernel wrote */
  EV_INSN,     /* a trapped instruction (rdtsc, rdtscp, cpuid): regs before and after */
  EV_SIGNAL,   /* a signal delivered to the program: number, siginfo, regs */
  EV_EXIT,     /* a process ended: wait status */
  EV_ABORT,    /* the recorder stopped the recording: why */
  EV_ENTER,    /* a task entered a system call that blocked while others ran: its user
                    code up to here ran before the events that follow */
  EV_STATE,    /* a state point: a task preempted in user code; registers, xsave area
                    and the pages of its process that changed since the last one */
  EV_SBUF,     /* the system call buffer: records of calls a task made in-process, or
                    (EVF_SBUF_INIT) the call announcing a task's buffer */
  EV_KIND_MAX,
};

/* Where a system call's output went, so replay can reproduce it. */
enum event_out { OUT_TO_NONE = 0, OUT_TO_STDOUT = 1, OUT_TO_STDERR = 2 };

/* EV_SYSCALL flags */
#define EVF_NEW_THREAD 1u /* a clone that created a thread (not a process) */
#define EVF_DEV_ZERO 2u   /* an mmap of /dev/zero: replayed as an anonymous mapping */
/* The call changed a file some process maps MAP_SHARED (file: the name of its working
 * copy in replay): its size is now file_size, fdata was written at file_off. */
#define EVF_FILE_CHANGE 4u
/* An mremap grew a private file mapping: the grown part maps file (preserved) from
 * file_off + the old length. */
#define EVF_FILE_REMAP 8u
/* A private mmap of a file the program may write (or maps shared): it maps replay's
 * working copy of the file, so it sees the file's later changes where it wrote nothing. */
#define EVF_SHARED_COPY 16u
/* A small private read-only mmap of a data file: replayed as anonymous memory holding the
 * preserved file's bytes (no descriptor of it in the program). */
#define EVF_FILE_AS_ANON 32u
/* A call replay executes that failed without effect (a seccomp filter's errno): replay
 * skips it. */
#define EVF_NOT_RUN 64u
/* A clone whose caller sees the new task under another pid (a PID namespace): that pid is
 * in the flags' bits 8-31 (the result stays the task's id in the trace). */
#define EVF_NS_PID 128u
#define EVF_NS_PID_SHIFT 8
/* A 32-bit call (int $0x80; regs as the task had them, the number i386's): replay
 * emulates it, its 64-bit twin (syscalls/syscall_compat32.h) telling what it wrote. A
 * bit of a clone's namespace pid otherwise (never a 32-bit call): read it with
 * event_compat32. */
#define EVF_COMPAT32 (1u << 25)
/* An emulated ptrace call changed its tracee (task remote_tid): the regions from index
 * remote_from on are that task's memory, and with remote_regs its registers became
 * regs_after. */
#define EVF_REMOTE (1u << 24)
/* EV_SBUF flags */
#define EVF_SBUF_INIT 1u    /* the announcing call (regs): the buffer is at sbuf */
#define EVF_SBUF_REFUSED 2u /* ...refused: the library stays off */
/* The task's next event is a buffered call the recorder restarted as a traced one (it
 * blocked): replay diverts the call whose record follows these to the traced entry. */
#define EVF_SBUF_DIVERT 4u
/* ...taken under chaos mode: the library keeps chaos mode's calls traced (it was told
 * SBUF_ANNOUNCE_CHAOS, and replay tells it the same) */
#define EVF_SBUF_CHAOS 8u
/* ...taken while deja records on several CPUs: writes to its stdout/stderr are traced
 * (SBUF_ANNOUNCE_OUT_TRACED, which replay tells the library too) */
#define EVF_SBUF_OUT_TRACED 16u

struct event_mem {
  uint64_t addr;
  uint32_t len;
  const uint8_t *data;
};

/* A decoded event. Pointers point into the record it was decoded from (valid until the
 * stream's next record is read); `mem` is owned by the event (event_free). */
struct event {
  uint32_t kind;
  int32_t tid;
  struct user_regs_struct regs;
  /* when the recorder wrote it (CLOCK_MONOTONIC ns; 0: not known, traces of older
   * versions): `monitor elapsed-time` */
  int64_t time_ns;
  /* EV_SYSCALL */
  int64_t result;
  uint32_t nmem, mem_cap;
  struct event_mem *mem;
  uint32_t out_to; /* enum event_out */
  const uint8_t *out_data;
  uint32_t out_len;
  const char *file; /* EV_SYSCALL mmap / EV_EXEC: preserved file name under files/, or "" */
  uint32_t flags;   /* EV_SYSCALL: EVF_* */
  uint64_t file_size, file_off; /* EVF_FILE_CHANGE, EVF_FILE_REMAP */
  const uint8_t *fdata;         /* EVF_FILE_CHANGE: bytes written to the file */
  uint32_t fdata_len;
  int32_t remote_tid; /* EVF_REMOTE */
  uint32_t remote_from;
  bool remote_regs;
  /* EV_INSN */
  struct user_regs_struct regs_after;
  uint32_t insn_len;
  /* EV_SIGNAL */
  int32_t signo;
  const uint8_t *siginfo; /* 128 bytes */
  /* EV_EXIT */
  int32_t status;
  /* EV_EXEC */
  uint64_t stack_addr;
  const uint8_t *stack;
  uint32_t stack_len;
  const char *strings; /* argv then envp, each NUL-terminated */
  uint32_t strings_len, argc, envc;
  /* RLIMIT_STACK of the new image (soft, hard): it decides how far the stack grows and
   * where the kernel places mappings, so replay starts the program with it */
  uint64_t stack_rlim_cur, stack_rlim_max;
  /* where the kernel put the new image's brk area (absent in older traces) */
  bool has_brk;
  uint64_t brk_start;
  /* the calls the recording's environment refused unseen (syscalls/env_refusals.h:
   * pairs of u32), absent in older traces */
  const uint8_t *refusals;
  uint32_t refusals_len;
  /* the program interpreter the kernel mapped (preserved file name, or ""), and its
   * mappings: interp_count entries of 4 u64s (start, end, file offset, PROT_*); the
   * content of its writable ones is in mem (the kernel zeroed their bss part) */
  const char *interp;
  const uint8_t *interp_maps;
  uint32_t interp_count;
  /* the page the recorder mapped for the interpreter's cpuid sites (task/cpuid_patch.h;
   * 0: none, as in older traces); the page and the patched code are in mem */
  uint64_t cpuid_stub;
  uint32_t cpuid_stub_len;
  /* EV_ABORT */
  const char *message;
  /* EV_SBUF (flags in flags): the buffer's address; records that start at byte sbuf_off
   * of its record area */
  uint64_t sbuf;
  uint32_t sbuf_off, sbuf_len;
  const uint8_t *sbuf_data;
  /* EV_STATE (pages in mem) */
  const uint8_t *xsave;
  uint32_t xsave_len;
  /* the digest of the process's memory (page_digest_add over its present writable
   * pages), absent in traces of older versions */
  bool has_digest;
  uint64_t digest;
};

void event_init(struct event *ev);
void event_free(struct event *ev);
void event_add_mem(struct event *ev, uint64_t addr, const uint8_t *data, uint32_t len);

/* Serialises EV into B (reset first). */
void event_encode(const struct event *ev, struct tbuf *b);
/* A state event streamed in pieces (its pages may not fit in memory at once): the head
 * (EV with its registers and xsave area, no pages), then for each page the header from
 * event_encode_state_page followed by LEN bytes, then event_encode_state_end. Each
 * resets B. The result decodes like event_encode's. */
void event_encode_state_head(const struct event *ev, struct tbuf *b);
void event_encode_state_page(struct tbuf *b, uint64_t addr, uint32_t len);
void event_encode_state_end(struct tbuf *b, uint64_t digest);
/* A syscall event streamed in pieces (for results too large to hold twice): the head
 * (EV without its memory, which will have NMEM regions), then for each region the header
 * from event_encode_mem_header followed by LEN bytes, then the tail. Each resets B. */
void event_encode_syscall_head(const struct event *ev, uint32_t nmem, struct tbuf *b);
void event_encode_mem_header(struct tbuf *b, uint64_t addr, uint32_t len);
void event_encode_syscall_tail(const struct event *ev, struct tbuf *b);
/* An sbuf event without a copy of its records: the head from event_encode_sbuf_head
 * (resets B), followed by EV's sbuf_len bytes of sbuf_data. */
void event_encode_sbuf_head(const struct event *ev, struct tbuf *b);
/* Parses a record; returns 0, or -1 when it is malformed (message in ERR). */
int event_decode(struct event *ev, const void *rec, size_t len, char *err, size_t errlen);

const char *event_kind_name(uint32_t kind);

/* Whether syscall event EV is a 32-bit call (EVF_COMPAT32, not a clone's pid bit). */
static inline bool event_compat32(const struct event *ev) {
  return (ev->flags & (EVF_COMPAT32 | EVF_NS_PID)) == EVF_COMPAT32;
}

/* True for a signal the program's own instruction raised (a fault, int3, ud2): it
 * recurs by itself in replay at the same instruction. Other signals (sent by a process,
 * a timer, the terminal) are injected by replay at the recorded point. SIGINFO is the
 * kernel's 128-byte siginfo (NULL: unknown, taken as asynchronous). */
bool signal_is_synchronous(int signo, const void *siginfo);

#endif
