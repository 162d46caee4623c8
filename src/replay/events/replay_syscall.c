/* Replaying system call events: skipped with their recorded results, or executed at the
 * recorded addresses when they shape the address space or the task tree. The table row
 * of the call decides (mode and hook, syscalls/syscall_table.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/log.h"
#include "replay/engine/libc_patch.h"
#include "replay/engine/replay_calls.h"
#include "replay/events/replay_files.h"
#include "replay/events/replay_handlers.h"
#include "replay/events/replay_mapfds.h"
#include "replay/events/replay_state_pages.h"
#include "replay/events/replay_special.h"
#include "replay/events/replay_syscallbuf.h"
#include "replay/events/replay_tsc.h"
#include "syscalls/syscall_compat32.h"
#include "syscalls/syscall_table.h"

#ifndef MREMAP_FIXED
#define MREMAP_FIXED 2
#endif
#ifndef MREMAP_MAYMOVE
#define MREMAP_MAYMOVE 1
#endif
#define CLONE_THREAD_FLAG 0x10000
#define CLONE_CHILD_SETTID_FLAG 0x1000000
#define CLONE_CHILD_CLEARTID_FLAG 0x200000
#define CLONE_VM_FLAG 0x100
#define CLONE_VFORK_FLAG 0x4000

/* An mmap recorded EVF_FILE_AS_ANON, made anonymous: its memory gets the preserved
 * file's bytes (the pages past them stay zero, as in the last page of a file mapping). */
static int fill_from_file(struct replay_engine *e, struct rptask *x) {
  const struct user_regs_struct *r = &e->ev->regs;
  char *path = xasprintf("%s/files/%s", e->o->trace_dir, e->ev->file);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  uint64_t off = r->r9, len = r->rsi;
  if (fd < 0 || fstat(fd, &st) < 0 || (uint64_t)st.st_size <= off) {
    int rc = diverge(e, "cannot read the preserved file %s: %s", path,
                     fd < 0 ? strerror(errno) : "shorter than the mapping");
    if (fd >= 0)
      close(fd);
    free(path);
    return rc;
  }
  if (len > (uint64_t)st.st_size - off)
    len = (uint64_t)st.st_size - off;
  uint8_t *buf = xmalloc(len ? len : 1);
  ssize_t got = pread(fd, buf, len, (off_t)off);
  close(fd);
  int rc = 0;
  if (got != (ssize_t)len)
    rc = diverge(e, "cannot read %" PRIu64 " bytes of the preserved file %s", len, path);
  else if (task_write_mem(&x->t, (uint64_t)e->ev->result, buf, len) < 0)
    rc = diverge(e, "cannot write the content of %s into the mapping at 0x%" PRIx64 ": %s", path,
                 (uint64_t)e->ev->result, strerror(errno));
  free(buf);
  free(path);
  return rc;
}

static int replay_mmap(struct replay_engine *e, struct rptask *x) {
  struct user_regs_struct regs = x->t.regs;
  int fd = -1;
  bool as_anon = (e->ev->flags & EVF_FILE_AS_ANON) && e->ev->file[0];
  if (as_anon) {
    int missing = missing_file(e, e->ev->file);
    if (missing)
      return missing;
    regs.r10 = (regs.r10 & ~(uint64_t)(MAP_SHARED | MAP_PRIVATE)) | MAP_PRIVATE | MAP_ANONYMOUS;
    regs.r8 = (uint64_t)-1;
    regs.r9 = 0;
  } else if (e->ev->file[0]) {
    bool shared = (regs.r10 & (MAP_SHARED | MAP_PRIVATE)) != MAP_PRIVATE;
    int missing = missing_file(e, e->ev->file);
    if (missing)
      return missing;
    /* A private mapping of a file the program may write maps the working copy too, so it
     * sees the file's changes in the pages it has not written itself. */
    char *path = shared || (e->ev->flags & EVF_SHARED_COPY)
                     ? replay_shared_copy(e, e->ev->file)
                     : xasprintf("%s/files/%s", e->o->trace_dir, e->ev->file);
    if (!path)
      return diverge(e, "cannot prepare the shared file mapping of %s", e->ev->file);
    int64_t res = replay_mapfd_get(e, x, path, shared, true, 0);
    if (res < 0) {
      int rc = diverge(e, "cannot open the preserved file %s in the program: %s", path,
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
  if (e->ev->flags & EVF_DEV_ZERO) {
    regs.r10 |= MAP_ANONYMOUS;
    regs.r8 = (uint64_t)-1;
  }
  regs.rdi = (uint64_t)e->ev->result;
  regs.r10 |= MAP_FIXED;
  if (task_set_regs(&x->t, &regs) < 0)
    return -1;
  int rc = finish_executed(e, x, "mmap", FINISH_RESTORE_ARGS);
  if (rc == 0 && as_anon)
    rc = fill_from_file(e, x);
  return rc;
}

/* clone, fork, vfork, clone3 run for real; the new task gets the recorded tid wherever
 * the kernel wrote the replay one. The parent stays at its clone event stop: its call
 * returns (the recorded tid) when it next runs, after a vfork child's exec. */
static int replay_clone(struct replay_engine *e, struct rptask *x, const struct syscall_desc *d) {
  struct stop st;
  char buf[256];
  const struct event *ev = e->ev;
  uint64_t flags = 0, ctid = 0;
  if (d->nr == SYS_clone) {
    flags = ev->regs.rdi;
    ctid = ev->regs.r10;
  } else if (d->nr == SYS_clone3) {
    uint64_t args[3];
    if (task_read_mem(&x->t, ev->regs.rdi, args, sizeof args) < 0)
      return diverge(e, "cannot read clone3 arguments");
    flags = args[0];
    ctid = args[2];
  }
  if (run_task(e, x, &st, false) < 0)
    return -1;
  if (st.kind != STOP_EVENT || (st.event != PTRACE_EVENT_CLONE && st.event != PTRACE_EVENT_FORK &&
                                st.event != PTRACE_EVENT_VFORK))
    return diverge(e, "%s did not create a task; found %s", d->name,
                   stop_desc(&st, buf, sizeof buf));
  unsigned long child = 0;
  ptrace(PTRACE_GETEVENTMSG, x->t.tid, 0, &child);
  bool thread = flags & CLONE_THREAD_FLAG;
  struct rptask *c =
      engine_add_task(e, (pid_t)child, (pid_t)ev->result, thread ? x->pid : (pid_t)child,
                      thread ? x->rec_pid : (pid_t)ev->result);
  if (task_wait(&c->t, &st) < 0 || st.kind == STOP_EXITED)
    return diverge(e, "the new task %lu vanished", child);
  if (task_open_mem(&c->t) < 0)
    return diverge(e, "cannot open the memory of the new task %lu", child);
  if (!thread)
    state_pages_forget_process(e->state_pages, c->rec_pid);
  c->gadget = x->gadget;
  c->libc_patch = x->libc_patch;
  c->libc_patch_text = x->libc_patch_text;
  c->tsc = x->tsc;
  memcpy(c->exe, x->exe, sizeof c->exe);
  memcpy(c->auxv, x->auxv, sizeof c->auxv);
  c->auxv_len = x->auxv_len;
  memcpy(c->cmdline, x->cmdline, x->cmdline_len);
  c->cmdline_len = x->cmdline_len;
  memcpy(c->comm, x->comm, sizeof c->comm); /* a new thread or process has its name */
  c->comm_image = x->comm_image;
  /* the kernel state of the new thread: what the clone set; a fork keeps the
   * alternate signal stack, a thread does not */
  if (flags & CLONE_CHILD_CLEARTID_FLAG)
    c->k.tid_address = ctid;
  if ((flags & (CLONE_VM_FLAG | CLONE_VFORK_FLAG)) != CLONE_VM_FLAG) {
    c->k.ss_sp = x->k.ss_sp;
    c->k.ss_size = x->k.ss_size;
    c->k.ss_flags = x->k.ss_flags;
  }
  c->fork_advice = x->fork_advice; /* a fork keeps MADV_WIPEONFORK */
  c->brk_emulated = x->brk_emulated;
  c->brk_cur = x->brk_cur;
  int32_t rec_tid = (int32_t)ev->result;
  if ((flags & CLONE_CHILD_SETTID_FLAG) && ctid && task_write_mem(&c->t, ctid, &rec_tid, 4) < 0)
    return diverge(e, "cannot write the recorded tid into the new task");
  x->fix_result = true;
  x->result = (ev->flags & EVF_NS_PID) ? (int64_t)(ev->flags >> EVF_NS_PID_SHIFT) : ev->result;
  return write_back_memory(e, x);
}

/* exit runs now; the task's exit event waits for the exit. An exit_group that would end
 * other threads waits at its entry until the task's exit event (replay_exit.c): the
 * recorder records it at its entry, and the other threads run on until the kernel kills
 * them, so their events recorded after it must happen first. */
static int replay_exit_call(struct replay_engine *e, struct rptask *x,
                            const struct syscall_desc *d) {
  bool others = false;
  for (int i = 0; i < e->ntasks; i++)
    others |= e->tasks[i] != x && e->tasks[i]->pid == x->pid;
  if (d->nr == SYS_exit_group && others) {
    x->exiting = x->exit_deferred = true;
    return 0;
  }
  if (task_resume(&x->t, PTRACE_SYSCALL, 0) < 0)
    return diverge(e, "cannot resume the exiting task");
  x->exiting = true;
  return 0;
}

static int replay_mmap_call(struct replay_engine *e, struct rptask *x,
                            const struct syscall_desc *d) {
  (void)d;
  return replay_mmap(e, x);
}

/* Moved by the kernel: to the recorded address. A grown private file mapping maps the
 * preserved grown range over its new part (replay_files.c). */
static int replay_mremap(struct replay_engine *e, struct rptask *x, const struct syscall_desc *d) {
  if (e->ev->result >= 0 && (uint64_t)e->ev->result != x->t.regs.rdi) {
    x->t.regs.r10 |= MREMAP_MAYMOVE | MREMAP_FIXED;
    x->t.regs.r8 = (uint64_t)e->ev->result;
    if (task_set_regs(&x->t, &x->t.regs) < 0)
      return -1;
  }
  int rc = finish_executed(e, x, d->name, FINISH_RESTORE_ARGS);
  if (rc == 0 && (e->ev->flags & EVF_FILE_REMAP))
    rc = replay_remap_file_tail(e, x);
  return rc;
}

static int replay_sigreturn(struct replay_engine *e, struct rptask *x,
                            const struct syscall_desc *d) {
  return finish_executed(e, x, d->name, 0); /* restores every register from the frame */
}

/* Runs for real so its temporary mask applies; the signal that ended it is sent first,
 * so it returns at once. */
static int replay_sigsuspend(struct replay_engine *e, struct rptask *x,
                             const struct syscall_desc *d) {
  int sig = next_injected_signal(e, x);
  if (!sig)
    return diverge(e, "rt_sigsuspend is not followed by the signal that ended it");
  queue_signal(x, sig);
  return finish_executed(e, x, d->name, FINISH_RESTORE_ARGS);
}

/* munmap, madvise: run. An madvise that changes what a fork copies marks the process:
 * its checkpoints lift that advice around their fork (checkpoint_tasks.c). */
static int replay_unmap(struct replay_engine *e, struct rptask *x, const struct syscall_desc *d) {
  int rc = finish_executed(e, x, d->name, FINISH_RESTORE_ARGS);
  uint64_t advice = e->ev->regs.rdx;
  if (rc == 0 && d->nr == SYS_madvise && (advice == MADV_DONTFORK || advice == MADV_WIPEONFORK))
    for (int i = 0; i < e->ntasks; i++)
      if (e->tasks[i]->pid == x->pid)
        e->tasks[i]->fork_advice = true;
  return rc;
}

/* set_tid_address: the address is kept for checkpoints (struct thread_kstate). */
static int replay_tid_result(struct replay_engine *e, struct rptask *x,
                             const struct syscall_desc *d) {
  int rc = finish_executed(e, x, d->name, FINISH_RESTORE_ARGS | FINISH_RECORDED_RESULT);
  if (rc == 0 && d->nr == SYS_set_tid_address)
    x->k.tid_address = e->ev->regs.rdi;
  return rc;
}

static int replay_robust_list(struct replay_engine *e, struct rptask *x,
                              const struct syscall_desc *d) {
  int rc = finish_executed(e, x, d->name, FINISH_RESTORE_ARGS);
  if (rc == 0 && e->ev->result == 0) {
    x->k.robust_head = e->ev->regs.rdi;
    x->k.robust_len = e->ev->regs.rsi;
  }
  return rc;
}

/* sigaltstack: the new stack is read before the call (it may write the old one over it).
 * Not followed: SS_AUTODISARM's disarming during a handler. */
static int replay_altstack(struct replay_engine *e, struct rptask *x,
                           const struct syscall_desc *d) {
  stack_t ss;
  bool set = e->ev->regs.rdi && task_read_mem(&x->t, e->ev->regs.rdi, &ss, sizeof ss) == 0;
  int rc = finish_executed(e, x, d->name, FINISH_RESTORE_ARGS);
  if (rc == 0 && set && e->ev->result == 0) {
    bool off = ss.ss_flags & SS_DISABLE;
    x->k.ss_sp = off ? 0 : (uint64_t)(uintptr_t)ss.ss_sp;
    x->k.ss_size = off ? 0 : ss.ss_size;
    x->k.ss_flags = off ? 0 : ss.ss_flags;
  }
  return rc;
}

typedef int (*replay_hook_fn)(struct replay_engine *e, struct rptask *x,
                              const struct syscall_desc *d);

/* The table's hooks replay needs (syscalls/syscall_table.h); the others are replayed by
 * their mode. */
static const replay_hook_fn replay_hooks[SCH_COUNT] = {
    [SCH_exit] = replay_exit_call,
    [SCH_clone] = replay_clone,
    [SCH_mmap] = replay_mmap_call,
    [SCH_mremap] = replay_mremap,
    [SCH_sigreturn] = replay_sigreturn,
    [SCH_sigsuspend] = replay_sigsuspend,
    [SCH_tid_result] = replay_tid_result,
    [SCH_shmat] = replay_shmat,
    [SCH_robust_list] = replay_robust_list,
    [SCH_altstack] = replay_altstack,
    [SCH_unmap] = replay_unmap,
    [SCH_brk] = replay_brk,
};

/* Hooks for calls replay skips, deciding how (replay_emulate otherwise). */
static const replay_hook_fn replay_skip_hooks[SCH_COUNT] = {
    [SCH_masked_wait] = replay_masked_wait,
};

/* A successful change of the program's own resource limits runs for real: the stack
 * limit decides where the stack stops growing, others how far mmap and brk may go. Not
 * the core file's: replay keeps it at 0 (hard limit too), which a program raising its
 * soft limit to its recorded hard one could not do (EPERM; Python's tests do that). */
static bool sets_own_limit(const struct event *ev) {
  long nr = (long)ev->regs.orig_rax;
  bool own = nr == SYS_setrlimit || (nr == SYS_prlimit64 && ev->regs.rdi == 0 && ev->regs.rdx);
  uint64_t resource = nr == SYS_setrlimit ? ev->regs.rdi : ev->regs.rsi;
  return ev->result == 0 && own && resource != RLIMIT_CORE;
}

/* Whether replay executes the call (rather than skipping it), as its row says. */
static bool runs_for_real(const struct syscall_desc *d, const struct event *ev) {
  if (d->nr == SYS_madvise)
    return syscall_madvise_runs(ev->regs.rdx, ev->result);
  return d->replay == SC_EXECUTE || (d->replay == SC_EXECUTE_IF_OK && ev->result >= 0) ||
         sets_own_limit(ev);
}

/* Runs the task to the entry of the event's call and checks the registers there. */
static int reach_entry(struct replay_engine *e, struct rptask *x, struct stop *st) {
  char buf[256];
  if (x->at_entry)
    return task_get_regs(&x->t) < 0 ? -1 : 0; /* an enter event got there */
  const struct syscall_desc *d = syscall_table_lookup((long)e->ev->regs.orig_rax);
  bool runs =
      d && !(e->ev->flags & EVF_NOT_RUN) && !event_compat32(e->ev) && runs_for_real(d, e->ev);
  int rc = replay_syscallbuf_divert(e, x);
  if (rc == 0)
    rc = run_task_to_call(e, x, st, runs);
  if (rc)
    return rc;
  if (st->kind != STOP_SYSCALL_ENTRY)
    return diverge(e, "expected system call %s, found %s", syscall_name((long)e->ev->regs.orig_rax),
                   stop_desc(st, buf, sizeof buf));
  rc = expect_regs(e, x, &e->ev->regs);
  if (rc == 0)
    rc = replay_syscallbuf_check_entry(e, x); /* before the call: an exit ends the task */
  if (rc)
    return rc;
  x->at_entry = true;
  if (e->hooks->syscall_entry && e->hooks->syscall_entry(e->hooks->ctx, x, &e->stop))
    return REPLAY_STOPPED; /* going on finds it at the entry */
  return 0;
}

/* A 32-bit call (int $0x80) is emulated as its 64-bit twin; an exit or exit_group is
 * made again, the 32-bit call as the program made it. */
static int compat32_complete(struct replay_engine *e, struct rptask *x) {
  struct user_regs_struct twin;
  if (!syscall_compat32_view(&e->ev->regs, &twin) ||
      (twin.orig_rax != SYS_exit && twin.orig_rax != SYS_exit_group))
    return replay_emulate(e, x);
  int rc = replay_reenter(e, x);
  return rc ? rc : replay_exit_call(e, x, syscall_table_lookup((long)twin.orig_rax));
}

static int call_complete(struct replay_engine *e, struct rptask *x) {
  long nr = (long)e->ev->regs.orig_rax;
  x->at_entry = false;
  libc_patch_note_call(e->tasks, e->ntasks, x, e->ev);
  const struct syscall_desc *d = syscall_table_lookup(nr);
  if (e->ev->flags & EVF_FILE_CHANGE) { /* a file mapped MAP_SHARED changed */
    int rc = replay_file_change(e);
    if (rc)
      return rc;
  }
  if (event_compat32(e->ev))
    return compat32_complete(e, x);
  /* unknown numbers (ENOSYS), calls a seccomp filter failed */
  if (!d || (e->ev->flags & EVF_NOT_RUN))
    return replay_emulate(e, x);
  if (!runs_for_real(d, e->ev))
    return d->hook && replay_skip_hooks[d->hook] ? replay_skip_hooks[d->hook](e, x, d)
                                                 : replay_emulate(e, x);
  int rc = replay_reenter(e, x);
  if (rc)
    return rc;
  if (d->hook && replay_hooks[d->hook])
    return replay_hooks[d->hook](e, x, d);
  return finish_executed(e, x, d->name, FINISH_RESTORE_ARGS);
}

static int syscall_complete(struct replay_engine *e, struct rptask *x, const struct stop *st) {
  (void)st;
  int rc = call_complete(e, x);
  return rc ? rc : replay_tsc_call(e, x); /* where the recorder patched */
}

const struct event_handler replay_syscall_handler = {
    .run = reach_entry,
    .complete = syscall_complete,
};

/* A task entered a call that blocked while others ran: it stays at the entry. */
const struct event_handler replay_enter_handler = {
    .run = reach_entry,
};
