/* Recording system calls: entry checks, the memory the kernel wrote, output to the
 * terminal, preserved files, process creation and exec. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/log.h"
#include "record/recorder_internal.h"
#include "syscalls/syscall_table.h"
#include "task/exec_image.h"
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

/* rseq is refused: glibc then does without restartable sequences. */
static int refuse_rseq(struct recorder *r, struct rtask *x) {
  x->refused = true;
  x->t.regs.orig_rax = (uint64_t)-1;
  if (task_set_regs(&x->t, &x->t.regs) < 0)
    return recorder_abort(r, "cannot refuse rseq");
  return 0;
}

/* exit and exit_group: no exit stop follows, so the event is written at the entry. */
static int record_exit_now(struct recorder *r, struct rtask *x) {
  x->in_syscall = false;
  struct event ev;
  event_init(&ev);
  ev.kind = EV_SYSCALL;
  ev.tid = x->t.tid;
  ev.regs = x->entry;
  return recorder_emit(r, x, &ev) < 0 ? RECORD_DEJA_FAILED : 0;
}

/* What a hook at a call's exit adds to its event. */
struct exit_info {
  struct event *ev;
  int64_t result;
  char file[512]; /* the preserved file an mmap maps */
  char why[512];  /* a failure's message */
};

/* The bytes a write-family call sent to deja's stdout/stderr, read back from the
 * program: one buffer (write, pwrite64) or iovecs (writev, pwritev, pwritev2). */
static int gather_output(struct recorder *r, struct rtask *x, struct exit_info *in, bool iov) {
  const struct user_regs_struct *e = &x->entry;
  if (in->result <= 0)
    return 0;
  in->ev->out_to = output_stream(r, x, (int)e->rdi);
  if (!in->ev->out_to)
    return 0;
  int rc = 0;
  if (!iov) {
    rc = task_read_mem(&x->t, e->rsi, tbuf_grow(&r->data, (size_t)in->result), (size_t)in->result);
  } else {
    uint64_t left = (uint64_t)in->result;
    for (uint64_t i = 0; i < e->rdx && i < 1024 && left && rc == 0; i++) {
      struct iovec v;
      rc = task_read_mem(&x->t, e->rsi + i * sizeof v, &v, sizeof v);
      size_t n = v.iov_len < left ? v.iov_len : left;
      if (rc == 0)
        rc = task_read_mem(&x->t, (uint64_t)v.iov_base, tbuf_grow(&r->data, n), n);
      left -= n;
    }
  }
  if (rc < 0) {
    in->ev->out_to = OUT_TO_NONE;
    tbuf_reset(&r->data);
  }
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
  return 0;
}

static int forget_remapped(struct recorder *r, struct rtask *x, struct exit_info *in) {
  if (in->result >= 0)
    page_hashes_forget(x->proc->pages, (uint64_t)in->result, x->entry.rdx);
  return forget_unmapped(r, x, in);
}

static int forget_heap(struct recorder *r, struct rtask *x, struct exit_info *in) {
  (void)r;
  if (in->result >= 0)
    page_hashes_clear(x->proc->pages);
  return 0;
}

/* A file mapping: the file is preserved in the trace (or /dev/zero noted). */
static int preserve_mapped(struct recorder *r, struct rtask *x, struct exit_info *in) {
  const struct user_regs_struct *e = &x->entry;
  if (in->result < 0)
    return 0;
  page_hashes_forget(x->proc->pages, (uint64_t)in->result, e->rsi);
  if (((int)e->r10 & MAP_ANONYMOUS) || (int)e->r8 < 0)
    return 0;
  char src[64], orig[512];
  snprintf(src, sizeof src, "/proc/%d/fd/%d", x->t.tid, (int)e->r8);
  ssize_t l = readlink(src, orig, sizeof orig - 1);
  orig[l > 0 ? l : 0] = 0;
  struct stat st;
  if (stat(src, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 5)) {
    in->ev->flags |= EVF_DEV_ZERO; /* zero-filled memory, like an anonymous mapping */
    return 0;
  }
  return trace_files_preserve(r->o->trace_dir, src, orig, in->file, sizeof in->file, in->why,
                              sizeof in->why);
}

/* The table's hooks the recorder needs (syscalls/syscall_table.h): at the call's entry,
 * and at its exit before the written memory is read. */
static const struct {
  int (*entry)(struct recorder *r, struct rtask *x);
  int (*exit)(struct recorder *r, struct rtask *x, struct exit_info *in);
} record_hooks[SCH_COUNT] = {
    [SCH_rseq] = {.entry = refuse_rseq},     [SCH_exit] = {.entry = record_exit_now},
    [SCH_write] = {.exit = output_write},    [SCH_writev] = {.exit = output_writev},
    [SCH_unmap] = {.exit = forget_unmapped}, [SCH_mremap] = {.exit = forget_remapped},
    [SCH_brk] = {.exit = forget_heap},       [SCH_mmap] = {.exit = preserve_mapped},
};

int record_syscall_entry(struct recorder *r, struct rtask *x) {
  if (task_get_regs(&x->t) < 0)
    return recorder_abort(r, "cannot read registers at a system call");
  record_resend_held(x);
  long nr = (long)x->t.regs.orig_rax;
  const struct syscall_desc *d = syscall_table_lookup(nr);
  x->entry = x->t.regs;
  x->in_syscall = true;
  x->refused = x->entry_emitted = x->clone_done = false;
  x->entry_seq = ++r->seq;
  char why[256];
  if (!d || d->replay == SC_UNSUPPORTED) {
    snprintf(why, sizeof why,
             "unsupported system call %s (number %ld) in task %d at event %" PRIu64
             "; please report it with the program that made it",
             syscall_name(nr), nr, x->t.tid, r->events + 1);
    return recorder_abort(r, why);
  }
  if (d->hook && record_hooks[d->hook].entry)
    return record_hooks[d->hook].entry(r, x);
  return 0;
}

/* Reads the regions the kernel wrote into r->data and adds them to EV. Returns 0, or -1
 * with a message in WHY. */
static int capture_regions(struct recorder *r, struct rtask *x, const struct syscall_desc *d,
                           int64_t result, struct event *ev, char *why, size_t whylen) {
  uint64_t args[6];
  for (int i = 0; i < 6; i++)
    args[i] = regs_arg(&x->entry, i);
  struct mem_region reg[MAX_REGIONS];
  int n = syscall_written_regions(d, args, result, mem_reader, &x->t, reg, MAX_REGIONS);
  if (n < 0) {
    snprintf(why, whylen, "system call %s in task %d at event %" PRIu64 ": %s", d->name, x->t.tid,
             r->events + 1,
             n == -1 ? "it wrote more memory regions than deja can record"
                     : "cannot read the program's memory to find what the call wrote");
    return -1;
  }
  size_t offs[MAX_REGIONS];
  int kept = 0;
  for (int i = 0; i < n; i++) {
    /* A region the kernel could not have written (a bad pointer in a failed call) is
     * unreadable here too: nothing to record. */
    size_t before = r->data.len;
    if (task_read_mem(&x->t, reg[i].addr, tbuf_grow(&r->data, reg[i].len), reg[i].len) < 0) {
      r->data.len = before;
      continue;
    }
    offs[kept] = before;
    reg[kept++] = reg[i];
  }
  /* Pointers into r->data are taken only now: tbuf_grow may have moved it. */
  for (int i = 0; i < kept; i++) {
    event_add_mem(ev, reg[i].addr, r->data.data + offs[i], (uint32_t)reg[i].len);
    page_hashes_forget(x->proc->pages, reg[i].addr, reg[i].len);
  }
  return 0;
}

int record_syscall_exit(struct recorder *r, struct rtask *x) {
  if (!x->in_syscall)
    return 0; /* exit of a call made before recording started */
  if (task_get_regs(&x->t) < 0)
    return recorder_abort(r, "cannot read registers after a system call");
  if (x->clone_done) {
    x->in_syscall = false;
    return 0; /* recorded at its clone event */
  }
  const struct user_regs_struct *e = &x->entry;
  long nr = (long)e->orig_rax;
  int64_t result = (int64_t)x->t.regs.rax;
  if (x->refused) {
    result = -ENOSYS;
    x->t.regs.rax = (uint64_t)result;
    task_set_regs(&x->t, &x->t.regs);
  }
  const struct syscall_desc *d = syscall_table_lookup(nr);
  struct event ev;
  event_init(&ev);
  ev.kind = EV_SYSCALL;
  ev.tid = x->t.tid;
  ev.regs = *e;
  ev.result = result;
  tbuf_reset(&r->data);
  struct exit_info in = {.ev = &ev, .result = result};
  if (d->hook && record_hooks[d->hook].exit && record_hooks[d->hook].exit(r, x, &in) < 0) {
    event_free(&ev);
    return recorder_abort(r, in.why);
  }
  uint32_t out_len = (uint32_t)r->data.len; /* the output comes first in r->data */
  if (capture_regions(r, x, d, result, &ev, in.why, sizeof in.why) < 0) {
    event_free(&ev);
    return recorder_abort(r, in.why);
  }
  ev.file = in.file;
  if (ev.out_to) {
    ev.out_data = r->data.data;
    ev.out_len = out_len;
  }
  int rc = recorder_emit(r, x, &ev); /* still in_syscall: its entry may need a marker */
  x->in_syscall = false;
  event_free(&ev);
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
  tbuf_reset(&r->data);
  char why[512];
  if (capture_regions(r, x, syscall_table_lookup((long)x->entry.orig_rax), (int64_t)child, &ev, why,
                      sizeof why) < 0) {
    event_free(&ev);
    return recorder_abort(r, why);
  }
  int rc = recorder_emit(r, x, &ev);
  event_free(&ev);
  x->clone_done = true;
  c->announced = true;
  if (c->first_stop_seen && c->state == T_NEW)
    c->state = T_READY;
  return rc < 0 ? RECORD_DEJA_FAILED : 0;
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
  snprintf(exe, sizeof exe, "/proc/%d/exe", x->t.tid);
  ssize_t l = readlink(exe, orig, sizeof orig - 1);
  orig[l > 0 ? l : 0] = 0;
  if (trace_files_preserve(r->o->trace_dir, exe, orig, file, sizeof file, why, sizeof why) < 0)
    return recorder_abort(r, why);
  struct event ev;
  event_init(&ev);
  /* The interpreter (ld.so) is mapped by the kernel from the system: preserved too. */
  char interp[512] = "", interp_file[512] = "";
  uint64_t maps[16][4];
  int nmaps = proc_file_mappings(x->t.tid, orig, interp, sizeof interp, maps, 16);
  if (nmaps > 0 && trace_files_preserve(r->o->trace_dir, interp, interp, interp_file,
                                        sizeof interp_file, why, sizeof why) < 0)
    return recorder_abort(r, why);
  ev.interp = interp_file;
  ev.interp_maps = (const uint8_t *)maps;
  ev.interp_count = nmaps > 0 ? (uint32_t)nmaps : 0;
  char *strings;
  if (exec_image_prepare(&x->t, &strings, &ev.strings_len, &ev.argc, &ev.envc, why, sizeof why) < 0)
    return recorder_abort(r, why);
  int cf = exec_image_enable_cpuid_faulting(&x->t);
  if (cf < 0) {
    free(strings);
    return recorder_abort(r, "cannot turn on cpuid faulting in the new program image");
  }
  if (cf > 0 && !r->warned_cpuid) {
    r->warned_cpuid = true;
    deja_msg(
        "warning: this CPU cannot trap cpuid; the trace will only replay on a CPU like this one");
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
  ev.kind = EV_EXEC;
  ev.tid = x->t.tid;
  ev.regs = x->t.regs;
  ev.file = file;
  ev.stack_addr = x->t.regs.rsp;
  ev.stack = r->data.data;
  ev.stack_len = (uint32_t)len;
  ev.strings = strings;
  int rc = recorder_emit(r, x, &ev);
  x->in_syscall = false;
  event_free(&ev);
  free(strings);
  x->at_boundary = true;
  x->boundary_regs = x->t.regs;
  return rc < 0 ? RECORD_DEJA_FAILED : 0;
}
