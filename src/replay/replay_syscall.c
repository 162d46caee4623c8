/* Replaying system calls: skipped with their recorded results, or executed at the
 * recorded addresses when they shape the address space or the task tree. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/log.h"
#include "replay/replayer_internal.h"
#include "syscalls/syscall_table.h"
#include "task/exec_image.h"
#include "task/proc_maps.h"

#ifndef MREMAP_FIXED
#define MREMAP_FIXED 2
#endif
#ifndef MREMAP_MAYMOVE
#define MREMAP_MAYMOVE 1
#endif
#define CLONE_THREAD_FLAG 0x10000
#define CLONE_CHILD_SETTID_FLAG 0x1000000

#define ERESTARTSYS 512
#define ERESTART_RESTARTBLOCK 516

static void reproduce_output(struct replayer *r) {
  if (r->o->quiet || !r->ev.out_to)
    return;
  int fd = r->ev.out_to == OUT_TO_STDERR ? 2 : 1;
  for (uint32_t done = 0; done < r->ev.out_len;) {
    ssize_t n = write(fd, r->ev.out_data + done, r->ev.out_len - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return;
    done += (uint32_t)n;
  }
}

/* Copies S to the program's stack below the red zone and injects a call using it as
 * argument STR_ARG; the stack bytes are restored afterwards. */
static int64_t inject_with_string(struct rptask *x, bool at_entry, uint64_t insn, long nr,
                                  uint64_t args[6], int str_arg, const char *s, bool *ok) {
  size_t len = strlen(s) + 1;
  uint64_t at = (x->t.regs.rsp - 256 - len) & ~15ull;
  char *saved = xmalloc(len);
  *ok = false;
  int64_t res = -EFAULT;
  if (task_read_mem(&x->t, at, saved, len) == 0 && task_write_mem(&x->t, at, s, len) == 0) {
    args[str_arg] = at;
    res = task_inject_syscall(&x->t, at_entry, insn, nr, args, ok);
    task_write_mem(&x->t, at, saved, len);
  }
  free(saved);
  return res;
}

/* Runs the pending call (possibly with changed arguments) to its exit stop and checks
 * its result. RESTORE_ARGS puts back argument registers replay changed. */
static int finish_executed(struct replayer *r, struct rptask *x, const char *name,
                           bool restore_args) {
  struct stop st;
  char buf[256];
  if (run_task(r, x, &st) < 0)
    return -1;
  if (st.kind != STOP_SYSCALL_EXIT)
    return diverge(r, "%s did not return; found %s", name, stop_desc(&st, buf, sizeof buf));
  if (task_get_regs(&x->t) < 0)
    return -1;
  struct user_regs_struct back = x->t.regs;
  if (restore_args) {
    /* The kernel preserves argument registers: replay's changes must not leak. */
    for (int i = 0; i < 6; i++)
      regs_set_arg(&back, i, regs_arg(&r->ev.regs, i));
    back.orig_rax = r->ev.regs.orig_rax;
  }
  if (back.orig_rax == SYS_set_tid_address)
    back.rax = (uint64_t)r->ev.result; /* a tid: the recorded one */
  if (task_set_regs(&x->t, &back) < 0)
    return -1;
  if ((int64_t)back.rax != r->ev.result)
    return diverge(
        r, "%s returned %" PRId64 " (0x%" PRIx64 "), recorded %" PRId64 " (0x%" PRIx64 ")", name,
        (int64_t)back.rax, (uint64_t)back.rax, r->ev.result, (uint64_t)r->ev.result);
  return write_back_memory(r, x);
}

/* A preserved file the trace names but does not hold: the trace is incomplete (exit 1),
 * not a divergence. */
static int missing_file(struct replayer *r, const char *name) {
  char *path = xasprintf("%s/files/%s", r->o->trace_dir, name);
  int rc = 0;
  if (access(path, R_OK) < 0) {
    deja_msg(
        "%s: a file the program mapped is missing from the trace (%s); the trace is incomplete",
        path, strerror(errno));
    rc = REPLAY_BAD_TRACE;
  }
  free(path);
  return rc;
}

/* The file a MAP_SHARED mapping maps in replay: a writable copy of the preserved file,
 * one per file for the whole replay, so processes sharing it see each other's writes
 * (the trace's own copy is never written). NULL on failure (reported). */
static char *shared_copy(struct replayer *r) {
  if (!r->shared_dir) {
    const char *tmp = getenv("TMPDIR");
    r->shared_dir = xasprintf("%s/deja-replay-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(r->shared_dir)) {
      deja_msg("cannot create a directory for shared file mappings (%s): %s", r->shared_dir,
               strerror(errno));
      free(r->shared_dir);
      r->shared_dir = NULL;
      return NULL;
    }
  }
  char *copy = xasprintf("%s/%s", r->shared_dir, r->ev.file);
  if (access(copy, F_OK) == 0)
    return copy;
  char *src = xasprintf("%s/files/%s", r->o->trace_dir, r->ev.file);
  int in = open(src, O_RDONLY | O_CLOEXEC),
      out = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  char buf[1 << 16];
  ssize_t n = 0;
  while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
    if (write(out, buf, (size_t)n) != n)
      n = -1;
  if (in < 0 || out < 0 || n < 0) {
    deja_msg("cannot copy %s for a shared mapping: %s", src, strerror(errno));
    free(copy);
    copy = NULL;
  }
  if (in >= 0)
    close(in);
  if (out >= 0)
    close(out);
  free(src);
  return copy;
}

static int replay_mmap(struct replayer *r, struct rptask *x) {
  struct user_regs_struct regs = x->t.regs;
  int fd = -1;
  if (r->ev.file[0]) {
    bool shared = (regs.r10 & (MAP_SHARED | MAP_PRIVATE)) != MAP_PRIVATE;
    int missing = missing_file(r, r->ev.file);
    if (missing)
      return missing;
    char *path = shared ? shared_copy(r) : xasprintf("%s/files/%s", r->o->trace_dir, r->ev.file);
    if (!path)
      return diverge(r, "cannot prepare the shared file mapping of %s", r->ev.file);
    uint64_t args[6] = {(uint64_t)AT_FDCWD, 0, (shared ? O_RDWR : O_RDONLY) | O_CLOEXEC, 0, 0, 0};
    bool ok;
    int64_t res = inject_with_string(x, true, 0, SYS_openat, args, 1, path, &ok);
    if (!ok || res < 0) {
      int rc = diverge(r, "cannot open the preserved file %s in the program: %s", path,
                       strerror((int)-res));
      free(path);
      return rc;
    }
    free(path);
    fd = (int)res;
    regs.r8 = (uint64_t)fd;
    /* MAP_SHARED_VALIDATE flags were checked when recording */
    regs.r10 =
        (regs.r10 & ~(uint64_t)(MAP_SHARED | MAP_PRIVATE)) | (shared ? MAP_SHARED : MAP_PRIVATE);
  }
  if (r->ev.flags & EVF_DEV_ZERO) {
    regs.r10 |= MAP_ANONYMOUS;
    regs.r8 = (uint64_t)-1;
  }
  regs.rdi = (uint64_t)r->ev.result;
  regs.r10 |= MAP_FIXED;
  if (task_set_regs(&x->t, &regs) < 0)
    return -1;
  int rc = finish_executed(r, x, "mmap", true);
  if (rc == 0 && fd >= 0) {
    uint64_t args[6] = {(uint64_t)fd, 0, 0, 0, 0, 0};
    bool ok;
    task_inject_syscall(&x->t, false, x->t.regs.rip - 2, SYS_close, args, &ok);
    if (!ok)
      return diverge(r, "cannot close the preserved file's descriptor %d", fd);
  }
  return rc;
}

int replay_reenter(struct replayer *r, struct rptask *x) {
  if (!x->sysemu_entry)
    return 0;
  x->sysemu_entry = false;
  if (task_get_regs(&x->t) < 0)
    return -1;
  struct user_regs_struct regs = x->t.regs;
  regs.rip -= 2;
  regs.rax = regs.orig_rax;
  if (task_set_regs(&x->t, &regs) < 0)
    return -1;
  for (;;) { /* the skipped call's exit is reported too: passed over */
    struct stop st;
    char buf[256];
    if (task_resume(&x->t, PTRACE_SYSCALL, 0) < 0 || task_wait(&x->t, &st) < 0)
      return -1;
    if (st.kind == STOP_SYSCALL_ENTRY)
      break;
    if (st.kind != STOP_SYSCALL_EXIT)
      return diverge(r, "re-entering a system call found %s", stop_desc(&st, buf, sizeof buf));
  }
  x->at_sysentry = true;
  return task_get_regs(&x->t);
}

static int emulate(struct replayer *r, struct rptask *x) {
  long nr = (long)x->t.regs.orig_rax;
  if (x->sysemu_entry) {
    /* Reached with PTRACE_SYSEMU: the kernel skips the call by itself. */
    x->sysemu_entry = false;
    x->at_sysentry = false;
  } else {
    x->t.regs.orig_rax = (uint64_t)-1; /* the kernel skips the call */
    if (task_set_regs(&x->t, &x->t.regs) < 0)
      return -1;
    struct stop st;
    char buf[256];
    if (run_task(r, x, &st) < 0)
      return -1;
    if (st.kind != STOP_SYSCALL_EXIT)
      return diverge(r, "skipped system call did not return; found %s",
                     stop_desc(&st, buf, sizeof buf));
    if (task_get_regs(&x->t) < 0)
      return -1;
  }
  /* With the call's number in orig_rax, the kernel's signal delivery restarts it or
   * turns -ERESTART* into -EINTR exactly as it did during recording. */
  x->t.regs.rax = (uint64_t)r->ev.result;
  x->t.regs.orig_rax = (uint64_t)nr;
  x->restart_pending = r->ev.result <= -ERESTARTSYS && r->ev.result >= -ERESTART_RESTARTBLOCK;
  if (task_set_regs(&x->t, &x->t.regs) < 0)
    return -1;
  int rc = write_back_memory(r, x);
  if (rc == 0)
    reproduce_output(r);
  return rc;
}

/* clone, fork, vfork, clone3 run for real; the new task gets the recorded tid wherever
 * the kernel wrote the replay one. The parent stays at its clone event stop: its call
 * returns (the recorded tid) when it next runs, after a vfork child's exec. */
static int replay_clone(struct replayer *r, struct rptask *x) {
  struct stop st;
  char buf[256];
  long nr = (long)r->ev.regs.orig_rax;
  uint64_t flags = 0, ctid = 0;
  if (nr == SYS_clone) {
    flags = r->ev.regs.rdi;
    ctid = r->ev.regs.r10;
  } else if (nr == SYS_clone3) {
    uint64_t args[3];
    if (task_read_mem(&x->t, r->ev.regs.rdi, args, sizeof args) < 0)
      return diverge(r, "cannot read clone3 arguments");
    flags = args[0];
    ctid = args[2];
  }
  if (r->ev.result < 0)
    return emulate(r, x);
  if (run_task(r, x, &st) < 0)
    return -1;
  if (st.kind != STOP_EVENT || (st.event != PTRACE_EVENT_CLONE && st.event != PTRACE_EVENT_FORK &&
                                st.event != PTRACE_EVENT_VFORK))
    return diverge(r, "%s did not create a task; found %s", syscall_name(nr),
                   stop_desc(&st, buf, sizeof buf));
  unsigned long child = 0;
  ptrace(PTRACE_GETEVENTMSG, x->t.tid, 0, &child);
  bool thread = flags & CLONE_THREAD_FLAG;
  struct rptask *c =
      replay_add_task(r, (pid_t)child, (pid_t)r->ev.result, thread ? x->pid : (pid_t)child,
                      thread ? x->rec_pid : (pid_t)r->ev.result);
  if (task_wait(&c->t, &st) < 0 || st.kind == STOP_EXITED)
    return diverge(r, "the new task %lu vanished", child);
  if (task_open_mem(&c->t) < 0)
    return diverge(r, "cannot open the memory of the new task %lu", child);
  c->gadget = x->gadget;
  memcpy(c->exe, x->exe, sizeof c->exe);
  memcpy(c->auxv, x->auxv, sizeof c->auxv);
  c->auxv_len = x->auxv_len;
  int32_t rec_tid = (int32_t)r->ev.result;
  if ((flags & CLONE_CHILD_SETTID_FLAG) && ctid && task_write_mem(&c->t, ctid, &rec_tid, 4) < 0)
    return diverge(r, "cannot write the recorded tid into the new task");
  x->fix_result = true;
  x->result = r->ev.result;
  return write_back_memory(r, x);
}

/* Whether replay_syscall executes the call (rather than skipping it). */
static bool runs_for_real(long nr, const struct syscall_desc *d, int64_t result) {
  switch (nr) {
  case SYS_exit:
  case SYS_exit_group:
  case SYS_mremap:
  case SYS_rt_sigaction:
  case SYS_rt_sigprocmask:
  case SYS_sigaltstack:
  case SYS_rt_sigreturn:
  case SYS_rt_sigsuspend: return true;
  case SYS_clone:
  case SYS_clone3:
  case SYS_fork:
  case SYS_vfork:
  case SYS_mmap:
  case SYS_shmat: return result >= 0;
  }
  return d->replay == SC_EXECUTE;
}

int replay_enter(struct replayer *r, struct rptask *x) {
  struct stop st;
  char buf[256];
  if (run_task(r, x, &st) < 0)
    return -1;
  if (st.kind != STOP_SYSCALL_ENTRY)
    return diverge(r, "expected system call %s, found %s", syscall_name((long)r->ev.regs.orig_rax),
                   stop_desc(&st, buf, sizeof buf));
  int rc = expect_regs(r, x, &r->ev.regs);
  if (rc == 0)
    x->at_entry = true;
  return rc;
}

int replay_syscall(struct replayer *r, struct rptask *x) {
  long nr = (long)r->ev.regs.orig_rax;
  if (!x->at_entry) {
    int rc = replay_enter(r, x);
    if (rc)
      return rc;
  } else if (task_get_regs(&x->t) < 0) {
    return -1;
  }
  x->at_entry = false;
  const struct syscall_desc *d = syscall_table_lookup(nr);
  if (!d || (r->ev.flags & EVF_NOT_RUN))
    return emulate(r, x); /* unknown numbers (ENOSYS), calls a seccomp filter failed */
  if (runs_for_real(nr, d, r->ev.result)) {
    int rc = replay_reenter(r, x);
    if (rc)
      return rc;
  }
  switch (nr) {
  case SYS_exit:
  case SYS_exit_group:
    /* Runs now (an exit_group also ends the other threads); the exit event waits. */
    if (task_resume(&x->t, PTRACE_SYSCALL, 0) < 0)
      return diverge(r, "cannot resume the exiting task");
    x->exiting = true;
    return 0;
  case SYS_clone:
  case SYS_clone3:
  case SYS_fork:
  case SYS_vfork: return replay_clone(r, x);
  case SYS_mmap: return r->ev.result < 0 ? emulate(r, x) : replay_mmap(r, x);
  case SYS_shmat: return r->ev.result < 0 ? emulate(r, x) : replay_shmat(r, x);
  case SYS_mremap:
    if (r->ev.result >= 0 && (uint64_t)r->ev.result != x->t.regs.rdi) {
      x->t.regs.r10 |= MREMAP_MAYMOVE | MREMAP_FIXED;
      x->t.regs.r8 = (uint64_t)r->ev.result;
      if (task_set_regs(&x->t, &x->t.regs) < 0)
        return -1;
    }
    return finish_executed(r, x, "mremap", true);
  case SYS_rt_sigaction:
  case SYS_rt_sigprocmask:
  case SYS_sigaltstack:
    return finish_executed(r, x, d->name, true); /* the kernel keeps the program's signal state */
  case SYS_rt_sigreturn:
    return finish_executed(r, x, d->name, false); /* restores every register from the frame */
  case SYS_ppoll:
  case SYS_pselect6:
  case SYS_epoll_pwait:
  case SYS_epoll_pwait2: {
    int rc = replay_masked_wait(r, x);
    if (rc != 1)
      return rc;
    break;
  }
  case SYS_rt_sigsuspend: {
    /* Runs for real so its temporary mask applies; the signal that ended it is sent
     * first, so it returns at once. */
    int sig = next_injected_signal(r, x);
    if (!sig)
      return diverge(r, "rt_sigsuspend is not followed by the signal that ended it");
    queue_signal(x, sig);
    return finish_executed(r, x, d->name, true);
  }
  }
  if (d->replay == SC_EXECUTE)
    return finish_executed(r, x, d->name, true);
  return emulate(r, x);
}

/* Keeps the auxiliary vector of the recorded initial stack (argc, argv, NULL, envp, NULL,
 * then the auxv pairs up to AT_NULL) for gdb. */
static void save_auxv(struct rptask *x, const uint8_t *stack, uint32_t len) {
  x->auxv_len = 0;
  uint64_t w, i = 1, nulls = 0;
  for (; (i + 1) * 8 <= len && nulls < 2; i++) {
    memcpy(&w, stack + i * 8, 8);
    if (w == 0)
      nulls++;
  }
  size_t start = i * 8, end = start;
  while (end + 16 <= len) {
    memcpy(&w, stack + end, 8);
    end += 16;
    if (w == 0)
      break; /* AT_NULL */
  }
  if (end - start <= sizeof x->auxv) {
    memcpy(x->auxv, stack + start, end - start);
    x->auxv_len = end - start;
  }
}

/* The kernel mapped the system's program interpreter; the recorded one is the trace's
 * copy, mapped where it was, with its recorded writable pages. */
static int remap_interpreter(struct replayer *r, struct rptask *x) {
  int missing = missing_file(r, r->ev.interp);
  if (missing)
    return missing;
  char sys[512], exe[512];
  uint64_t maps[16][4];
  snprintf(exe, sizeof exe, "%s/files/%s", r->o->trace_dir, r->ev.file);
  int n = proc_file_mappings(x->t.tid, exe, sys, sizeof sys, maps, 16);
  bool ok;
  for (int i = 0; i < n; i++) {
    uint64_t args[6] = {maps[i][0], maps[i][1] - maps[i][0], 0, 0, 0, 0};
    if (task_inject_syscall(&x->t, false, x->gadget, SYS_munmap, args, &ok) != 0 || !ok)
      return diverge(r, "cannot unmap the system's program interpreter %s", sys);
  }
  char *path = xasprintf("%s/files/%s", r->o->trace_dir, r->ev.interp);
  uint64_t args[6] = {(uint64_t)AT_FDCWD, 0, O_RDONLY | O_CLOEXEC, 0, 0, 0};
  int64_t fd = inject_with_string(x, false, x->gadget, SYS_openat, args, 1, path, &ok);
  if (!ok || fd < 0) {
    int rc = diverge(r, "cannot open the preserved program interpreter %s: %s", path,
                     strerror((int)-fd));
    free(path);
    return rc;
  }
  free(path);
  for (uint32_t i = 0; i < r->ev.interp_count; i++) {
    uint64_t m[4]; /* unaligned in the record */
    memcpy(m, r->ev.interp_maps + i * sizeof m, sizeof m);
    uint64_t margs[6] = {m[0], m[1] - m[0], m[3], MAP_PRIVATE | MAP_FIXED, (uint64_t)fd, m[2]};
    int64_t got = task_inject_syscall(&x->t, false, x->gadget, SYS_mmap, margs, &ok);
    if (!ok || (uint64_t)got != m[0])
      return diverge(r, "cannot map the preserved program interpreter at 0x%" PRIx64, m[0]);
  }
  uint64_t cargs[6] = {(uint64_t)fd, 0, 0, 0, 0, 0};
  task_inject_syscall(&x->t, false, x->gadget, SYS_close, cargs, &ok);
  return write_back_memory(r, x);
}

/* At the PTRACE_EVENT_EXEC stop: runs to the end of execve and makes the new image the
 * recorded one: the recorded stack (argv, envp, auxv, AT_RANDOM bytes) and registers. */
int replay_apply_exec(struct replayer *r, struct rptask *x) {
  struct stop st;
  char buf[256];
  if (run_task(r, x, &st) < 0)
    return -1;
  if (st.kind != STOP_SYSCALL_EXIT)
    return diverge(r, "execve did not return; found %s", stop_desc(&st, buf, sizeof buf));
  if (task_open_mem(&x->t) < 0)
    return diverge(r, "cannot open the memory of task %d: %s", x->t.tid, strerror(errno));
  if (exec_image_enable_cpuid_faulting(&x->t) < 0)
    return diverge(r, "cannot turn on cpuid faulting");
  if (task_get_regs(&x->t) < 0)
    return -1;
  x->gadget = proc_syscall_gadget(x->t.tid, x->t.mem_fd);
  if (r->ev.interp[0] && r->ev.interp_count) {
    int rc = remap_interpreter(r, x);
    if (rc)
      return rc;
  }
  uint64_t sp = x->t.regs.rsp, want = r->ev.stack_addr, end = want + r->ev.stack_len;
  if (proc_mapping_end(x->t.tid, want) < end || proc_mapping_end(x->t.tid, sp) < end)
    return diverge(
        r, "the recorded initial stack 0x%" PRIx64 "-0x%" PRIx64 " does not fit the replayed stack",
        want, end);
  if (sp < want) {
    size_t gap = want - sp;
    uint8_t *zero = xcalloc(1, gap);
    int rc = task_write_mem(&x->t, sp, zero, gap);
    free(zero);
    if (rc < 0)
      return diverge(r, "cannot clear the replayed stack: %s", strerror(errno));
  }
  if (task_write_mem(&x->t, want, r->ev.stack, r->ev.stack_len) < 0)
    return diverge(r, "cannot write the recorded initial stack: %s", strerror(errno));
  snprintf(x->exe, sizeof x->exe, "%s/files/%s", r->o->trace_dir, r->ev.file);
  save_auxv(x, r->ev.stack, r->ev.stack_len);
  return task_set_regs(&x->t, &r->ev.regs) < 0 ? -1 : 0;
}

/* A later execve by the program: it runs the preserved copy with the recorded vectors. */
int replay_exec(struct replayer *r, struct rptask *x) {
  struct stop st;
  char buf[256];
  if (!x->at_entry && run_task(r, x, &st) < 0)
    return -1;
  x->at_entry = false;
  if (replay_reenter(r, x) != 0)
    return -1;
  if (task_get_regs(&x->t) < 0 ||
      (x->t.regs.orig_rax != SYS_execve && x->t.regs.orig_rax != SYS_execveat))
    return diverge(r, "expected execve, found %s", stop_desc(&st, buf, sizeof buf));
  /* Lay out path, argv and envp below the red zone; the old image is discarded anyway. */
  char *path = xasprintf("%s/files/%s", r->o->trace_dir, r->ev.file);
  uint32_t nptr = r->ev.argc + r->ev.envc + 2;
  size_t plen = strlen(path) + 1;
  uint64_t base = (x->t.regs.rsp - 256 - plen - r->ev.strings_len - nptr * 8) & ~15ull;
  uint64_t *ptrs = xcalloc(nptr, 8);
  uint64_t strs = base + nptr * 8;
  const char *s = r->ev.strings;
  for (uint32_t i = 0, k = 0; i < r->ev.argc + r->ev.envc; i++, k++) {
    if (i == r->ev.argc)
      k++; /* the NULL ending argv */
    ptrs[k] = strs + (uint64_t)(s - r->ev.strings);
    s += strlen(s) + 1;
  }
  int rc = 0;
  if (task_write_mem(&x->t, base, ptrs, nptr * 8) < 0 ||
      task_write_mem(&x->t, strs, r->ev.strings, r->ev.strings_len) < 0 ||
      task_write_mem(&x->t, strs + r->ev.strings_len, path, plen) < 0) {
    rc = diverge(r, "cannot prepare execve of %s: %s", path, strerror(errno));
  } else {
    struct user_regs_struct regs = x->t.regs;
    regs.orig_rax = SYS_execve;
    regs.rdi = strs + r->ev.strings_len;
    regs.rsi = base;
    regs.rdx = base + (r->ev.argc + 1) * 8;
    bool in_thread = x->rec_tid != x->rec_pid;
    if (task_set_regs(&x->t, &regs) < 0)
      rc = -1;
    else if (in_thread ? (rc = replay_exec_in_thread(r, x, &st)) != 0 : run_task(r, x, &st) < 0)
      rc = rc ? rc : -1;
    else if (st.kind != STOP_EVENT || st.event != PTRACE_EVENT_EXEC)
      rc = diverge(r, "execve of the preserved %s failed; found %s", path,
                   stop_desc(&st, buf, sizeof buf));
    else
      rc = replay_apply_exec(r, x);
  }
  free(ptrs);
  free(path);
  return rc;
}
