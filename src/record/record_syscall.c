/* Recording system calls: entry checks, the memory the kernel wrote, output to the
 * terminal, preserved files, process creation and exec. */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/kernel_abi.h"
#include "common/log.h"
#include "preload/syscallbuf_abi.h"
#include "record/recorder_internal.h"
#include "syscalls/syscall_compat32.h"
#include "syscalls/syscall_table.h"
#include "task/cpuid_patch.h"
#include "task/exec_image.h"
#include "task/proc_maps.h"
#include "trace/trace_files.h"

#define MAX_REGIONS 256

static int mem_reader(void *ctx, uint64_t addr, void *buf, size_t len) {
  return task_read_mem(ctx, addr, buf, len);
}

/* Which of deja's stdout/stderr the program's fd refers to, if either. */
static uint32_t output_stream(struct recorder *r, struct rtask *x, int fd) {
  char path[64];
  struct stat st;
  snprintf(path, sizeof path, "/proc/%d/fd/%d", x->t.tid, fd);
  if (stat(path, &st) < 0)
    return OUT_TO_NONE;
  bool m[3] = {false, false, false};
  for (int i = 1; i <= 2; i++)
    m[i] = r->out_ok[i] && st.st_dev == r->out_st[i].st_dev && st.st_ino == r->out_st[i].st_ino;
  if (m[1] && m[2])
    return fd == 2 ? OUT_TO_STDERR : OUT_TO_STDOUT;
  return m[1] ? OUT_TO_STDOUT : m[2] ? OUT_TO_STDERR : OUT_TO_NONE;
}

/* Refused calls (rseq: glibc then does without restartable sequences; others as
 * record_refusal says): the kernel skips them and the exit sets the errno. */
static int refuse_call(struct recorder *r, struct rtask *x) {
  x->refused = record_refusal(r, x, (long)x->entry.orig_rax);
  if (!x->refused)
    return 0;
  x->t.regs.orig_rax = (uint64_t)-1;
  if (task_set_regs(&x->t, &x->t.regs) < 0)
    return recorder_abort(r, "cannot refuse a system call");
  return 0;
}

/* exit and exit_group: no exit stop follows, so the event is written at the entry. */
static int record_exit_now(struct recorder *r, struct rtask *x) {
  x->in_syscall = false;
  struct event ev;
  event_init(&ev);
  ev.kind = EV_SYSCALL;
  ev.tid = x->t.tid;
  ev.regs = *rtask_entry_regs(x); /* (an int $0x80 exit: the 32-bit registers) */
  ev.flags |= x->compat32 ? EVF_COMPAT32 : 0;
  return recorder_emit(r, x, &ev) < 0 ? RECORD_DEJA_FAILED : 0;
}

/* What a hook at a call's exit adds to its event. */
struct exit_info {
  struct event *ev;
  int64_t result;
  char file[512]; /* the preserved file an mmap maps */
  char why[512];  /* a failure's message */
};

int record_gather_written(struct recorder *r, struct rtask *x, bool iov, int64_t result) {
  const struct user_regs_struct *e = &x->entry;
  if (!iov)
    return task_read_mem(&x->t, e->rsi, tbuf_grow(&r->data, (size_t)result), (size_t)result);
  uint64_t left = (uint64_t)result;
  for (uint64_t i = 0; i < e->rdx && i < 1024 && left; i++) {
    struct iovec v;
    if (task_read_mem(&x->t, e->rsi + i * sizeof v, &v, sizeof v) < 0)
      return -1;
    size_t n = v.iov_len < left ? v.iov_len : left;
    if (task_read_mem(&x->t, (uint64_t)v.iov_base, tbuf_grow(&r->data, n), n) < 0)
      return -1;
    left -= n;
  }
  return 0;
}

/* The bytes a write-family call sent to deja's stdout/stderr, read back from the
 * program: one buffer (write, pwrite64) or iovecs (writev, pwritev, pwritev2). */
static int gather_output(struct recorder *r, struct rtask *x, struct exit_info *in, bool iov) {
  if (in->result <= 0)
    return 0;
  in->ev->out_to = output_stream(r, x, (int)x->entry.rdi);
  if (in->ev->out_to && record_gather_written(r, x, iov, in->result) < 0) {
    in->ev->out_to = OUT_TO_NONE;
    tbuf_reset(&r->data);
  }
  return 0;
}

/* The file position of the program's FD after the call, -1 when unknown. */
static int64_t fd_position(struct rtask *x, int fd) {
  char path[64], line[128];
  snprintf(path, sizeof path, "/proc/%d/fdinfo/%d", x->t.tid, fd);
  FILE *f = fopen(path, "re");
  long long pos = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "pos: %lld", &pos) == 1)
      break;
  if (f)
    fclose(f);
  return pos;
}

/* Reads the RESULT bytes the call moved through FD (a regular file, at the offset word
 * at OFF_PTR or its file position) back from that file. 0, or -1 when it cannot. */
static int read_moved(struct recorder *r, struct rtask *x, int fd, uint64_t off_ptr,
                      int64_t result) {
  char path[64];
  struct stat st;
  snprintf(path, sizeof path, "/proc/%d/fd/%d", x->t.tid, fd);
  if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
    return -1;
  int64_t end = -1;
  if (off_ptr && task_read_mem(&x->t, off_ptr, &end, sizeof end) < 0)
    return -1;
  if (!off_ptr)
    end = fd_position(x, fd);
  int f = end >= result ? open(path, O_RDONLY | O_CLOEXEC) : -1;
  if (f < 0)
    return -1;
  size_t before = r->data.len;
  ssize_t n = pread(f, tbuf_grow(&r->data, (size_t)result), (size_t)result, end - result);
  close(f);
  if (n != result) {
    r->data.len = before;
    return -1;
  }
  return 0;
}

/* sendfile, splice and copy_file_range to deja's stdout/stderr: the bytes are read back
 * from the output when it is a file, else from the input file they came from. */
static int output_copy(struct recorder *r, struct rtask *x, struct exit_info *in) {
  const struct user_regs_struct *e = &x->entry;
  int in_fd, out_fd;
  uint64_t in_off, out_off = 0;
  if (e->orig_rax == SYS_sendfile) { /* out_fd, in_fd, offset */
    out_fd = (int)e->rdi;
    in_fd = (int)e->rsi;
    in_off = e->rdx;
  } else { /* fd_in, off_in, fd_out, off_out, ... */
    in_fd = (int)e->rdi;
    in_off = e->rsi;
    out_fd = (int)e->rdx;
    out_off = e->r10;
  }
  if (in->result <= 0 || !(in->ev->out_to = output_stream(r, x, out_fd)))
    return 0;
  if (read_moved(r, x, out_fd, out_off, in->result) < 0 &&
      read_moved(r, x, in_fd, in_off, in->result) < 0)
    in->ev->out_to = OUT_TO_NONE; /* from a pipe to a terminal: the bytes are gone */
  return 0;
}

static int output_write(struct recorder *r, struct rtask *x, struct exit_info *in) {
  return gather_output(r, x, in, false);
}

static int output_writev(struct recorder *r, struct rtask *x, struct exit_info *in) {
  return gather_output(r, x, in, true);
}

/* Address-space changes replay makes by itself: the pages' next content must be saved
 * at the next state point whatever its hash. */
static int forget_unmapped(struct recorder *r, struct rtask *x, struct exit_info *in) {
  (void)r;
  if (in->result >= 0)
    page_hashes_forget(x->proc->pages, x->entry.rdi, x->entry.rsi);
  if (in->result >= 0 && x->entry.orig_rax == SYS_munmap)
    record_anon_files_unmapped(x->proc, x->entry.rdi, x->entry.rsi);
  return 0;
}

static int forget_remapped(struct recorder *r, struct rtask *x, struct exit_info *in) {
  if (in->result >= 0) {
    page_hashes_forget(x->proc->pages, (uint64_t)in->result, x->entry.rdx);
    record_anon_files_moved(x->proc, x->entry.rdi, x->entry.rsi, (uint64_t)in->result,
                            x->entry.rdx);
  }
  forget_unmapped(r, x, in);
  return record_mremap_file(r, x, in->ev, in->file, sizeof in->file, in->why, sizeof in->why);
}

static int forget_heap(struct recorder *r, struct rtask *x, struct exit_info *in) {
  (void)r;
  if (in->result >= 0)
    page_hashes_clear(x->proc->pages);
  return 0;
}

/* A perf event's ring buffer is written by the kernel whenever it likes: not recorded.
 * The mmap fails as when perf_event_mlock_kb is used up (EPERM), and programs read the
 * counter with read() instead. */
static int refuse_perf_mmap(struct recorder *r, struct rtask *x) {
  const struct user_regs_struct *e = &x->entry;
  if (((int)e->r10 & MAP_ANONYMOUS) || (int)e->r8 < 0)
    return 0;
  char src[64], target[64];
  snprintf(src, sizeof src, "/proc/%d/fd/%d", x->t.tid, (int)e->r8);
  ssize_t l = readlink(src, target, sizeof target - 1);
  target[l > 0 ? l : 0] = 0;
  if (strcmp(target, "anon_inode:[perf_event]") != 0)
    return 0;
  x->refused = EPERM;
  x->t.regs.orig_rax = (uint64_t)-1;
  return task_set_regs(&x->t, &x->t.regs) < 0 ? recorder_abort(r, "cannot refuse an mmap") : 0;
}

/* A file mapping: the file is preserved in the trace (or /dev/zero noted). */
static int preserve_mapped(struct recorder *r, struct rtask *x, struct exit_info *in) {
  if (in->result >= 0)
    page_hashes_forget(x->proc->pages, (uint64_t)in->result, x->entry.rsi);
  return record_mmap_file(r, x, in->ev, in->file, sizeof in->file, in->why, sizeof in->why);
}

/* The table's hooks the recorder needs (syscalls/syscall_table.h): at the call's entry,
 * and at its exit before the written memory is read. */
/* An ioctl whose request deja does not know: what it wrote is not recorded, so say so
 * (once per request) rather than leave a replay to diverge later without a word. */
static int warn_unknown_ioctl(struct recorder *r, struct rtask *x, struct exit_info *in) {
  uint32_t request = (uint32_t)x->entry.rsi;
  if (in->result < 0 || syscall_ioctl_known(request))
    return 0;
  for (int i = 0; i < r->nwarned_ioctls; i++)
    if (r->warned_ioctls[i] == request)
      return 0;
  if (r->nwarned_ioctls < (int)(sizeof r->warned_ioctls / sizeof r->warned_ioctls[0]))
    r->warned_ioctls[r->nwarned_ioctls++] = request;
  char link[64], target[256] = "?";
  snprintf(link, sizeof link, "/proc/%d/fd/%d", x->t.tid, (int)x->entry.rdi);
  ssize_t n = readlink(link, target, sizeof target - 1);
  target[n > 0 ? n : 1] = '\0';
  deja_msg("task %d: ioctl request 0x%x on `%s' is unknown to deja: what it wrote (if "
           "anything) is not recorded, and a replay that reads it may differ",
           x->t.tid, request, target);
  return 0;
}

/* A listing of /proc/PID/fd: without deja's own descriptors. */
static int hide_fds(struct recorder *r, struct rtask *x, struct exit_info *in) {
  in->result = record_hide_deja_fds(r, x, in->result);
  in->ev->result = in->result;
  return 0;
}

static const struct {
  int (*entry)(struct recorder *r, struct rtask *x);
  int (*exit)(struct recorder *r, struct rtask *x, struct exit_info *in);
} record_hooks[SCH_COUNT] = {
    [SCH_rseq] = {.entry = refuse_call},
    [SCH_exit] = {.entry = record_exit_now},
    [SCH_refuse] = {.entry = refuse_call},
    [SCH_copy_out] = {.exit = output_copy},
    [SCH_write] = {.exit = output_write},
    [SCH_writev] = {.exit = output_writev},
    [SCH_unmap] = {.exit = forget_unmapped},
    [SCH_mremap] = {.exit = forget_remapped},
    [SCH_brk] = {.exit = forget_heap},
    [SCH_mmap] = {.entry = refuse_perf_mmap, .exit = preserve_mapped},
    [SCH_ioctl] = {.exit = warn_unknown_ioctl},
    [SCH_dents] = {.exit = hide_fds},
};

/* Whether X's call is a 32-bit one (int $0x80 from 64-bit code). */
static bool is_compat32(struct rtask *x) {
  struct __ptrace_syscall_info info;
  return ptrace(PTRACE_GET_SYSCALL_INFO, x->t.tid, (void *)sizeof info, &info) > 0 &&
         info.arch != AUDIT_ARCH_X86_64;
}

/* A 32-bit call without a 64-bit twin deja records it as stops the recording. */
static int compat32_refused(struct recorder *r, struct rtask *x) {
  char why[512];
  snprintf(why, sizeof why,
           "task %d made the 32-bit system call number %llu (int $0x80) at 0x%llx, event %" PRIu64
           ", which deja cannot record; the 32-bit calls it records are %s",
           x->t.tid, x->t.regs.orig_rax, x->t.regs.rip - 2, r->events + 1, syscall_compat32_list());
  return recorder_abort(r, why);
}

int record_syscall_entry(struct recorder *r, struct rtask *x) {
  bool fresh = x->entry_regs_read;
  x->entry_regs_read = false;
  if (!fresh && task_get_regs(&x->t) < 0)
    return errno == ESRCH ? 1 /* killed meanwhile: its exit follows */
                          : recorder_abort(r, "cannot read registers at a system call");
  record_resend_held(x);
  /* A 32-bit call is recorded as its 64-bit twin: x->entry is the twin's view, entry32
   * what the trace keeps (replay emulates the call). */
  x->compat32 = is_compat32(x);
  x->entry32 = x->t.regs;
  x->entry = x->t.regs;
  if (x->compat32 && !syscall_compat32_view(&x->t.regs, &x->entry))
    return compat32_refused(r, x);
  long nr = (long)x->entry.orig_rax;
  const struct syscall_desc *d = syscall_table_lookup(nr);
  x->in_syscall = true;
  x->refused = 0;
  x->emulated = x->not_run = x->wait_tracer = x->wait_again = false;
  x->sem_op = 0;
  free(x->effect.big);
  x->effect = (struct emu_effect){0};
  x->entry_emitted = x->clone_done = false;
  x->entry_seq = ++r->seq;
  char why[256];
  if (record_in_vsyscall_page(&x->t.regs))
    return record_vsyscall_entry(r, x);
  if (nr == SBUF_SEM_NR)
    return record_sem_entry(r, x);
  if (!d) /* syscall(-1), numbers past the table: the kernel's ENOSYS */
    return refuse_call(r, x);
  if (d->replay == SC_UNSUPPORTED) {
    snprintf(why, sizeof why,
             "unsupported system call %s (number %ld) in task %d at event %" PRIu64
             "; please report it with the program that made it",
             syscall_name(nr), nr, x->t.tid, r->events + 1);
    return recorder_abort(r, why);
  }
  if (nr == SYS_ptrace)
    return record_ptrace_call(r, x);
  if (nr == SYS_wait4 || nr == SYS_waitid) {
    int rc = record_ptrace_wait_entry(r, x);
    if (rc || x->emulated)
      return rc;
  }
  record_rewrite_entry(r, x); /* record_cpus.c */
  if (nr == SYS_clone3)
    return refuse_call(r, x); /* (record_refuse.c) */
  if (d->hook && record_hooks[d->hook].entry)
    return record_hooks[d->hook].entry(r, x);
  return 0;
}

/* Memory a call wrote, when larger than this in all, is streamed from the program into
 * the trace instead of being gathered first: deja's memory stays bounded. */
#define STREAM_OVER (1u << 20)

struct written {
  struct mem_region reg[MAX_REGIONS];
  int n;
  bool stream; /* too large to gather: read while writing the event */
};

/* True when [ADDR, ADDR+LEN) lies in mappings of task TID (so /proc/PID/mem reads it). */
static bool range_mapped(pid_t tid, uint64_t addr, uint64_t len) {
  struct proc_mapping m;
  for (uint64_t at = addr; at < addr + len; at = m.end)
    if (proc_mapping_find(tid, at, &m) < 0 || m.end <= at)
      return false;
  return true;
}

/* Finds the regions the kernel wrote. Returns 0, or -1 with a message in WHY. */
static int find_written(struct recorder *r, struct rtask *x, const struct syscall_desc *d,
                        int64_t result, struct written *w, char *why, size_t whylen) {
  uint64_t args[6];
  for (int i = 0; i < 6; i++)
    args[i] = regs_arg(&x->entry, i);
  int n = syscall_written_regions(d, args, result, mem_reader, &x->t, w->reg, MAX_REGIONS);
  if (n >= 0 && n < MAX_REGIONS && d && d->hook == SCH_shmat && result >= 0)
    n += record_shmat_contents(x, result, &w->reg[n]);
  if (n < 0) {
    snprintf(why, whylen, "system call %s in task %d at event %" PRIu64 ": %s", d->name, x->t.tid,
             r->events + 1,
             n == -1 ? "it wrote more memory regions than deja can record"
                     : "cannot read the program's memory to find what the call wrote");
    return -1;
  }
  /* Pages of files replay maps as anonymous memory, refilled from the file by madvise. */
  if (n >= 0 && result == 0)
    n += record_anon_files_discarded(x, &w->reg[n], MAX_REGIONS - n);
  uint64_t total = 0;
  for (int i = 0; i < n; i++)
    total += w->reg[i].len;
  w->n = n;
  w->stream = total > STREAM_OVER;
  if (w->stream) { /* keep what the kernel could have written (as capture_regions does) */
    int kept = 0;
    for (int i = 0; i < n; i++)
      if (range_mapped(x->t.tid, w->reg[i].addr, w->reg[i].len))
        w->reg[kept++] = w->reg[i];
    w->n = kept;
  }
  for (int i = 0; i < w->n; i++)
    page_hashes_forget(x->proc->pages, w->reg[i].addr, w->reg[i].len);
  return 0;
}

/* Reads the regions the kernel wrote into r->data and adds them to EV (unless they are
 * to be streamed). */
static void capture_regions(struct recorder *r, struct rtask *x, struct written *w,
                            struct event *ev) {
  if (w->stream)
    return;
  size_t offs[MAX_REGIONS];
  int kept = 0;
  for (int i = 0; i < w->n; i++) {
    /* A region the kernel could not have written (a bad pointer in a failed call) is
     * unreadable here too: nothing to record. */
    size_t before = r->data.len;
    struct mem_region g = w->reg[i];
    if (task_read_mem(&x->t, g.addr, tbuf_grow(&r->data, g.len), g.len) < 0) {
      r->data.len = before;
      continue;
    }
    offs[kept] = before;
    w->reg[kept++] = g;
  }
  w->n = kept;
  /* Pointers into r->data are taken only now: tbuf_grow may have moved it. */
  for (int i = 0; i < kept; i++)
    event_add_mem(ev, w->reg[i].addr, r->data.data + offs[i], (uint32_t)w->reg[i].len);
}

/* Writes a syscall event whose memory regions W are read from the program piece by piece
 * straight into the trace. Returns 0, or -1 with a message in WHY. */
static int emit_streamed(struct recorder *r, struct rtask *x, const struct event *ev,
                         const struct written *w, char *why, size_t whylen) {
  if (recorder_emit_enters(r, x) < 0)
    return snprintf(why, whylen, "cannot write the trace"), -1;
  static uint8_t piece[1 << 20];
  struct trace_writer *tw = r->w;
  struct event stamped = *ev;
  stamped.time_ns = event_time_ns();
  ev = &stamped;
  event_encode_syscall_head(ev, (uint32_t)w->n, &r->rec);
  int rc = trace_writer_begin(tw) < 0 || trace_writer_put(tw, r->rec.data, r->rec.len) < 0 ? -1 : 0;
  for (int i = 0; i < w->n && rc == 0; i++) {
    event_encode_mem_header(&r->rec, w->reg[i].addr, (uint32_t)w->reg[i].len);
    rc = trace_writer_put(tw, r->rec.data, r->rec.len);
    for (uint64_t at = 0; at < w->reg[i].len && rc == 0; at += sizeof piece) {
      size_t n = w->reg[i].len - at < sizeof piece ? (size_t)(w->reg[i].len - at) : sizeof piece;
      if (task_read_mem(&x->t, w->reg[i].addr + at, piece, n) < 0) {
        trace_writer_cancel(tw);
        return snprintf(why, whylen,
                        "task %d at event %" PRIu64 ": cannot read the %" PRIu64
                        " bytes a system call wrote at 0x%" PRIx64 ": %s",
                        x->t.tid, r->events + 1, w->reg[i].len, w->reg[i].addr, strerror(errno)),
               -1;
      }
      rc = trace_writer_put(tw, piece, n);
    }
  }
  if (rc == 0) {
    event_encode_syscall_tail(ev, &r->rec);
    rc = trace_writer_put(tw, r->rec.data, r->rec.len) < 0 || trace_writer_end(tw) < 0 ? -1 : 0;
  }
  if (rc < 0)
    return snprintf(why, whylen, "cannot write the trace: %s", trace_writer_error(tw)), -1;
  return recorder_event_written(r) < 0 ? (snprintf(why, whylen, "cannot write the trace"), -1) : 0;
}

int record_syscall_exit(struct recorder *r, struct rtask *x) {
  if (!x->in_syscall)
    return 0;                   /* exit of a call made before recording started */
  if (task_get_regs(&x->t) < 0) /* killed meanwhile: its exit follows, as one in a call */
    return errno == ESRCH ? 0 : recorder_abort(r, "cannot read registers after a system call");
  if (x->clone_done) {
    x->in_syscall = false;
    return 0; /* recorded at its clone event */
  }
  record_rewrite_exit(r, x);
  const struct user_regs_struct *e = &x->entry;
  long nr = (long)e->orig_rax;
  int64_t result = (int64_t)x->t.regs.rax;
  if (x->sem_op)
    x->emu_result = record_sem_exit(x);
  if (x->refused || x->emulated) {
    result = x->emulated ? x->emu_result : -x->refused;
    x->t.regs.rax = (uint64_t)result;
    x->t.regs.orig_rax =
        rtask_entry_regs(x)->orig_rax; /* as replay has it, should a signal come now */
    task_set_regs(&x->t, &x->t.regs);
  }
  /* A call its tracer emulated (PTRACE_SYSEMU) wrote nothing and needs no hook. */
  const struct syscall_desc *d = x->not_run ? NULL : syscall_table_lookup(nr);
  struct event ev;
  event_init(&ev);
  ev.kind = EV_SYSCALL;
  ev.tid = x->t.tid;
  ev.regs = *rtask_entry_regs(x);
  ev.flags |= (x->compat32 ? EVF_COMPAT32 : 0) | (x->not_run ? EVF_NOT_RUN : 0);
  ev.result = result;
  tbuf_reset(&r->data);
  struct exit_info in = {.ev = &ev, .result = result};
  if (d && d->hook && record_hooks[d->hook].exit && record_hooks[d->hook].exit(r, x, &in) < 0) {
    event_free(&ev);
    return recorder_abort(r, in.why);
  }
  result = in.result;
  if (!ev.out_to && !x->not_run)
    record_file_change(r, x, &ev, in.file, sizeof in.file);
  uint32_t out_len = (uint32_t)r->data.len; /* output or file data come first in r->data */
  struct written w;
  if (find_written(r, x, d, result, &w, in.why, sizeof in.why) < 0) {
    event_free(&ev);
    return recorder_abort(r, in.why);
  }
  capture_regions(r, x, &w, &ev);
  if (x->sem_op)
    record_sem_effect(x, &ev);
  if (d && (d->nr == SYS_pwrite64 || d->nr == SYS_write))
    record_ptrace_mem_write(r, x, result);
  record_ptrace_effects(x, &ev);
  record_seccomp_exit(x, d, &ev);
  ev.file = in.file;
  if (ev.out_to) {
    ev.out_data = r->data.data;
    ev.out_len = out_len;
  } else if (ev.flags & EVF_FILE_CHANGE) {
    ev.fdata = r->data.data;
    ev.fdata_len = out_len;
  }
  /* still in_syscall: its entry may need a marker */
  int rc =
      w.stream ? emit_streamed(r, x, &ev, &w, in.why, sizeof in.why) : recorder_emit(r, x, &ev);
  x->in_syscall = false;
  event_free(&ev);
  if (rc < 0 && w.stream)
    return recorder_abort(r, in.why);
  /* replay patches at the end of the same event */
  int sites = rc >= 0 && r->tsc_patch ? tsc_patch_after_call(&x->t, &x->proc->tsc, e, result) : 0;
  if (sites < 0)
    return recorder_abort(r, "cannot patch rdtsc in newly executable code");
  r->tsc_sites += (uint64_t)sites;
  return rc < 0 ? RECORD_DEJA_FAILED : 0;
}

/* At the parent's PTRACE_EVENT_CLONE/FORK/VFORK stop: the call is recorded now (its
 * result is the new task's tid), so the child's events can follow it. */
int record_clone(struct recorder *r, struct rtask *x) {
  unsigned long child = 0;
  if (ptrace(PTRACE_GETEVENTMSG, x->t.tid, 0, &child) < 0)
    return recorder_abort(r, "cannot read the new task's id");
  struct rtask *c = NULL;
  for (int i = 0; i < r->ntasks; i++)
    if (r->tasks[i]->t.tid == (pid_t)child)
      c = r->tasks[i];
  if (!c)
    c = recorder_add_task(r, (pid_t)child, NULL);
  if (!c)
    return recorder_abort(r, "cannot follow a new task");
  struct event ev;
  event_init(&ev);
  ev.kind = EV_SYSCALL;
  ev.tid = x->t.tid;
  ev.regs = x->entry;
  ev.result = (int64_t)child;
  if (c->proc == x->proc)
    ev.flags |= EVF_NEW_THREAD;
  else {
    c->proc->seccomp = x->proc->seccomp; /* filters are inherited */
    record_anon_files_copy(c->proc, x->proc);
    tsc_table_copy(&c->proc->tsc, &x->proc->tsc);
    record_shared_forked(c->proc, x);
  }
  pid_t seen = record_pid_seen_by(x->t.tid, (pid_t)child);
  if (seen > 0 && seen != (pid_t)child && seen < (1 << (32 - EVF_NS_PID_SHIFT)))
    ev.flags |= EVF_NS_PID | (uint32_t)seen << EVF_NS_PID_SHIFT;
  tbuf_reset(&r->data);
  char why[512];
  struct written w;
  if (find_written(r, x, syscall_table_lookup((long)x->entry.orig_rax), (int64_t)child, &w, why,
                   sizeof why) < 0) {
    event_free(&ev);
    return recorder_abort(r, why);
  }
  w.stream = false; /* a few small regions */
  capture_regions(r, x, &w, &ev);
  if (x->sem_op)
    record_sem_effect(x, &ev);
  int rc = recorder_emit(r, x, &ev);
  event_free(&ev);
  if (rc == 0 && c->proc != x->proc)
    rc = record_output_forked(r, x, c);
  x->clone_done = true;
  c->announced = true;
  if (c->first_stop_seen && c->state == T_NEW)
    c->state = T_READY;
  return rc < 0 ? RECORD_DEJA_FAILED : 0;
}

/* The cpuid stub page and the patched sites, as memory of the exec event. */
static void record_cpuid_patch_mem(struct event *ev, const struct cpuid_patch *p) {
  ev->cpuid_stub = p->stub;
  ev->cpuid_stub_len = p->stub_len;
  if (!p->stub)
    return;
  event_add_mem(ev, p->stub, p->page, p->stub_len);
  for (int i = 0; i < p->n; i++)
    event_add_mem(ev, p->site[i].addr, p->site[i].bytes, p->site[i].len);
}

int record_exec(struct recorder *r, struct rtask *x) {
  struct stop st;
  if (task_resume(&x->t, PTRACE_SYSCALL, 0) < 0 || task_wait(&x->t, &st) < 0 ||
      st.kind != STOP_SYSCALL_EXIT)
    return recorder_abort(r, "the program did not return from execve as expected");
  char why[512], file[512], exe[64], orig[512];
  if (task_open_mem(&x->t) < 0 || task_get_regs(&x->t) < 0)
    return recorder_abort(r, "cannot access the new program image after execve");
  page_hashes_clear(x->proc->pages);
  x->proc->nanon = 0; /* a new image */
  snprintf(exe, sizeof exe, "/proc/%d/exe", x->t.tid);
  ssize_t l = readlink(exe, orig, sizeof orig - 1);
  orig[l > 0 ? l : 0] = 0;
  if (trace_files_preserve(r->files, exe, orig, 0, 0, file, sizeof file, why, sizeof why) < 0)
    return recorder_abort(r, why);
  struct event ev;
  event_init(&ev);
  /* The interpreter (ld.so) is mapped by the kernel from the system: preserved too. */
  char interp[512] = "", interp_file[512] = "";
  uint64_t maps[16][4];
  int nmaps = proc_file_mappings(x->t.tid, orig, interp, sizeof interp, maps, 16);
  if (nmaps > 0 && trace_files_preserve(r->files, interp, interp, 0, 0, interp_file,
                                        sizeof interp_file, why, sizeof why) < 0)
    return recorder_abort(r, why);
  ev.interp = interp_file;
  ev.interp_maps = (const uint8_t *)maps;
  ev.interp_count = nmaps > 0 ? (uint32_t)nmaps : 0;
  if (x->t.regs.cs == 0x23) { /* the 32-bit user code segment */
    snprintf(why, sizeof why,
             "task %d executed %.400s, a 32-bit program; deja records x86-64 programs only",
             x->t.tid, orig);
    return recorder_abort(r, why);
  }
  struct rlimit stack_lim = {RLIM_INFINITY, RLIM_INFINITY};
  prlimit(x->t.tid, RLIMIT_STACK, NULL, &stack_lim);
  ev.stack_rlim_cur = stack_lim.rlim_cur;
  ev.stack_rlim_max = stack_lim.rlim_max;
  ev.brk_start = proc_start_brk(x->t.tid); /* random with ASLR on: replay follows it */
  ev.has_brk = ev.brk_start != 0;
  ev.refusals = (const uint8_t *)r->refusals.r; /* (nr, errno) pairs of u32 */
  ev.refusals_len = r->refusals.n * (uint32_t)sizeof r->refusals.r[0];
  char *strings;
  if (exec_image_prepare(&x->t, &strings, &ev.strings_len, &ev.argc, &ev.envc, why, sizeof why) < 0)
    return recorder_abort(r, why);
  int cf = exec_image_cpuid_native() ? 1 : exec_image_enable_cpuid_faulting(&x->t);
  if (cf < 0) {
    free(strings);
    return recorder_abort(r, "cannot turn on cpuid faulting in the new program image");
  }
  if (cf > 0 && !r->warned_cpuid) {
    r->warned_cpuid = true;
    deja_msg(
        "warning: this CPU cannot trap cpuid; the trace will only replay on a CPU like this one");
  }
  struct cpuid_patch cp = {0};
  if (cf == 0 && nmaps > 0 && ev.has_brk && cpuid_patch_wanted() &&
      cpuid_patch_interp(&x->t, (const uint64_t(*)[4])maps, nmaps, interp_file, &cp) < 0) {
    free(strings);
    cpuid_patch_free(&cp);
    return recorder_abort(r, "cannot patch cpuid in the new program image");
  }
  task_get_regs(&x->t);
  uint64_t top = proc_mapping_end(x->t.tid, x->t.regs.rsp);
  tbuf_reset(&r->data);
  size_t len = top - x->t.regs.rsp;
  if (!top || task_read_mem(&x->t, x->t.regs.rsp, tbuf_grow(&r->data, len), len) < 0) {
    free(strings);
    return recorder_abort(r, "cannot read the initial stack of the new program image");
  }
  size_t stack_len = r->data.len;
  for (int i = 0; i < nmaps; i++) {
    if (!(maps[i][3] & PROT_WRITE))
      continue;
    size_t l = maps[i][1] - maps[i][0];
    if (task_read_mem(&x->t, maps[i][0], tbuf_grow(&r->data, l), l) < 0) {
      free(strings);
      return recorder_abort(r, "cannot read the program interpreter's data after execve");
    }
  }
  for (int i = 0, off = 0; i < nmaps; i++) {
    if (!(maps[i][3] & PROT_WRITE))
      continue;
    size_t l = maps[i][1] - maps[i][0];
    event_add_mem(&ev, maps[i][0], r->data.data + stack_len + off, (uint32_t)l);
    off += (int)l;
  }
  record_cpuid_patch_mem(&ev, &cp);
  ev.kind = EV_EXEC;
  ev.tid = x->exec_former_tid ? x->exec_former_tid : x->t.tid; /* replay finds it by that */
  x->exec_former_tid = 0;
  ev.regs = x->t.regs;
  ev.file = file;
  ev.stack_addr = x->t.regs.rsp;
  ev.stack = r->data.data;
  ev.stack_len = (uint32_t)len;
  ev.strings = strings;
  int rc = recorder_emit(r, x, &ev);
  x->in_syscall = false;
  recorder_vfork_released(r, x->t.tid);
  event_free(&ev);
  cpuid_patch_free(&cp);
  free(strings);
  int sites = rc >= 0 && r->tsc_patch ? tsc_patch_image(&x->t, &x->proc->tsc) : 0;
  if (sites < 0)
    return recorder_abort(r, "cannot patch rdtsc in the new program image");
  r->tsc_sites += (uint64_t)sites;
  record_set_boundary(x);
  return rc < 0 ? RECORD_DEJA_FAILED : 0;
}
