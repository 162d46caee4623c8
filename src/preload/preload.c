/* The preload library's core (preload.h): calls through the fixed page (mapped by init.c),
 * each thread's buffer, and the buffered call.
 *
 * A buffered call runs through the page's entry (untraced while recording: no ptrace
 * stop) and leaves a record in the thread's buffer: its number, an argument hash, its
 * result and a copy of the bytes the kernel wrote into the caller's memory. In a replay
 * the entry does not call the kernel: it returns the result deja put into the record
 * beforehand, and the library copies the recorded bytes to the caller, so the same code
 * path yields the recorded outcome. */
#include "preload/preload.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <linux/magic.h>
#include <unistd.h>

#define TLS __attribute__((tls_model("initial-exec")))
#define barrier() __asm__ volatile("" ::: "memory")

enum { T_NONE, T_READY, T_BUSY, T_OFF };
static __thread struct sbuf_hdr *t_buf TLS;
static __thread int t_state TLS;
static __thread int t_desched TLS = -1; /* the thread's context-switch event, or -1 */
#define DESCHED_FD_FLOOR 900            /* where it goes (below the usual limit of 1024) */
static int g_on;         /* the page is mapped and deja took the first thread's buffer */
static int g_off;        /* the process has a seccomp filter of its own */
static int g_chaos;      /* deja records in chaos mode (SBUF_ANNOUNCE_CHAOS) */
static int g_out_traced; /* writes to deja's stdout/stderr are traced (SBUF_ANNOUNCE_OUT_TRACED) */

void preload_off(void) { g_off = 1; }

bool preload_is_off(void) { return g_off; }

bool preload_chaos(void) { return g_chaos; }

bool preload_on(void) { return g_on; }

/* The process's context-switch events (one per thread, and a forked child keeps its
 * parent's until exec): descriptors the program must not see (preload_is_deja_fd). */
#define DEJA_FDS 256
static uint64_t g_deja_fds[DEJA_FDS / 64];

static void deja_fd_mark(long fd, bool open) {
  if (fd < DESCHED_FD_FLOOR || fd >= DESCHED_FD_FLOOR + DEJA_FDS)
    return;
  uint64_t bit = 1ull << ((fd - DESCHED_FD_FLOOR) % 64);
  uint64_t *word = &g_deja_fds[(fd - DESCHED_FD_FLOOR) / 64];
  if (open)
    __atomic_fetch_or(word, bit, __ATOMIC_RELAXED);
  else
    __atomic_fetch_and(word, ~bit, __ATOMIC_RELAXED);
}

bool preload_is_deja_fd(long fd) {
  if (fd < DESCHED_FD_FLOOR || fd >= DESCHED_FD_FLOOR + DEJA_FDS)
    return false;
  uint64_t word = __atomic_load_n(&g_deja_fds[(fd - DESCHED_FD_FLOOR) / 64], __ATOMIC_RELAXED);
  return word >> ((fd - DESCHED_FD_FLOOR) % 64) & 1;
}

long preload_next_deja_fd(unsigned long from, unsigned long to) {
  for (unsigned long fd = from < DESCHED_FD_FLOOR ? DESCHED_FD_FLOOR : from;
       fd <= to && fd < DESCHED_FD_FLOOR + DEJA_FDS; fd++)
    if (preload_is_deja_fd((long)fd))
      return (long)fd;
  return -1;
}

/* rdi=nr, rsi..r9 = a0..a4, [rsp+8] = a5, [rsp+16] = where the result lives in the
 * record (the replay entry reads it from there). */
__asm__(".text\n"
        ".globl sbuf_entry_call\n"
        ".hidden sbuf_entry_call\n"
        ".type sbuf_entry_call,@function\n"
        "sbuf_entry_call:\n"
        "  .cfi_startproc\n" /* (a debugger's backtrace from a caught call passes through) */
        "  mov %rdi, %rax\n"
        "  mov %rsi, %rdi\n"
        "  mov %rdx, %rsi\n"
        "  mov %rcx, %rdx\n"
        "  mov %r8, %r10\n"
        "  mov %r9, %r8\n"
        "  mov 8(%rsp), %r9\n"
        "  mov 16(%rsp), %r11\n"
        "  push %r11\n"
        "  .cfi_adjust_cfa_offset 8\n"
        "  mov $0x70000000, %r11\n"
        "  call *%r11\n"
        "  add $8, %rsp\n"
        "  .cfi_adjust_cfa_offset -8\n"
        "  ret\n"
        "  .cfi_endproc\n"
        ".size sbuf_entry_call, .-sbuf_entry_call\n");
long sbuf_entry_call(long nr, long a0, long a1, long a2, long a3, long a4, long a5,
                     int64_t *result);

/* A traced call NR with the six arguments at A (rdi, rsi), made with every other register
 * the kernel's entry stop shows set alike (zero, the flags of that zero), so that it
 * does not depend on the path that led to it: a recording and its replay reach it
 * through different code (output_to), and deja compares the registers at a traced
 * call's entry. */
__asm__(".text\n"
        ".globl preload_traced_clean\n"
        ".hidden preload_traced_clean\n"
        ".type preload_traced_clean,@function\n"
        "preload_traced_clean:\n"
        "  .cfi_startproc\n"
        "  push %rbx\n"
        "  .cfi_adjust_cfa_offset 8\n"
        "  push %rbp\n"
        "  .cfi_adjust_cfa_offset 8\n"
        "  push %r12\n"
        "  .cfi_adjust_cfa_offset 8\n"
        "  push %r13\n"
        "  .cfi_adjust_cfa_offset 8\n"
        "  push %r14\n"
        "  .cfi_adjust_cfa_offset 8\n"
        "  push %r15\n"
        "  .cfi_adjust_cfa_offset 8\n"
        "  mov %rdi, %rax\n"
        "  mov %rsi, %r11\n"
        "  mov 0(%r11), %rdi\n"
        "  mov 8(%r11), %rsi\n"
        "  mov 16(%r11), %rdx\n"
        "  mov 24(%r11), %r10\n"
        "  mov 32(%r11), %r8\n"
        "  mov 40(%r11), %r9\n"
        "  xor %ecx, %ecx\n"
        "  xor %ebx, %ebx\n"
        "  xor %ebp, %ebp\n"
        "  xor %r12d, %r12d\n"
        "  xor %r13d, %r13d\n"
        "  xor %r14d, %r14d\n"
        "  xor %r15d, %r15d\n"
        "  xor %r11d, %r11d\n"
        "  syscall\n"
        "  pop %r15\n"
        "  .cfi_adjust_cfa_offset -8\n"
        "  pop %r14\n"
        "  .cfi_adjust_cfa_offset -8\n"
        "  pop %r13\n"
        "  .cfi_adjust_cfa_offset -8\n"
        "  pop %r12\n"
        "  .cfi_adjust_cfa_offset -8\n"
        "  pop %rbp\n"
        "  .cfi_adjust_cfa_offset -8\n"
        "  pop %rbx\n"
        "  .cfi_adjust_cfa_offset -8\n"
        "  ret\n"
        "  .cfi_endproc\n"
        ".size preload_traced_clean, .-preload_traced_clean\n");
long preload_traced_clean(long nr, const long a[6]);

/* The same through the page's `syscall` replay lets through (SBUF_EXEC_ADDR). */
__asm__(".text\n"
        ".globl sbuf_exec_call\n"
        ".hidden sbuf_exec_call\n"
        ".type sbuf_exec_call,@function\n"
        "sbuf_exec_call:\n"
        "  .cfi_startproc\n"
        "  mov %rdi, %rax\n"
        "  mov %rsi, %rdi\n"
        "  mov %rdx, %rsi\n"
        "  mov %rcx, %rdx\n"
        "  mov %r8, %r10\n"
        "  mov %r9, %r8\n"
        "  mov 8(%rsp), %r9\n"
        "  mov $0x70000080, %r11\n"
        "  call *%r11\n"
        "  mov $0x70000002, %ecx\n" /* as the recording's `syscall` left it (SBUF_UNTRACED_IP) */
        "  ret\n"
        "  .cfi_endproc\n"
        ".size sbuf_exec_call, .-sbuf_exec_call\n");
long sbuf_exec_call(long nr, long a0, long a1, long a2, long a3, long a4, long a5);
_Static_assert(SBUF_EXEC_ADDR == 0x70000080, "sbuf_exec_call's address");

/* In a replay (the page's replay entry; a gdb call's copy has the recording one again),
 * the address-space call of record REC is made for real, at the recorded address, unless
 * it failed when recorded. */
static bool replaying_entry(void) { return *(volatile const uint8_t *)SBUF_ENTRY_ADDR == 0xeb; }
/* The replay's word on the library's page: set in a replay (the record's fields hold what
 * the recording saw). */
static bool replaying(void) {
  return *(volatile const uint32_t *)(SBUF_PAGE_ADDR + SBUF_REPLAYING_OFF) != 0;
}

/* Writes to deja's stdout and stderr are traced: deja said so at the announcement or,
 * at this process's first fork, in the page. */
static bool out_traced(void) {
  return g_out_traced || *(volatile const uint32_t *)(SBUF_PAGE_ADDR + SBUF_OUT_TRACED_OFF) != 0;
}

/* The struct stat of a file mapping's record decides whether it is buffered. */
static bool file_map_ok(const long a[6], const uint8_t *st, long fstat_ret) {
  uint32_t mode;
  int64_t size;
  preload_copy(&mode, st + 24, sizeof mode); /* st_mode, st_size in the kernel's stat */
  preload_copy(&size, st + 48, sizeof size);
  return fstat_ret == 0 && (mode & 0170000) == 0100000 && size > 0 &&
         sbuf_file_map_ok((uint64_t)a[1], (uint64_t)size);
}

/* Open read-only: a file this process may write is mapped from replay's working copy
 * (it sees later changes), as the recorder decides for traced mappings. The flags go
 * into the record's `ready` (the replay entry reads 8 bytes there: the low half). */
static bool read_only_fd(long fd, struct sbuf_rec *rec) {
  int fl = (int)sbuf_entry_call(SYS_fcntl, fd, F_GETFL, 0, 0, 0, 0, (int64_t *)(void *)&rec->ready);
  rec->ready = (uint32_t)fl;
  return fl >= 0 && (fl & O_ACCMODE) == O_RDONLY;
}

static uint64_t file_size(const uint8_t *st) {
  int64_t size;
  preload_copy(&size, st + 48, sizeof size);
  return (uint64_t)size;
}

/* In a replay: the file mapping of record REC as anonymous memory holding the recorded
 * bytes, at the recorded address, then given the mapping's protection. */
static long replay_file_map(const long a[6], const struct sbuf_rec *rec, const uint8_t *data) {
  long want = rec->ret;
  if ((unsigned long)want > -4096ul)
    return want;
  long got = sbuf_exec_call(SYS_mmap, want, a[1], PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (got != want)
    return got;
  preload_copy((void *)got, data + SBUF_FILE_MAP_HEAD,
               sbuf_file_map_bytes((uint64_t)a[1], file_size(data + SBUF_EXEC_ARGS_BYTES)));
  long rc = sbuf_exec_call(SYS_mprotect, got, a[1], a[2], 0, 0, 0);
  return rc == 0 ? got : rc;
}

static long replay_exec(long nr, long b[6], const struct sbuf_rec *rec) {
  long want = rec->ret;
  if ((unsigned long)want > -4096ul)
    return want;
  if (nr == SYS_mmap && !(b[3] & MAP_FIXED)) {
    b[0] = want;
    b[3] |= MAP_FIXED_NOREPLACE;
  }
  if (nr == SYS_brk)
    b[1] = want; /* (brk ignores it) the recorded break, for a replay that emulates brk */
  return sbuf_exec_call(nr, b[0], b[1], b[2], b[3], b[4], b[5]);
}

/* The library touches no SSE register (-mgeneral-regs-only), so the patched libc call
 * sites need not save any: copies are `rep movs`, not libc's memcpy. */
void preload_copy(void *dst, const void *src, size_t n) {
  /* Eight bytes at a time: a debugger's watchpoint on a word sees it written whole. */
  size_t words = n / 8, rest = n % 8;
  __asm__ volatile("rep movsq" : "+D"(dst), "+S"(src), "+c"(words) : : "memory");
  __asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(rest) : : "memory");
}

long preload_raw_syscall(long nr, long a0, long a1, long a2, long a3, long a4, long a5) {
  long ret;
  register long r10 __asm__("r10") = a3;
  register long r8 __asm__("r8") = a4;
  register long r9 __asm__("r9") = a5;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(nr), "D"(a0), "S"(a1), "d"(a2), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return ret;
}

long preload_errno(long ret) {
  if ((unsigned long)ret > -4096ul) {
    errno = (int)-ret;
    return -1;
  }
  return ret;
}

long preload_traced(long nr, const long a[6]) {
  return preload_raw_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* Opens the calling thread's context-switch event (moved to DESCHED_FD_FLOOR or above)
 * and announces buffer B with it to deja: 0 when deja took it. */
static long announce(long b) {
  /* Counts this thread's context switches once enabled; deja sets where it signals. */
  struct perf_event_attr attr = {
      .type = PERF_TYPE_SOFTWARE,
      .size = sizeof attr,
      .config = PERF_COUNT_SW_CONTEXT_SWITCHES,
      .sample_period = 1,
      .disabled = 1,
  };
  long fd =
      preload_raw_syscall(SYS_perf_event_open, (long)&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC, 0);
  /* Out of the way of the program's own descriptors (its first open still gets 3). */
  long high =
      fd >= 0 ? preload_raw_syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, DESCHED_FD_FLOOR, 0, 0, 0) : -1;
  if (high >= 0) {
    preload_raw_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
    fd = high;
  }
  long rc = preload_raw_syscall(SBUF_ANNOUNCE_NR, b, SBUF_SIZE, fd < 0 ? -1 : fd, 0, 0, 0);
  if (rc > 0 && !(rc & ~(long)(SBUF_ANNOUNCE_CHAOS | SBUF_ANNOUNCE_OUT_TRACED))) {
    g_chaos = (rc & SBUF_ANNOUNCE_CHAOS) != 0;
    g_out_traced = (rc & SBUF_ANNOUNCE_OUT_TRACED) != 0;
    rc = 0;
  }
  if (rc != 0 && fd >= 0)
    preload_raw_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
  t_desched = rc != 0 || fd < 0 ? -1 : (int)fd;
  deja_fd_mark(t_desched, true);
  return rc;
}

/* At the end of a thread that took a buffer (a pthread key's destructor, run in the
 * thread): its context-switch event is closed, or every short-lived thread would leave
 * one open until the process ran out of descriptors. Its last calls are traced. */
static pthread_key_t g_end_key;
static int g_end_key_ok;

static void thread_ends(void *buf) {
  (void)buf;
  t_state = T_OFF;
  if (t_desched >= 0)
    preload_raw_syscall(SYS_close, t_desched, 0, 0, 0, 0, 0);
  deja_fd_mark(t_desched, false);
  t_desched = -1;
}

void preload_watch_thread_ends(void) {
  g_end_key_ok = pthread_key_create(&g_end_key, thread_ends) == 0;
}

/* Not inlined into preload_buffered (nor was it before that function was cut into
 * parts): the registers a buffered call leaves to the program must be the same in a
 * recording and in its replay, whose paths through the library differ (replaying_entry,
 * output_to). With it inlined, the compiler popped a pushed argument into r11 after the
 * page's call on the recording's path only, and rr_rdtsc_code diverged. */
__attribute__((noinline)) static struct sbuf_hdr *thread_buffer(void) {
  if (__builtin_expect(t_state == T_READY, 1))
    return t_buf;
  if (t_state != T_NONE || !g_on)
    return NULL;
  t_state = T_BUSY; /* a signal handler running meanwhile makes its calls traced */
  long b = preload_raw_syscall(SYS_mmap, 0, SBUF_SIZE, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if ((unsigned long)b > -4096ul) {
    t_state = T_OFF;
    return NULL;
  }
  if (announce(b) != 0) {
    preload_raw_syscall(SYS_munmap, b, SBUF_SIZE, 0, 0, 0, 0);
    t_state = T_OFF;
    return NULL;
  }
  t_buf = (struct sbuf_hdr *)b;
  t_state = T_READY;
  if (g_end_key_ok && t_desched >= 0)
    pthread_setspecific(g_end_key, t_buf);
  return t_buf;
}

/* In the child of fork(): the thread's event still counts the parent's thread, so the
 * child opens its own and announces its copy of the buffer with it (deja would
 * otherwise learn that its calls block only at the end of a time slice). */
void preload_forked_child(void) {
  if (t_state != T_READY || t_buf->in_call || t_buf->traced)
    return;
  if (t_desched >= 0)
    preload_raw_syscall(SYS_close, t_desched, 0, 0, 0, 0, 0);
  deja_fd_mark(t_desched, false);
  t_state = T_BUSY;
  t_state = announce((long)t_buf) == 0 ? T_READY : T_OFF;
}

static uint32_t args_hash(long nr, const long a[6]) {
  uint64_t h = 1469598103934665603ull ^ (uint64_t)nr;
  for (int i = 0; i < 6; i++)
    h = (h ^ (uint64_t)a[i]) * 1099511628211ull;
  return (uint32_t)(h ^ (h >> 32));
}

/* Enables or disables the thread's context-switch event, untraced. What the ioctl
 * returns matters to nothing: in a replay the entry returns this zero instead. */
static void desched_arm(bool on) {
  static const int64_t ignored = 0;
  sbuf_entry_call(SYS_ioctl, t_desched, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0, 0,
                  0, 0, (int64_t *)&ignored);
}

/* Whether the file of struct stat ST is deja's stdout (I 0) or stderr (I 1). */
static bool same_file(const struct sbuf_hdr *h, int i, const uint64_t st[2]) {
  return (h->out_dev[i] || h->out_ino[i]) && st[0] == h->out_dev[i] && st[1] == h->out_ino[i];
}

/* Which of deja's stdout (1) and stderr (2) descriptor FD refers to, if either (0), for
 * the write whose record REC is. In a replay, what the record says. */
static unsigned output_to(const struct sbuf_hdr *h, int fd, const struct sbuf_rec *rec) {
  if (replaying())
    return (rec->flags & SBUF_REC_OUT_MASK) >> SBUF_REC_OUT_SHIFT;
  uint64_t st[18]; /* the kernel's struct stat: st_dev, st_ino first */
  static int64_t ignored;
  if (sbuf_entry_call(SYS_fstat, fd, (long)st, 0, 0, 0, 0, &ignored) != 0)
    return 0;
  bool m1 = same_file(h, 0, st), m2 = same_file(h, 1, st);
  if (m1 && m2)
    return fd == 2 ? 2 : 1;
  return m1 ? 1 : m2 ? 2 : 0;
}

/* Copies the first MAX bytes of CNT buffers at IOV to DST, one after the other. */
static void gather(uint8_t *dst, const struct iovec *iov, long cnt, size_t max) {
  for (long i = 0; i < cnt && max; i++) {
    size_t n = iov[i].iov_len < max ? iov[i].iov_len : max;
    preload_copy(dst, iov[i].iov_base, n);
    dst += n;
    max -= n;
  }
}

/* The bytes of a write's input that go into its record REC, OUTMAX at most. In a replay
 * the records after REC are in the buffer already, and REC holds what the recording
 * kept: only the bytes written (a pipe write that a signal cut short keeps fewer than it
 * was asked to send); copying more would overwrite the next record. */
static size_t input_room(const struct sbuf_rec *rec, size_t outmax) {
  if (!replaying())
    return outmax;
  size_t room = rec->size > sizeof *rec ? rec->size - sizeof *rec : 0;
  return room < outmax ? room : outmax;
}

/* The helpers of preload_buffered, the hottest code deja has (a loop of buffered calls
 * runs at its speed): inlined into it, so a call costs what it did as one function. The
 * registers it leaves behind must not depend on whether it is replayed (thread_buffer):
 * after changing this code, record and replay -a programs that run rdtsc right after
 * buffered calls (rr_rdtsc_code, tsc_patch). */
#define HOT static inline __attribute__((always_inline))

/* The record REC at USED (complete now) counts, and the call is over. */
HOT void commit(struct sbuf_hdr *h, uint32_t used, const struct sbuf_rec *rec) {
  barrier();
  h->used = used + rec->size;
  barrier();
  h->in_call = 0;
}

/* A probe said the call could block: the record of SIZE bytes keeps the probes' results,
 * and the call is made traced. */
HOT long probed_traced(long nr, const long a[6], struct sbuf_hdr *h, uint32_t used,
                       struct sbuf_rec *rec, uint32_t size) {
  rec->flags = (uint16_t)(SBUF_REC_PROBE_ONLY | (rec->flags & SBUF_REC_FD_KNOWN));
  rec->ret = 0;
  rec->size = size;
  commit(h, used, rec);
  return preload_traced(nr, a);
}

/* The bytes of output a record of call kind KIND keeps room for. */
HOT size_t record_room(const long a[6], int outarg, size_t outmax, enum out_kind kind) {
  if (kind == OUT_ARGS)
    return SBUF_EXEC_ARGS_BYTES;
  if (kind == OUT_FILE_MAP)
    return SBUF_FILE_MAP_HEAD + (((size_t)a[1] + 4095) & ~(size_t)4095);
  if (outarg < 0 || !a[outarg])
    return 0;
  return outmax;
}

/* Whether an earlier call's probes told what descriptor FD is (FLAG: SBUF_REC_FD_PLAIN,
 * SBUF_REC_FD_SEEKABLE), so this one makes none; the record says so (in a replay it
 * says whether the recording made them). */
HOT bool known_fd(struct sbuf_rec *rec, uint16_t flag, long fd) {
  if (replaying())
    return (rec->flags & flag) != 0;
  bool known = flag == SBUF_REC_FD_PLAIN ? preload_fd_plain(fd) : preload_fd_seekable(fd);
  if (known)
    rec->flags |= flag;
  return known;
}

/* Whether a call on descriptor FD is made traced after all: a write (3 or above) to
 * deja's stdout or stderr (a dup of them, /dev/stdout opened), whose bytes the recorder
 * keeps as output; a listing (DIR) of a /proc directory, from which the recorder takes
 * deja's own descriptors out. The answer is in the record's `aux` (a value no lseek
 * probe leaves there, which overwrites it otherwise), which the replay entry returns. */
HOT bool probe_traced(const struct sbuf_hdr *h, long fd, struct sbuf_rec *rec, bool dir) {
  if (!dir && known_fd(rec, SBUF_REC_FD_PLAIN, fd)) {
    rec->aux = 0;
    return false;
  }
  uint64_t st[18]; /* the kernel's struct stat (st_dev, st_ino first) or statfs (f_type) */
  long s = sbuf_entry_call(dir ? SYS_fstatfs : SYS_fstat, fd, (long)st, 0, 0, 0, 0, &rec->aux);
  if (replaying())
    return s == SBUF_AUX_TRACED;
  bool traced =
      s == 0 && (dir ? st[0] == PROC_SUPER_MAGIC : same_file(h, 0, st) || same_file(h, 1, st));
  rec->aux = traced ? SBUF_AUX_TRACED : 0;
  return traced;
}

/* The probes PROBE asks for a call on descriptor a[0] that might block, their results
 * in REC: whether the call is buffered, and *ARMED when with the context-switch event.
 * WLEN: the bytes a write sends. */
HOT bool probes_pass(const long a[6], struct sbuf_rec *rec, enum probe probe, size_t wlen,
                     bool *armed, bool write) {
  bool known = known_fd(rec, SBUF_REC_FD_SEEKABLE, a[0]);
  long s = known ? 0 : sbuf_entry_call(SYS_lseek, a[0], 0, SEEK_CUR, 0, 0, 0, &rec->aux);
  rec->aux = s;
  bool file = s >= 0;
  /* A write's fstat probe said it is not deja's output (else it was made traced). */
  if (file && !known && !replaying())
    preload_fd_note(a[0], write);
  bool ok = file && probe != PROBE_WRITE_NOFILE; /* a file: never blocks */
  if (probe == PROBE_WRITE_NOFILE)
    probe = file ? PROBE_NONE : PROBE_WRITE;
  /* A read of anything else is made with the context-switch event armed: if it blocks,
   * deja restarts it as a traced call and runs another task meanwhile. */
  if (!ok && probe == PROBE_READ && t_desched >= 0) {
    ok = *armed = true;
    rec->ready = 0;
  }
  if (!ok && (probe == PROBE_READ || (probe == PROBE_WRITE && wlen <= PIPE_BUF) ||
              (probe == PROBE_WRITE && t_desched >= 0))) {
    /* A pipe, socket or terminal: only when it is ready now. The result's low half
     * is the record's `ready` (the replay entry reads 8 bytes there). */
    volatile struct pollfd pfd = {(int)a[0], probe == PROBE_READ ? POLLIN : POLLOUT, 0};
    int ready =
        (int)sbuf_entry_call(SYS_poll, (long)&pfd, 1, 0, 0, 0, 0, (int64_t *)(void *)&rec->ready);
    pfd.revents = 0; /* what the kernel wrote differs in replay: not left on the stack */
    rec->ready = (uint32_t)ready;
    ok = ready == 1;
    /* Ready, but more than PIPE_BUF bytes may still block once part is written. */
    *armed = ok && wlen > PIPE_BUF;
  }
  return ok;
}

/* A private read-only mapping of a small file (OUT_FILE_MAP), its record REC at USED. */
HOT long buffered_file_map(long nr, const long a[6], struct sbuf_hdr *h, uint32_t used,
                           struct sbuf_rec *rec) {
  uint8_t *scratch = (uint8_t *)(rec + 1);
  /* the file's stat: in a replay the recorded one, already in the record */
  preload_copy(scratch, a, SBUF_EXEC_ARGS_BYTES);
  uint8_t *st = scratch + SBUF_EXEC_ARGS_BYTES;
  long s = sbuf_entry_call(SYS_fstat, a[4], (long)st, 0, 0, 0, 0, &rec->aux);
  rec->aux = s;
  if (!file_map_ok(a, st, s) || !read_only_fd(a[4], rec))
    return probed_traced(nr, a, h, used, rec, sizeof *rec + SBUF_FILE_MAP_HEAD);
  long ret = replaying_entry() ? replay_file_map(a, rec, scratch)
                               : sbuf_entry_call(nr, a[0], a[1], a[2], a[3], a[4], a[5], &rec->ret);
  rec->ret = ret;
  size_t n = 0;
  if ((unsigned long)ret <= -4096ul) {
    n = sbuf_file_map_bytes((uint64_t)a[1], file_size(st));
    if (!replaying_entry())
      preload_copy(scratch + SBUF_FILE_MAP_HEAD, (const void *)ret, n);
  }
  rec->size = (uint32_t)(sizeof *rec + SBUF_FILE_MAP_HEAD + ((n + 7) & ~(size_t)7));
  commit(h, used, rec);
  return ret;
}

/* Before the call of record REC: what the record keeps of its input (a write's bytes to
 * descriptor 0-2, an address-space call's arguments). An output goes to the caller's
 * memory, then into the record (output_copy). */
HOT void prepare_record(long nr, const long a[6], const struct sbuf_hdr *h, struct sbuf_rec *rec,
                        int outarg, size_t outmax, enum out_kind kind) {
  uint8_t *scratch = (uint8_t *)(rec + 1);
  if (kind == OUT_INPUT) {
    unsigned to = output_to(h, (int)a[0], rec);
    rec->flags = (uint16_t)(SBUF_REC_OUTPUT | (a[0] << SBUF_REC_FD_SHIFT) |
                            (to << SBUF_REC_OUT_SHIFT) | (rec->flags & SBUF_REC_FD_KNOWN));
    size_t n = input_room(rec, outmax);
    if (nr == SYS_writev)
      gather(scratch, (const struct iovec *)a[1], a[2], n);
    else if (n)
      preload_copy(scratch, (const void *)a[outarg], n);
  } else if (kind == OUT_ARGS) {
    preload_copy(scratch, a, SBUF_EXEC_ARGS_BYTES);
  }
}

/* The N bytes of output at USER (the caller's memory) and in the record at REC: in a
 * recording the kernel wrote them to USER (so a buffer it cannot write fails with EFAULT
 * as natively, and nothing past what it wrote is touched) and the record gets a copy; in
 * a replay the record's recorded bytes go to USER. One asm block that leaves the same
 * registers and flags on both paths (rdi, rsi, rcx and rax zero): the program may
 * compare them at its next stop (a state point, a trapped rdtsc). */
HOT void output_copy(void *user, void *rec, size_t n) {
  __asm__ volatile("movzbl 0x70000000, %%eax\n" /* SBUF_ENTRY_ADDR: 0xeb in a replay */
                   "mov %[user], %%rsi\n"
                   "mov %[rec], %%rdi\n"
                   "cmp $0xeb, %%al\n"
                   "jne 1f\n"
                   "xchg %%rdi, %%rsi\n"
                   "1: mov %[n], %%rcx\n"
                   "shr $3, %%rcx\n"
                   "rep movsq\n"
                   "mov %[n], %%rcx\n"
                   "and $7, %%ecx\n"
                   "rep movsb\n"
                   "xor %%eax, %%eax\n"
                   "xor %%esi, %%esi\n"
                   "xor %%edi, %%edi\n"
                   :
                   : [user] "r"(user), [rec] "r"(rec), [n] "r"(n)
                   : "rax", "rcx", "rsi", "rdi", "cc", "memory");
}
_Static_assert(SBUF_ENTRY_ADDR == 0x70000000, "output_copy reads the entry's first byte");

/* A write to deja's stdout or stderr while deja records on several CPUs: made traced, so
 * that it takes its place among other processes' output in the trace. Its record (REC at
 * USED, the stream in its flags) keeps no bytes: the traced call's event has them. */
HOT long output_traced(long nr, const long a[6], struct sbuf_hdr *h, uint32_t used,
                       struct sbuf_rec *rec) {
  rec->flags |= SBUF_REC_PROBE_ONLY;
  rec->ret = 0;
  rec->size = sizeof *rec;
  commit(h, used, rec);
  return preload_traced_clean(nr, a);
}

/* The bytes of output the record of a call of kind KIND that returned RET keeps. */
HOT size_t kept_bytes(enum out_kind kind, long ret, size_t outmax) {
  size_t n = 0;
  if ((kind == OUT_RESULT || kind == OUT_INPUT) && ret > 0)
    n = (size_t)ret;
  else if ((kind == OUT_FIXED && ret == 0) || kind == OUT_ARGS)
    n = outmax;
  return n > outmax ? outmax : n;
}

/* The call itself, its record REC at USED; ARMED: with the context-switch event. */
HOT long buffered_call(long nr, const long a[6], struct sbuf_hdr *h, uint32_t used,
                       struct sbuf_rec *rec, int outarg, size_t outmax, enum out_kind kind,
                       bool armed) {
  long b[6];
  preload_copy(b, a, sizeof b);
  prepare_record(nr, a, h, rec, outarg, outmax, kind);
  if (kind == OUT_INPUT && (rec->flags & SBUF_REC_OUT_MASK) && out_traced())
    return output_traced(nr, a, h, used, rec);
  if (armed)
    desched_arm(true);
  long ret = kind == OUT_ARGS && replaying_entry()
                 ? replay_exec(nr, b, rec)
                 : sbuf_entry_call(nr, b[0], b[1], b[2], b[3], b[4], b[5], &rec->ret);
  if (armed)
    desched_arm(false);
  rec->ret = ret;
  size_t n = kept_bytes(kind, ret, outmax);
  rec->size = (uint32_t)(sizeof *rec + ((n + 7) & ~(size_t)7));
  if (n && kind != OUT_INPUT && kind != OUT_ARGS)
    output_copy((void *)a[outarg], rec + 1, n);
  commit(h, used, rec);
  return ret;
}

long preload_buffered(long nr, const long a[6], int outarg, size_t outmax, enum out_kind kind,
                      enum probe probe) {
  struct sbuf_hdr *h = g_off ? NULL : thread_buffer();
  /* Without the event deja would not learn that the call blocked: traced. */
  if (!h || h->in_call || h->traced || (probe == PROBE_BLOCKS && t_desched < 0))
    return preload_traced(nr, a);
  outmax = record_room(a, outarg, outmax, kind);
  h->in_call = 1;
  barrier(); /* `used` is read only once deja can no longer reset it */
  uint32_t used = h->used;
  size_t need = sizeof(struct sbuf_rec) + ((outmax + 7) & ~(size_t)7);
  if (need > SBUF_CAPACITY - used) {
    barrier();
    h->in_call = 0;
    return preload_traced(nr, a); /* deja flushes the buffer at this stop */
  }
  struct sbuf_rec *rec = (struct sbuf_rec *)((char *)h + SBUF_DATA_OFF + used);
  rec->nr = (uint16_t)nr;
  /* In a replay the refilled record says which stream a write went to (output_to) and
   * which probes the recording made (known_fd). */
  rec->flags = (uint16_t)(replaying() ? rec->flags & (SBUF_REC_OUT_MASK | SBUF_REC_FD_KNOWN) : 0);
  rec->hash = args_hash(nr, a);
  /* A call that may block (a futex wait): if it does, deja restarts it as a traced call
   * and runs another task meanwhile. */
  bool armed = probe == PROBE_BLOCKS;
  /* The bytes a write sends (a writev's: gathered into the record, OUTMAX of them). */
  size_t wlen = kind == OUT_INPUT ? outmax : (size_t)a[2];
  if ((kind == OUT_WRITE || probe == PROBE_PROC_DIR) &&
      probe_traced(h, a[0], rec, probe == PROBE_PROC_DIR))
    return probed_traced(nr, a, h, used, rec, sizeof *rec);
  if (probe != PROBE_NONE && probe != PROBE_PROC_DIR && !armed &&
      !probes_pass(a, rec, probe, wlen, &armed, kind == OUT_WRITE))
    return probed_traced(nr, a, h, used, rec, sizeof *rec);
  if (kind == OUT_FILE_MAP)
    return buffered_file_map(nr, a, h, used, rec);
  return buffered_call(nr, a, h, used, rec, outarg, outmax, kind, armed);
}

bool preload_start_buffers(void) {
  g_on = 1;
  if (!thread_buffer()) {
    g_on = 0;
    return false;
  }
  return true;
}
