/* Making system calls in the replayed program (see replay_calls.h). */
#include "replay/engine/replay_calls.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/kernel_abi.h"
#include "common/log.h"
#include "replay/engine/replay_names.h"
#include "replay/engine/replay_output.h"
#include "trace/trace_files.h"

int replay_reenter(struct replay_engine *e, struct rptask *x) {
  if (x->where != RPT_SYSEMU_ENTRY)
    return 0;
  x->where = RPT_IN_CALL;
  if (task_get_regs(&x->t) < 0)
    return -1;
  struct user_regs_struct regs = x->t.regs;
  regs_back_over_syscall(&regs);
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
      return diverge(e, "re-entering a system call found %s", stop_desc(&st, buf, sizeof buf));
  }
  return task_get_regs(&x->t);
}

/* A skipped call: its recorded result and memory. */
int replay_emulate(struct replay_engine *e, struct rptask *x) {
  long nr = (long)x->t.regs.orig_rax;
  bool vsys = PAGE_OF(x->t.regs.rip) == VSYSCALL_PAGE; /* stops where its caller goes on */
  if (vsys && (engine_leave_entry(x) < 0 || task_get_regs(&x->t) < 0))
    return -1;
  if (!vsys && !engine_sysemu_skips(x)) { /* (PTRACE_SYSEMU: the kernel skips it by itself) */
    x->t.regs.orig_rax = (uint64_t)-1;    /* the kernel skips the call */
    if (task_set_regs(&x->t, &x->t.regs) < 0)
      return -1;
    struct stop st;
    char buf[256];
    if (run_task(e, x, &st, false) < 0)
      return -1;
    if (st.kind != STOP_SYSCALL_EXIT)
      return diverge(e, "skipped system call did not return; found %s",
                     stop_desc(&st, buf, sizeof buf));
    if (task_get_regs(&x->t) < 0)
      return -1;
  }
  /* With the call's number in orig_rax, the kernel's signal delivery restarts it or
   * turns -ERESTART* into -EINTR exactly as it did during recording. */
  x->t.regs.rax = (uint64_t)e->ev->result;
  x->t.regs.orig_rax = vsys ? (uint64_t)-1 : (uint64_t)nr; /* (the kernel's emulation: -1) */
  x->restart_pending = IS_ERESTART(e->ev->result);
  if (task_set_regs(&x->t, &x->t.regs) < 0)
    return -1;
  int rc = write_back_memory(e, x);
  replay_name_call(x, e->ev);
  return rc ? rc : replay_output(e, x);
}

int64_t inject_with_string(struct rptask *x, bool at_entry, uint64_t insn, long nr,
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

int finish_executed(struct replay_engine *e, struct rptask *x, const char *name, int flags) {
  struct stop st;
  char buf[256];
  if (run_task(e, x, &st, false) < 0)
    return -1;
  if (st.kind != STOP_SYSCALL_EXIT)
    return diverge(e, "%s did not return; found %s", name, stop_desc(&st, buf, sizeof buf));
  if (task_get_regs(&x->t) < 0)
    return -1;
  struct user_regs_struct back = x->t.regs;
  if (flags & FINISH_RESTORE_ARGS) {
    /* The kernel preserves argument registers: replay's changes must not leak. */
    for (int i = 0; i < 6; i++)
      regs_set_arg(&back, i, regs_arg(&e->ev->regs, i));
    back.orig_rax = e->ev->regs.orig_rax;
  }
  if (flags & FINISH_RECORDED_RESULT)
    back.rax = (uint64_t)e->ev->result;
  /* x->t.regs was just read: most calls (munmap, mprotect, ...) leave nothing to put back */
  if (memcmp(&back, &x->t.regs, sizeof back) && task_set_regs(&x->t, &back) < 0)
    return -1;
  if ((int64_t)back.rax != e->ev->result)
    return diverge(
        e, "%s returned %" PRId64 " (0x%" PRIx64 "), recorded %" PRId64 " (0x%" PRIx64 ")", name,
        (int64_t)back.rax, (uint64_t)back.rax, e->ev->result, (uint64_t)e->ev->result);
  return write_back_memory(e, x);
}

int missing_file(struct replay_engine *e, const char *name) {
  char err[1024];
  if (trace_files_check(e->o->trace_dir, name, err, sizeof err) == 0)
    return 0;
  deja_msg("%s", err); /* missing or damaged: the trace is incomplete */
  return REPLAY_BAD_TRACE;
}
