/* The replayer: drives the re-executed program from event to event. System calls that
 * talk to the outside world are skipped and their results and memory written back; those
 * that shape the address space are executed at the recorded addresses. */
#include "replay/replayer.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "replay/regs_compare.h"
#include "syscalls/syscall_table.h"
#include "task/exec_image.h"
#include "task/proc_maps.h"
#include "task/task.h"
#include "trace/trace_event.h"
#include "trace/trace_stream.h"

#ifndef MREMAP_FIXED
#define MREMAP_FIXED 2
#endif
#ifndef MREMAP_MAYMOVE
#define MREMAP_MAYMOVE 1
#endif

enum { REPLAY_OK = 0, REPLAY_BAD_TRACE = 1, REPLAY_DIVERGED = 3 };

struct replayer {
  const struct replay_options *o;
  char *events_path;
  struct trace_reader *rd;
  struct event ev;
  uint64_t evno;
  struct task t;
  pid_t rec_pid; /* the recorded process's pid, as the program saw it */
  int sig;       /* signal to deliver at the next resume */
  int queued_sig;/* an injected signal already sent (tgkill), awaiting its delivery stop */
  uint64_t gadget;/* a syscall instruction in the vDSO, for injecting calls at any stop */
  /* The current event's record and a one-event lookahead (records are copied: the
   * reader's buffer only holds one). */
  struct tbuf cur_rec, peek_rec;
  bool have_peek;
  int peek_rc;
  struct event peek;
};

static int diverge(struct replayer *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int diverge(struct replayer *r, const char *fmt, ...) {
  char what[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  deja_msg("replay diverged at event %" PRIu64 " (task %d, %s): %s", r->evno, r->ev.tid,
           event_kind_name(r->ev.kind), what);
  deja_msg("the replay does not match the trace %s; please report this with the trace", r->o->trace_dir);
  if (getenv("DEJA_DEBUG") && r->t.tid > 0) {
    char cmd[64];
    snprintf(cmd, sizeof cmd, "cat /proc/%d/maps >&2", r->t.tid);
    if (system(cmd)) {}
  }
  return REPLAY_DIVERGED;
}

/* Copies the next record into B. 1: a record; 0: end of stream; -1: corrupt (reported). */
static int read_record(struct replayer *r, struct tbuf *b) {
  const void *rec;
  size_t len;
  int n = trace_reader_next(r->rd, &rec, &len);
  if (n < 0) deja_msg("%s", trace_reader_error(r->rd));
  if (n <= 0) return n;
  tbuf_reset(b);
  tbuf_put_bytes(b, rec, len);
  return 1;
}

static int decode(struct replayer *r, struct event *ev, const struct tbuf *b, uint64_t evno) {
  char err[256];
  if (event_decode(ev, b->data, b->len, err, sizeof err) < 0) {
    deja_msg("%s: event %" PRIu64 " is corrupt: %s", r->events_path, evno, err);
    return -1;
  }
  return 1;
}

/* 1: next event in r->ev; 0: end of stream; -1: corrupt trace (reported). */
static int next_event(struct replayer *r) {
  int n;
  if (r->have_peek) {
    r->have_peek = false;
    struct tbuf t = r->cur_rec;
    r->cur_rec = r->peek_rec;
    r->peek_rec = t;
    n = r->peek_rc;
  } else {
    n = read_record(r, &r->cur_rec);
  }
  if (n <= 0) return n;
  r->evno++;
  return decode(r, &r->ev, &r->cur_rec, r->evno);
}

/* The event after the current one, or NULL at the end of the trace (or when it is
 * corrupt: next_event reports that). */
static const struct event *peek_event(struct replayer *r) {
  if (!r->have_peek) {
    r->have_peek = true;
    r->peek_rc = read_record(r, &r->peek_rec);
    if (r->peek_rc > 0 && decode(r, &r->peek, &r->peek_rec, r->evno + 1) < 0) r->peek_rc = -1;
  }
  return r->peek_rc > 0 ? &r->peek : NULL;
}

/* The signal the next event delivers to this task right after the current one, or 0. */
static int next_injected_signal(struct replayer *r) {
  const struct event *n = peek_event(r);
  if (!n || n->kind != EV_SIGNAL || n->tid != r->ev.tid) return 0;
  return signal_is_synchronous(n->signo, n->siginfo) ? 0 : n->signo;
}

/* Sends the recorded asynchronous signal now, so it is pending at the next boundary. */
static void queue_signal(struct replayer *r, int signo) {
  if (r->queued_sig == signo) return;
  syscall(SYS_tgkill, r->t.tid, r->t.tid, signo);
  r->queued_sig = signo;
}

static const char *stop_desc(const struct stop *st, char *buf, size_t len) {
  switch (st->kind) {
  case STOP_SYSCALL_ENTRY: return "a system call";
  case STOP_SYSCALL_EXIT: return "a system call exit";
  case STOP_SIGNAL: {
    siginfo_t si;
    struct user_regs_struct regs;
    memset(&si, 0, sizeof si);
    memset(&regs, 0, sizeof regs);
    ptrace(PTRACE_GETSIGINFO, st->pid, 0, &si);
    ptrace(PTRACE_GETREGS, st->pid, 0, &regs);
    snprintf(buf, len, "signal %s (code %d, address %p) at 0x%llx", strsignal(st->sig), si.si_code, si.si_addr, regs.rip);
    return buf;
  }
  case STOP_EVENT: snprintf(buf, len, "ptrace event %d", st->event); return buf;
  case STOP_GROUP: return "a group stop";
  case STOP_EXITED:
    if (WIFEXITED(st->status)) snprintf(buf, len, "the program exiting with status %d", WEXITSTATUS(st->status));
    else snprintf(buf, len, "the program killed by %s", strsignal(WTERMSIG(st->status)));
    return buf;
  }
  return "?";
}

/* Resumes the program (delivering a pending signal) and waits for its next stop. */
static int run(struct replayer *r, struct stop *st) {
  int sig = r->sig;
  r->sig = 0;
  if (task_resume(&r->t, PTRACE_SYSCALL, sig) < 0 || task_wait(&r->t, st) < 0) {
    deja_msg("lost control of the replayed program (task %d): %s", r->t.tid, strerror(errno));
    return -1;
  }
  return 0;
}

static int expect_regs(struct replayer *r, const struct user_regs_struct *want) {
  if (task_get_regs(&r->t) < 0) return diverge(r, "cannot read registers: %s", strerror(errno));
  char diff[1024];
  if (regs_differ(want, &r->t.regs, diff, sizeof diff)) return diverge(r, "registers differ: %s", diff);
  return 0;
}

static int write_back_memory(struct replayer *r) {
  for (uint32_t i = 0; i < r->ev.nmem; i++) {
    const struct event_mem *m = &r->ev.mem[i];
    if (task_write_mem(&r->t, m->addr, m->data, m->len) < 0)
      return diverge(r, "cannot write %u recorded bytes at 0x%" PRIx64 ": %s", m->len, m->addr, strerror(errno));
  }
  return 0;
}

static void reproduce_output(struct replayer *r) {
  if (r->o->quiet || !r->ev.out_to) return;
  int fd = r->ev.out_to == OUT_TO_STDERR ? 2 : 1;
  for (uint32_t done = 0; done < r->ev.out_len;) {
    ssize_t n = write(fd, r->ev.out_data + done, r->ev.out_len - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += (uint32_t)n;
  }
}

/* Copies BYTES to the program's stack below the red zone and injects a call using it;
 * the stack bytes are restored afterwards. */
static int64_t inject_with_string(struct replayer *r, bool at_entry, uint64_t insn, long nr,
                                  uint64_t args[6], int str_arg, const char *s, bool *ok) {
  size_t len = strlen(s) + 1;
  uint64_t at = (r->t.regs.rsp - 256 - len) & ~15ull;
  char *saved = xmalloc(len);
  *ok = false;
  int64_t res = -EFAULT;
  if (task_read_mem(&r->t, at, saved, len) == 0 && task_write_mem(&r->t, at, s, len) == 0) {
    args[str_arg] = at;
    res = task_inject_syscall(&r->t, at_entry, insn, nr, args, ok);
    task_write_mem(&r->t, at, saved, len);
  }
  free(saved);
  return res;
}

/* Runs the pending call (possibly with changed arguments) to its exit stop. */
static int finish_executed(struct replayer *r, const char *name, bool restore_args) {
  struct stop st;
  char buf[256];
  if (run(r, &st) < 0) return -1;
  if (st.kind != STOP_SYSCALL_EXIT) return diverge(r, "%s did not return; found %s", name, stop_desc(&st, buf, sizeof buf));
  if (task_get_regs(&r->t) < 0) return -1;
  /* Arguments changed for the replay (MAP_FIXED, a preserved file's fd) must not leak
   * into the program: the kernel preserves argument registers across a call. */
  struct user_regs_struct back = r->t.regs;
  if (restore_args) {
    for (int i = 0; i < 6; i++) regs_set_arg(&back, i, regs_arg(&r->ev.regs, i));
    back.orig_rax = r->ev.regs.orig_rax;
  }
  if (back.orig_rax == SYS_set_tid_address) back.rax = (uint64_t)r->ev.result; /* a tid: the recorded one */
  if (task_set_regs(&r->t, &back) < 0) return -1;
  if ((int64_t)r->t.regs.rax != r->ev.result)
    return diverge(r, "%s returned %" PRId64 " (0x%" PRIx64 "), recorded %" PRId64 " (0x%" PRIx64 ")", name,
                   (int64_t)r->t.regs.rax, (uint64_t)r->t.regs.rax, r->ev.result, (uint64_t)r->ev.result);
  return write_back_memory(r);
}

static int replay_mmap(struct replayer *r) {
  struct user_regs_struct regs = r->t.regs;
  int fd = -1;
  if (r->ev.file[0]) {
    char *path = xasprintf("%s/files/%s", r->o->trace_dir, r->ev.file);
    uint64_t args[6] = {(uint64_t)AT_FDCWD, 0, O_RDONLY | O_CLOEXEC, 0, 0, 0};
    bool ok;
    int64_t res = inject_with_string(r, true, 0, SYS_openat, args, 1, path, &ok);
    if (!ok || res < 0) {
      int rc = diverge(r, "cannot open the preserved file %s in the program: %s", path, strerror((int)-res));
      free(path);
      return rc;
    }
    free(path);
    fd = (int)res;
    regs.r8 = (uint64_t)fd;
    /* A private copy: the program must never write into the trace's files. */
    regs.r10 = (regs.r10 & ~(uint64_t)(MAP_SHARED | MAP_PRIVATE)) | MAP_PRIVATE;
  }
  regs.rdi = (uint64_t)r->ev.result;
  regs.r10 |= MAP_FIXED;
  if (task_set_regs(&r->t, &regs) < 0) return -1;
  int rc = finish_executed(r, "mmap", true);
  if (rc == 0 && fd >= 0) {
    uint64_t args[6] = {(uint64_t)fd, 0, 0, 0, 0, 0};
    bool ok;
    task_inject_syscall(&r->t, false, r->t.regs.rip - 2, SYS_close, args, &ok);
    if (!ok) return diverge(r, "cannot close the preserved file's descriptor %d", fd);
  }
  return rc;
}

#define ERESTARTSYS 512
#define ERESTARTNOINTR 513
#define ERESTARTNOHAND 514
#define ERESTART_RESTARTBLOCK 516

static int emulate(struct replayer *r) {
  long nr = (long)r->t.regs.orig_rax;
  r->t.regs.orig_rax = (uint64_t)-1; /* the kernel skips the call */
  if (task_set_regs(&r->t, &r->t.regs) < 0) return -1;
  struct stop st;
  char buf[256];
  if (run(r, &st) < 0) return -1;
  if (st.kind != STOP_SYSCALL_EXIT) return diverge(r, "skipped system call did not return; found %s", stop_desc(&st, buf, sizeof buf));
  if (task_get_regs(&r->t) < 0) return -1;
  /* With the call's number back in orig_rax, the kernel's signal delivery restarts it
   * or turns -ERESTART* into -EINTR exactly as it did during recording. */
  r->t.regs.rax = (uint64_t)r->ev.result;
  r->t.regs.orig_rax = (uint64_t)nr;
  int64_t res = r->ev.result;
  if (res <= -ERESTARTSYS && res >= -ERESTART_RESTARTBLOCK && !next_injected_signal(r)) {
    /* Interrupted without a signal to handle (a stop, a ptrace interrupt): the kernel
     * restarted the call by itself. */
    r->t.regs.rax = res == -ERESTART_RESTARTBLOCK ? SYS_restart_syscall : (uint64_t)nr;
    r->t.regs.rip -= 2;
  }
  if (task_set_regs(&r->t, &r->t.regs) < 0) return -1;
  int rc = write_back_memory(r);
  if (rc == 0) reproduce_output(r);
  return rc;
}

static int replay_syscall(struct replayer *r) {
  struct stop st;
  char buf[256];
  long nr = (long)r->ev.regs.orig_rax;
  if (run(r, &st) < 0) return -1;
  if (st.kind != STOP_SYSCALL_ENTRY)
    return diverge(r, "expected system call %s, found %s", syscall_name(nr), stop_desc(&st, buf, sizeof buf));
  int rc = expect_regs(r, &r->ev.regs);
  if (rc) return rc;
  const struct syscall_desc *d = syscall_table_lookup(nr);
  if (!d) return diverge(r, "system call number %ld is unknown to this deja", nr);
  switch (nr) {
  case SYS_exit: case SYS_exit_group:
    return 0; /* runs when the exit event resumes the program */
  case SYS_mmap:
    return r->ev.result < 0 ? emulate(r) : replay_mmap(r);
  case SYS_mremap:
    if (r->ev.result >= 0 && (uint64_t)r->ev.result != r->t.regs.rdi) {
      r->t.regs.r10 |= MREMAP_MAYMOVE | MREMAP_FIXED;
      r->t.regs.r8 = (uint64_t)r->ev.result;
      if (task_set_regs(&r->t, &r->t.regs) < 0) return -1;
    }
    return finish_executed(r, "mremap", true);
  case SYS_rt_sigaction: case SYS_rt_sigprocmask: case SYS_sigaltstack:
    return finish_executed(r, d->name, true); /* the kernel keeps the program's signal state */
  case SYS_rt_sigreturn:
    return finish_executed(r, d->name, false); /* restores every register from the frame */
  case SYS_rt_sigsuspend: {
    /* Runs for real so its temporary mask applies; the signal that ended it is sent
     * first, so it returns at once. */
    int sig = next_injected_signal(r);
    if (!sig) return diverge(r, "rt_sigsuspend is not followed by the signal that ended it");
    queue_signal(r, sig);
    return finish_executed(r, d->name, true);
  }
  }
  if (d->replay == SC_EXECUTE) return finish_executed(r, d->name, true);
  return emulate(r);
}

static int replay_insn(struct replayer *r) {
  struct stop st;
  char buf[256];
  if (run(r, &st) < 0) return -1;
  if (st.kind != STOP_SIGNAL || st.sig != SIGSEGV)
    return diverge(r, "expected a trapped instruction at 0x%llx, found %s", r->ev.regs.rip, stop_desc(&st, buf, sizeof buf));
  int rc = expect_regs(r, &r->ev.regs);
  if (rc) return rc;
  return task_set_regs(&r->t, &r->ev.regs_after) < 0 ? -1 : 0;
}

/* A SIGBUS from touching a file mapping past the end of its file (truncated during the
 * recording): replay maps a private copy of the file as it was, so the fault does not
 * recur by itself. The page is made inaccessible until the program touches it, and the
 * resulting SIGSEGV is turned into the recorded SIGBUS. */
static int replay_bus_error(struct replayer *r, const siginfo_t *si) {
  struct stop st;
  char buf[256];
  uint64_t page = (uint64_t)si->si_addr & ~4095ull;
  struct proc_mapping m;
  if (r->sig || !r->gadget || proc_mapping_find(r->t.tid, page, &m) < 0)
    return diverge(r, "cannot reproduce the bus error at %p", si->si_addr);
  uint64_t args[6] = {page, 4096, PROT_NONE, 0, 0, 0};
  bool ok;
  if (task_inject_syscall(&r->t, false, r->gadget, SYS_mprotect, args, &ok) != 0 || !ok)
    return diverge(r, "cannot protect the page at 0x%" PRIx64 " to reproduce a bus error", page);
  if (run(r, &st) < 0) return -1;
  if (st.kind != STOP_SIGNAL || st.sig != SIGSEGV)
    return diverge(r, "expected a bus error at %p, found %s", si->si_addr, stop_desc(&st, buf, sizeof buf));
  int rc = expect_regs(r, &r->ev.regs);
  if (rc) return rc;
  args[2] = (uint64_t)m.prot;
  if (task_inject_syscall(&r->t, false, r->gadget, SYS_mprotect, args, &ok) != 0 || !ok)
    return diverge(r, "cannot restore the page at 0x%" PRIx64 " after a bus error", page);
  queue_signal(r, SIGBUS);
  if (run(r, &st) < 0) return -1;
  r->queued_sig = 0;
  if (st.kind != STOP_SIGNAL || st.sig != SIGBUS || ptrace(PTRACE_SETSIGINFO, r->t.tid, 0, si) < 0)
    return diverge(r, "expected the reproduced bus error, found %s", stop_desc(&st, buf, sizeof buf));
  r->sig = SIGBUS;
  return 0;
}

static int replay_signal(struct replayer *r) {
  siginfo_t si;
  memcpy(&si, r->ev.siginfo, sizeof si);
  if (r->ev.signo == SIGBUS && si.si_code == BUS_ADRERR) return replay_bus_error(r, &si);
  struct stop st;
  char buf[256];
  bool sync = signal_is_synchronous(r->ev.signo, r->ev.siginfo);
  if (!sync) queue_signal(r, r->ev.signo);
  if (run(r, &st) < 0) return -1;
  if (st.kind != STOP_SIGNAL || st.sig != r->ev.signo)
    return diverge(r, "expected signal %s, found %s", strsignal(r->ev.signo), stop_desc(&st, buf, sizeof buf));
  if (!sync) {
    r->queued_sig = 0;
    if (ptrace(PTRACE_SETSIGINFO, r->t.tid, 0, &si) < 0)
      return diverge(r, "cannot set the recorded siginfo: %s", strerror(errno));
  }
  int rc = expect_regs(r, &r->ev.regs);
  if (rc) return rc;
  r->sig = r->ev.signo;
  return 0;
}

static int replay_exit(struct replayer *r) {
  struct stop st;
  char buf[256], want[256];
  if (run(r, &st) < 0) return -1;
  if (st.kind != STOP_EXITED && WIFSIGNALED(r->ev.status) && WTERMSIG(r->ev.status) == SIGKILL) {
    /* SIGKILL gives no stop to replay it at: the program was killed here. */
    kill(r->t.tid, SIGKILL);
    while (st.kind != STOP_EXITED)
      if (task_wait(&r->t, &st) < 0) return -1;
  }
  /* Whether a core was dumped depends on limits, not on the execution. */
  if (st.kind != STOP_EXITED || (st.status & ~0x80) != (r->ev.status & ~0x80)) {
    struct stop w = {.kind = STOP_EXITED, .status = r->ev.status};
    return diverge(r, "expected %s, found %s", stop_desc(&w, want, sizeof want), stop_desc(&st, buf, sizeof buf));
  }
  r->t.tid = 0;
  return 0;
}

/* At the PTRACE_EVENT_EXEC stop: runs to the end of execve and makes the new image the
 * recorded one: the recorded stack (argv, envp, auxv, AT_RANDOM bytes) and registers. */
static int apply_exec(struct replayer *r) {
  struct stop st;
  char buf[256];
  if (run(r, &st) < 0) return -1;
  if (st.kind != STOP_SYSCALL_EXIT) return diverge(r, "execve did not return; found %s", stop_desc(&st, buf, sizeof buf));
  if (task_open_mem(&r->t) < 0) return diverge(r, "cannot open the memory of task %d: %s", r->t.tid, strerror(errno));
  if (exec_image_enable_cpuid_faulting(&r->t) < 0) return diverge(r, "cannot turn on cpuid faulting");
  if (task_get_regs(&r->t) < 0) return -1;
  uint64_t sp = r->t.regs.rsp, want = r->ev.stack_addr, end = want + r->ev.stack_len;
  if (proc_mapping_end(r->t.tid, want) < end || proc_mapping_end(r->t.tid, sp) < end)
    return diverge(r, "the recorded initial stack 0x%" PRIx64 "-0x%" PRIx64 " does not fit the replayed stack", want, end);
  if (sp < want) {
    size_t gap = want - sp;
    uint8_t *zero = xcalloc(1, gap);
    int rc = task_write_mem(&r->t, sp, zero, gap);
    free(zero);
    if (rc < 0) return diverge(r, "cannot clear the replayed stack: %s", strerror(errno));
  }
  if (task_write_mem(&r->t, want, r->ev.stack, r->ev.stack_len) < 0)
    return diverge(r, "cannot write the recorded initial stack: %s", strerror(errno));
  r->gadget = proc_syscall_gadget(r->t.tid, r->t.mem_fd);
  return task_set_regs(&r->t, &r->ev.regs) < 0 ? -1 : 0;
}

/* The recorded argv and envp as NULL-terminated arrays pointing into the event. */
static char **exec_vectors(const struct event *ev, char ***envp) {
  char **v = xcalloc(ev->argc + ev->envc + 2, sizeof *v);
  const char *s = ev->strings;
  for (uint32_t i = 0; i < ev->argc + ev->envc; i++) {
    v[i + (i >= ev->argc)] = (char *)s;
    s += strlen(s) + 1;
  }
  *envp = v + ev->argc + 1;
  return v;
}

/* A later execve by the program: it runs the preserved copy with the recorded vectors. */
static int replay_exec(struct replayer *r) {
  struct stop st;
  char buf[256];
  if (run(r, &st) < 0) return -1;
  if (st.kind != STOP_SYSCALL_ENTRY || task_get_regs(&r->t) < 0 ||
      (r->t.regs.orig_rax != SYS_execve && r->t.regs.orig_rax != SYS_execveat))
    return diverge(r, "expected execve, found %s", stop_desc(&st, buf, sizeof buf));
  /* Lay out path, argv and envp below the red zone; the old image is discarded anyway. */
  char *path = xasprintf("%s/files/%s", r->o->trace_dir, r->ev.file);
  char **envp, **argv = exec_vectors(&r->ev, &envp);
  uint32_t nptr = r->ev.argc + r->ev.envc + 2;
  size_t plen = strlen(path) + 1;
  uint64_t base = (r->t.regs.rsp - 256 - plen - r->ev.strings_len - nptr * 8) & ~15ull;
  uint64_t *ptrs = xcalloc(nptr, 8);
  uint64_t strs = base + nptr * 8;
  for (uint32_t i = 0; i < nptr; i++) ptrs[i] = argv[i] ? strs + (uint64_t)(argv[i] - r->ev.strings) : 0;
  int rc = 0;
  if (task_write_mem(&r->t, base, ptrs, nptr * 8) < 0 ||
      task_write_mem(&r->t, strs, r->ev.strings, r->ev.strings_len) < 0 ||
      task_write_mem(&r->t, strs + r->ev.strings_len, path, plen) < 0) {
    rc = diverge(r, "cannot prepare execve of %s: %s", path, strerror(errno));
  } else {
    struct user_regs_struct regs = r->t.regs;
    regs.orig_rax = SYS_execve;
    regs.rdi = strs + r->ev.strings_len;
    regs.rsi = base;
    regs.rdx = base + (r->ev.argc + 1) * 8;
    if (task_set_regs(&r->t, &regs) < 0 || run(r, &st) < 0) rc = -1;
    else if (st.kind != STOP_EVENT || st.event != PTRACE_EVENT_EXEC)
      rc = diverge(r, "execve of the preserved %s failed; found %s", path, stop_desc(&st, buf, sizeof buf));
    else
      rc = apply_exec(r);
  }
  free(ptrs);
  free(argv);
  free(path);
  return rc;
}

static int start_program(struct replayer *r) {
  char *path = xasprintf("%s/files/%s", r->o->trace_dir, r->ev.file);
  if (access(path, X_OK) < 0) {
    deja_msg("%s: the preserved program is missing or not executable (%s); the trace is incomplete", path, strerror(errno));
    free(path);
    return REPLAY_BAD_TRACE;
  }
  char **envp, **argv = exec_vectors(&r->ev, &envp);
  pid_t pid = fork();
  if (pid == 0) {
    personality(ADDR_NO_RANDOMIZE);
    prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core); /* a replayed crash must not write a core file */
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, 0);
    raise(SIGSTOP);
    execve(path, argv, envp);
    _exit(127);
  }
  free(argv);
  free(path);
  int ws;
  if (pid < 0 || waitpid(pid, &ws, WUNTRACED) < 0 || !WIFSTOPPED(ws)) {
    deja_msg("cannot start the replayed program: %s", strerror(errno));
    return REPLAY_BAD_TRACE;
  }
  long opts = PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC;
  if (ptrace(PTRACE_SEIZE, pid, 0, (void *)opts) < 0) {
    deja_msg("cannot trace the replayed program (ptrace: %s)", strerror(errno));
    kill(pid, SIGKILL);
    return REPLAY_BAD_TRACE;
  }
  kill(pid, SIGCONT);
  r->t.tid = pid;
  r->rec_pid = r->ev.tid;
  for (;;) {
    struct stop st;
    if (task_wait(&r->t, &st) < 0) return REPLAY_BAD_TRACE;
    if (st.kind == STOP_EXITED) {
      r->t.tid = 0;
      return diverge(r, "the preserved program could not be started");
    }
    if (st.kind == STOP_EVENT && st.event == PTRACE_EVENT_EXEC) break;
    task_resume(&r->t, PTRACE_CONT, 0);
  }
  return apply_exec(r);
}

static int replay_loop(struct replayer *r) {
  int n = next_event(r);
  if (n <= 0) {
    if (n == 0) deja_msg("%s holds no events: the recording never started", r->events_path);
    return REPLAY_BAD_TRACE;
  }
  if (r->ev.kind != EV_EXEC) {
    deja_msg("%s: the first event is %s, not exec", r->events_path, event_kind_name(r->ev.kind));
    return REPLAY_BAD_TRACE;
  }
  int rc = start_program(r);
  while (rc == 0) {
    n = next_event(r);
    if (n < 0) return REPLAY_BAD_TRACE;
    if (n == 0) break;
    if (!r->t.tid) return diverge(r, "the trace goes on after the program ended");
    switch (r->ev.kind) {
    case EV_SYSCALL: rc = replay_syscall(r); break;
    case EV_INSN: rc = replay_insn(r); break;
    case EV_SIGNAL: rc = replay_signal(r); break;
    case EV_EXEC: rc = replay_exec(r); break;
    case EV_EXIT: rc = replay_exit(r); break;
    case EV_ABORT:
      deja_msg("the recording was stopped at event %" PRIu64 ": %s", r->evno, r->ev.message);
      deja_msg("replayed everything recorded before it");
      return REPLAY_OK;
    }
  }
  if (rc < 0) return REPLAY_DIVERGED;
  if (rc) return rc;
  if (!trace_reader_complete(r->rd)) {
    deja_msg("%s ends after event %" PRIu64 " without an end marker: the recorder was killed; replayed everything it saved",
             r->events_path, r->evno);
  } else if (r->t.tid) {
    deja_msg("%s ends before the program did (after event %" PRIu64 "); replayed everything it holds", r->events_path, r->evno);
  }
  return REPLAY_OK;
}

int replay_run(const struct replay_options *o) {
  struct replayer r = {.o = o, .t = {.mem_fd = -1}};
  event_init(&r.ev);
  event_init(&r.peek);
  tbuf_init(&r.cur_rec);
  tbuf_init(&r.peek_rec);
  r.events_path = xasprintf("%s/events", o->trace_dir);
  char err[512];
  int rc;
  r.rd = trace_reader_open(r.events_path, 1, err, sizeof err);
  if (!r.rd) {
    deja_msg("%s", err);
    rc = REPLAY_BAD_TRACE;
  } else {
    rc = replay_loop(&r);
  }
  if (r.t.tid > 0) {
    kill(r.t.tid, SIGKILL);
    waitpid(r.t.tid, NULL, __WALL);
  }
  task_close(&r.t);
  if (r.rd) trace_reader_close(r.rd);
  event_free(&r.ev);
  event_free(&r.peek);
  tbuf_free(&r.cur_rec);
  tbuf_free(&r.peek_rec);
  free(r.events_path);
  return rc;
}
