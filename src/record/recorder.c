/* The recorder: runs the program under ptrace, stops it at every system call, signal and
 * trapped instruction, and writes what crossed into the program as events. */
#include "record/recorder.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arch/x86_trap.h"
#include "common/log.h"
#include "syscalls/syscall_table.h"
#include "task/exec_image.h"
#include "task/task.h"
#include "trace/trace_event.h"
#include "trace/trace_files.h"
#include "trace/trace_stream.h"

#define MAX_REGIONS 256
#define FLUSH_INTERVAL_NS 500000000L /* a killed recorder loses at most this much */

struct recorder {
  const struct record_options *o;
  struct trace_writer *w;
  struct tbuf rec;   /* encoded event */
  struct tbuf data;  /* memory bytes of the event being built */
  struct task t;
  uint64_t events;
  struct stat out_st[3];
  bool out_ok[3];
  bool in_syscall, refused;
  struct user_regs_struct entry;
  bool warned_cpuid;
  struct timespec last_flush;
  /* The registers at the last syscall-exit stop, while no other stop came since: a
   * signal-delivery stop with these registers arrived at that system call boundary. */
  struct user_regs_struct exit_regs;
  bool at_exit_boundary;
  /* Asynchronous signals that arrived while the program ran user code: held back and
   * sent again (tgkill) at the next system call, so replay can deliver them there. */
  struct held_signal {
    siginfo_t si;
    bool resent;
  } held[64];
  int nheld;
};

static volatile pid_t forward_pid;

/* SIGINT/SIGTERM/SIGHUP sent to deja itself go on to the program. A terminal's Ctrl-C
 * (si_code SI_KERNEL) already reaches the program through its process group. */
static void forward_signal(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  if (forward_pid > 0 && si->si_code != SI_KERNEL) kill(forward_pid, sig);
}

char *record_find_program(const char *program) {
  if (strchr(program, '/')) return access(program, X_OK) == 0 ? xstrdup(program) : NULL;
  const char *path = getenv("PATH");
  if (!path) path = "/usr/local/bin:/usr/bin:/bin";
  while (*path) {
    const char *end = strchrnul(path, ':');
    char *cand = xasprintf("%.*s/%s", (int)(end - path), path, program);
    struct stat st;
    if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0) return cand;
    free(cand);
    path = *end ? end + 1 : end;
  }
  return NULL;
}

static int emit(struct recorder *r, const struct event *ev) {
  event_encode(ev, &r->rec);
  if (trace_writer_append(r->w, r->rec.data, r->rec.len) < 0) {
    deja_msg("cannot write the trace: %s", trace_writer_error(r->w));
    return -1;
  }
  r->events++;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
  long ns = (now.tv_sec - r->last_flush.tv_sec) * 1000000000L + (now.tv_nsec - r->last_flush.tv_nsec);
  if (ns > FLUSH_INTERVAL_NS) {
    r->last_flush = now;
    if (trace_writer_flush(r->w) < 0) {
      deja_msg("cannot write the trace: %s", trace_writer_error(r->w));
      return -1;
    }
  }
  return 0;
}

/* Stops the recording on a deja failure: the trace so far stays replayable and ends
 * with an abort event saying why. */
static int abort_recording(struct recorder *r, const char *why) {
  deja_msg("%s", why);
  deja_msg("recording stopped; the trace up to here replays: %s", r->o->trace_dir);
  struct event ev;
  event_init(&ev);
  ev.kind = EV_ABORT;
  ev.tid = r->t.tid;
  ev.message = why;
  emit(r, &ev);
  kill(r->t.tid, SIGKILL);
  struct stop st;
  while (task_wait(&r->t, &st) == 0 && st.kind != STOP_EXITED) {}
  return 70;
}

static int mem_reader(void *ctx, uint64_t addr, void *buf, size_t len) {
  return task_read_mem(ctx, addr, buf, len);
}

/* Which of deja's stdout/stderr the program's fd refers to, if either. */
static uint32_t output_stream(struct recorder *r, int fd) {
  char path[64];
  struct stat st;
  snprintf(path, sizeof path, "/proc/%d/fd/%d", r->t.tid, fd);
  if (stat(path, &st) < 0) return OUT_TO_NONE;
  bool m[3] = {false, false, false};
  for (int i = 1; i <= 2; i++)
    m[i] = r->out_ok[i] && st.st_dev == r->out_st[i].st_dev && st.st_ino == r->out_st[i].st_ino;
  if (m[1] && m[2]) return fd == 2 ? OUT_TO_STDERR : OUT_TO_STDOUT;
  return m[1] ? OUT_TO_STDOUT : m[2] ? OUT_TO_STDERR : OUT_TO_NONE;
}

/* Appends the bytes a write-family call sent, read back from the program. */
static int gather_output(struct recorder *r, long nr, const struct user_regs_struct *e,
                         int64_t result, size_t *off) {
  *off = r->data.len;
  if (nr == SYS_write || nr == SYS_pwrite64)
    return task_read_mem(&r->t, e->rsi, tbuf_grow(&r->data, (size_t)result), (size_t)result);
  /* writev, pwritev, pwritev2 */
  uint64_t left = (uint64_t)result;
  for (uint64_t i = 0; i < e->rdx && i < 1024 && left; i++) {
    struct iovec iov;
    if (task_read_mem(&r->t, e->rsi + i * sizeof iov, &iov, sizeof iov) < 0) return -1;
    size_t n = iov.iov_len < left ? iov.iov_len : left;
    if (task_read_mem(&r->t, (uint64_t)iov.iov_base, tbuf_grow(&r->data, n), n) < 0) return -1;
    left -= n;
  }
  return 0;
}

/* Sends held signals to the program again; they are delivered at the end of the system
 * call it is in (interrupting it if it blocks). */
static void resend_held_signals(struct recorder *r) {
  for (int i = 0; i < r->nheld; i++) {
    if (r->held[i].resent) continue;
    syscall(SYS_tgkill, r->t.tid, r->t.tid, r->held[i].si.si_signo);
    r->held[i].resent = true;
  }
}

static bool same_regs(const struct user_regs_struct *a, const struct user_regs_struct *b) {
  struct user_regs_struct x = *a, y = *b;
  x.eflags &= ~0x10000ull; /* RF */
  y.eflags &= ~0x10000ull;
  return memcmp(&x, &y, sizeof x) == 0;
}

static int on_syscall_entry(struct recorder *r) {
  if (task_get_regs(&r->t) < 0) return abort_recording(r, "cannot read registers at a system call");
  resend_held_signals(r);
  long nr = (long)r->t.regs.orig_rax;
  const struct syscall_desc *d = syscall_table_lookup(nr);
  r->entry = r->t.regs;
  r->in_syscall = true;
  r->refused = false;
  char why[256];
  if (!d || d->replay == SC_UNSUPPORTED) {
    snprintf(why, sizeof why, "unsupported system call %s (number %ld) in task %d at event %" PRIu64
             "; please report it with the program that made it", syscall_name(nr), nr, r->t.tid, r->events + 1);
    return abort_recording(r, why);
  }
  switch (nr) {
  case SYS_rseq: /* refused: glibc then does without restartable sequences */
    r->refused = true;
    r->t.regs.orig_rax = (uint64_t)-1;
    if (task_set_regs(&r->t, &r->t.regs) < 0) return abort_recording(r, "cannot refuse rseq");
    break;
  case SYS_clone: case SYS_clone3: case SYS_fork: case SYS_vfork:
    snprintf(why, sizeof why, "task %d called %s: recording new processes and threads is not supported yet",
             r->t.tid, syscall_name(nr));
    return abort_recording(r, why);
  case SYS_exit: case SYS_exit_group: {
    /* No exit stop follows: the event is written now. */
    struct event ev;
    event_init(&ev);
    ev.kind = EV_SYSCALL;
    ev.tid = r->t.tid;
    ev.regs = r->entry;
    r->in_syscall = false;
    return emit(r, &ev) < 0 ? 70 : 0;
  }
  }
  return 0;
}

static int on_syscall_exit(struct recorder *r) {
  if (!r->in_syscall) return 0; /* exit of a call made before recording started */
  r->in_syscall = false;
  if (task_get_regs(&r->t) < 0) return abort_recording(r, "cannot read registers after a system call");
  const struct user_regs_struct *e = &r->entry;
  long nr = (long)e->orig_rax;
  int64_t result = (int64_t)r->t.regs.rax;
  if (r->refused) {
    result = -ENOSYS;
    r->t.regs.rax = (uint64_t)result;
    task_set_regs(&r->t, &r->t.regs);
  }
  const struct syscall_desc *d = syscall_table_lookup(nr);
  uint64_t args[6];
  for (int i = 0; i < 6; i++) args[i] = regs_arg(e, i);
  struct mem_region reg[MAX_REGIONS];
  int n = syscall_written_regions(d, args, result, mem_reader, &r->t, reg, MAX_REGIONS);
  char why[512];
  if (n < 0) {
    snprintf(why, sizeof why, "system call %s in task %d at event %" PRIu64 ": %s", d->name, r->t.tid,
             r->events + 1, n == -1 ? "it wrote more memory regions than deja can record" :
             "cannot read the program's memory to find what the call wrote");
    return abort_recording(r, why);
  }
  struct event ev;
  event_init(&ev);
  ev.kind = EV_SYSCALL;
  ev.tid = r->t.tid;
  ev.regs = *e;
  ev.result = result;
  tbuf_reset(&r->data);
  size_t offs[MAX_REGIONS];
  int kept = 0;
  for (int i = 0; i < n; i++) {
    /* A region the kernel could not have written (a bad pointer in a failed call) is
     * unreadable here too: nothing to record. */
    size_t before = r->data.len;
    if (task_read_mem(&r->t, reg[i].addr, tbuf_grow(&r->data, reg[i].len), reg[i].len) < 0) {
      r->data.len = before;
      continue;
    }
    offs[kept] = before;
    reg[kept++] = reg[i];
  }
  n = kept;
  size_t out_off = 0;
  if (result > 0 && (nr == SYS_write || nr == SYS_writev || nr == SYS_pwrite64 ||
                     nr == SYS_pwritev || nr == SYS_pwritev2)) {
    ev.out_to = output_stream(r, (int)e->rdi);
    if (ev.out_to && gather_output(r, nr, e, result, &out_off) < 0) ev.out_to = OUT_TO_NONE;
  }
  char file[512] = "";
  if (nr == SYS_mmap && result >= 0 && !((int)e->r10 & MAP_ANONYMOUS) && (int)e->r8 >= 0) {
    char src[64], orig[512];
    snprintf(src, sizeof src, "/proc/%d/fd/%d", r->t.tid, (int)e->r8);
    ssize_t l = readlink(src, orig, sizeof orig - 1);
    orig[l > 0 ? l : 0] = 0;
    if (trace_files_preserve(r->o->trace_dir, src, orig, file, sizeof file, why, sizeof why) < 0) {
      event_free(&ev);
      return abort_recording(r, why);
    }
  }
  ev.file = file;
  /* Pointers into r->data are taken only now: tbuf_grow may have moved it. */
  for (int i = 0; i < n; i++) event_add_mem(&ev, reg[i].addr, r->data.data + offs[i], (uint32_t)reg[i].len);
  if (ev.out_to) {
    ev.out_data = r->data.data + out_off;
    ev.out_len = (uint32_t)(r->data.len - out_off);
  }
  int rc = emit(r, &ev);
  event_free(&ev);
  r->exit_regs = r->t.regs;
  r->at_exit_boundary = true;
  resend_held_signals(r);
  return rc < 0 ? 70 : 0;
}

static int on_exec(struct recorder *r) {
  r->in_syscall = false;
  struct stop st;
  if (task_resume(&r->t, PTRACE_SYSCALL, 0) < 0 || task_wait(&r->t, &st) < 0 || st.kind != STOP_SYSCALL_EXIT)
    return abort_recording(r, "the program did not return from execve as expected");
  char why[512], file[512], exe[64], orig[512];
  if (task_open_mem(&r->t) < 0 || task_get_regs(&r->t) < 0)
    return abort_recording(r, "cannot access the new program image after execve");
  snprintf(exe, sizeof exe, "/proc/%d/exe", r->t.tid);
  ssize_t l = readlink(exe, orig, sizeof orig - 1);
  orig[l > 0 ? l : 0] = 0;
  if (trace_files_preserve(r->o->trace_dir, exe, orig, file, sizeof file, why, sizeof why) < 0)
    return abort_recording(r, why);
  struct event ev;
  event_init(&ev);
  char *strings;
  if (exec_image_prepare(&r->t, &strings, &ev.strings_len, &ev.argc, &ev.envc, why, sizeof why) < 0)
    return abort_recording(r, why);
  int cf = exec_image_enable_cpuid_faulting(&r->t);
  if (cf < 0) {
    free(strings);
    return abort_recording(r, "cannot turn on cpuid faulting in the new program image");
  }
  if (cf > 0 && !r->warned_cpuid) {
    r->warned_cpuid = true;
    deja_msg("warning: this CPU cannot trap cpuid; the trace will only replay on a CPU like this one");
  }
  task_get_regs(&r->t);
  uint64_t top = proc_mapping_end(r->t.tid, r->t.regs.rsp);
  if (!top) {
    free(strings);
    return abort_recording(r, "cannot find the stack of the new program image");
  }
  tbuf_reset(&r->data);
  size_t len = top - r->t.regs.rsp;
  if (task_read_mem(&r->t, r->t.regs.rsp, tbuf_grow(&r->data, len), len) < 0) {
    free(strings);
    return abort_recording(r, "cannot read the initial stack of the new program image");
  }
  ev.kind = EV_EXEC;
  ev.tid = r->t.tid;
  ev.regs = r->t.regs;
  ev.file = file;
  ev.stack_addr = r->t.regs.rsp;
  ev.stack = r->data.data;
  ev.stack_len = (uint32_t)len;
  ev.strings = strings;
  int rc = emit(r, &ev);
  free(strings);
  return rc < 0 ? 70 : 0;
}

/* Returns the signal to deliver on resume, or -1 after a failure (already reported). */
static int on_signal(struct recorder *r, int sig, int *status) {
  *status = 0;
  if (task_get_regs(&r->t) < 0) return 0;
  struct event ev;
  event_init(&ev);
  ev.tid = r->t.tid;
  ev.regs = r->t.regs;
  if (sig == SIGSEGV) {
    uint8_t code[3] = {0, 0, 0};
    unsigned len;
    task_read_mem(&r->t, r->t.regs.rip, code, 3);
    enum trapped_insn k = x86_trapped_insn(code, &len);
    if (k != INSN_NONE) {
      ev.kind = EV_INSN;
      ev.regs_after = r->t.regs;
      x86_emulate_trapped(k, &ev.regs_after);
      ev.regs_after.rip += len;
      ev.insn_len = len;
      if (task_set_regs(&r->t, &ev.regs_after) < 0 || emit(r, &ev) < 0) {
        *status = 70;
        return -1;
      }
      return 0;
    }
  }
  siginfo_t si;
  memset(&si, 0, sizeof si);
  ptrace(PTRACE_GETSIGINFO, r->t.tid, 0, &si);
  if (!signal_is_synchronous(sig, &si)) {
    int h;
    for (h = 0; h < r->nheld; h++)
      if (r->held[h].resent && r->held[h].si.si_signo == sig) break;
    if (h < r->nheld && si.si_code == SI_TKILL && si.si_pid == getpid()) {
      /* Our resent copy: it carries the original's siginfo. */
      si = r->held[h].si;
      ptrace(PTRACE_SETSIGINFO, r->t.tid, 0, &si);
      r->held[h] = r->held[--r->nheld];
    } else if (!(r->at_exit_boundary && same_regs(&r->exit_regs, &r->t.regs))) {
      if (r->nheld < (int)(sizeof r->held / sizeof r->held[0])) r->held[r->nheld++] = (struct held_signal){si, false};
      return 0; /* held until the next system call */
    }
  }
  uint8_t raw[128] = {0};
  memcpy(raw, &si, sizeof si < 128 ? sizeof si : 128);
  ev.kind = EV_SIGNAL;
  ev.signo = sig;
  ev.siginfo = raw;
  if (emit(r, &ev) < 0) {
    *status = 70;
    return -1;
  }
  return sig;
}

static int exit_status_of(int wstatus) {
  if (WIFEXITED(wstatus)) return WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus)) return 128 + WTERMSIG(wstatus);
  return 70;
}

static pid_t spawn(const struct record_options *o, const char *path) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  /* The child: deterministic layout, trapping rdtsc, stopped until the tracer is ready. */
  personality(ADDR_NO_RANDOMIZE);
  prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  raise(SIGSTOP);
  execve(path, o->argv, o->env);
  fprintf(stderr, "deja: cannot run `%s': %s\n", path, strerror(errno));
  _exit(127);
}

/* Seizes the stopped child and lets it run to its execve. Returns 0, or the exit status
 * when it never got there. */
static int start_tracing(struct recorder *r, pid_t pid) {
  int ws;
  if (waitpid(pid, &ws, WUNTRACED) < 0 || !WIFSTOPPED(ws)) return 127;
  long opts = PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC;
  if (ptrace(PTRACE_SEIZE, pid, 0, (void *)opts) < 0) {
    deja_msg("cannot trace the program (ptrace: %s); is ptrace allowed here (yama ptrace_scope, seccomp)?", strerror(errno));
    kill(pid, SIGKILL);
    return 70;
  }
  kill(pid, SIGCONT);
  r->t.tid = pid;
  r->t.mem_fd = -1;
  for (;;) {
    struct stop st;
    if (task_wait(&r->t, &st) < 0) return 70;
    if (st.kind == STOP_EXITED) return exit_status_of(st.status);
    if (st.kind == STOP_EVENT && st.event == PTRACE_EVENT_EXEC) return 0;
    task_resume(&r->t, PTRACE_CONT, 0);
  }
}

int record_run(const struct record_options *o) {
  char *path = record_find_program(o->argv[0]);
  if (!path) {
    deja_msg("cannot find program `%s'%s", o->argv[0],
             strchr(o->argv[0], '/') ? " (no such executable file)" : " in PATH");
    return 127;
  }
  struct recorder r = {.o = o};
  tbuf_init(&r.rec);
  tbuf_init(&r.data);
  for (int i = 1; i <= 2; i++) r.out_ok[i] = fstat(i, &r.out_st[i]) == 0;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &r.last_flush);
  char err[512];
  char *files = xasprintf("%s/files", o->trace_dir);
  char *events = xasprintf("%s/events", o->trace_dir);
  int status = 70;
  if (mkdir(files, 0700) < 0) {
    deja_msg("cannot create %s: %s", files, strerror(errno));
    goto out;
  }
  r.w = trace_writer_open(events, 1, DEJA_VERSION, err, sizeof err);
  if (!r.w) {
    deja_msg("%s", err);
    goto out;
  }
  pid_t pid = spawn(o, path);
  if (pid < 0) {
    deja_msg("cannot fork: %s", strerror(errno));
    goto out;
  }
  forward_pid = pid;
  struct sigaction sa = {.sa_sigaction = forward_signal, .sa_flags = SA_SIGINFO | SA_RESTART};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  status = start_tracing(&r, pid);
  if (status != 0) goto out;
  status = on_exec(&r);
  int sig = 0;
  while (status == 0) {
    struct stop st;
    if (task_resume(&r.t, PTRACE_SYSCALL, sig) < 0 || task_wait(&r.t, &st) < 0) {
      status = abort_recording(&r, "lost control of the program (ptrace failed)");
      break;
    }
    sig = 0;
    bool boundary = r.at_exit_boundary;
    r.at_exit_boundary = false;
    switch (st.kind) {
    case STOP_SYSCALL_ENTRY: status = on_syscall_entry(&r); break;
    case STOP_SYSCALL_EXIT: status = on_syscall_exit(&r); break;
    case STOP_SIGNAL:
      r.at_exit_boundary = boundary;
      sig = on_signal(&r, st.sig, &status);
      r.at_exit_boundary = false;
      if (sig < 0) sig = 0;
      break;
    case STOP_EVENT:
      if (st.event == PTRACE_EVENT_EXEC) status = on_exec(&r);
      break;
    case STOP_GROUP: break;
    case STOP_EXITED: {
      struct event ev;
      event_init(&ev);
      ev.kind = EV_EXIT;
      ev.tid = r.t.tid;
      ev.status = st.status;
      emit(&r, &ev);
      status = exit_status_of(st.status);
      goto out;
    }
    }
  }
out:
  forward_pid = 0;
  if (r.w && trace_writer_close(r.w) < 0) {
    deja_msg("cannot finish the trace %s", events);
    status = 70;
  }
  task_close(&r.t);
  tbuf_free(&r.rec);
  tbuf_free(&r.data);
  free(files);
  free(events);
  free(path);
  return status;
}
