/* Replaying exec events: the preserved copy of the program runs with the recorded
 * vectors, and its new image is made the recorded one. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>

#include "common/log.h"
#include "replay/engine/libc_patch.h"
#include "replay/engine/replay_calls.h"
#include "replay/events/replay_handlers.h"
#include "replay/events/replay_state_pages.h"
#include "replay/events/replay_syscallbuf.h"
#include "replay/events/replay_tsc.h"
#include "task/cpu_pin.h"
#include "task/vdso_patch.h"
#include "replay/events/replay_special.h"
#include "task/exec_image.h"
#include "task/proc_maps.h"

/* Keeps the recorded argv (as /proc/PID/cmdline shows it) for gdb. */
static void save_cmdline(struct rptask *x, const struct event *ev) {
  const char *p = ev->strings;
  for (uint32_t i = 0; i < ev->argc; i++)
    p += strlen(p) + 1;
  size_t len = (size_t)(p - ev->strings);
  x->cmdline_len = len < sizeof x->cmdline ? len : sizeof x->cmdline;
  memcpy(x->cmdline, ev->strings, x->cmdline_len);
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

/* The kernel mapped the system's program interpreter: unmapped (the recorded one is
 * the trace's copy, mapped once the image is where it was recorded). */
static int unmap_system_interpreter(struct replay_engine *e, struct rptask *x) {
  char sys[512], exe[512];
  uint64_t maps[16][4];
  snprintf(exe, sizeof exe, "%s/files/%s", e->o->trace_dir, e->ev->file);
  int n = proc_file_mappings(x->t.tid, exe, sys, sizeof sys, maps, 16);
  bool ok;
  for (int i = 0; i < n; i++) {
    uint64_t args[6] = {maps[i][0], maps[i][1] - maps[i][0], 0, 0, 0, 0};
    if (task_inject_syscall(&x->t, false, x->gadget, SYS_munmap, args, &ok) != 0 || !ok)
      return diverge(e, "cannot unmap the system's program interpreter %s", sys);
  }
  return 0;
}

/* The recorder's page for the interpreter's cpuid sites (task/cpuid_patch.h), mapped
 * where it was; its content and the patched sites are among the event's memory. */
static int map_cpuid_stub(struct replay_engine *e, struct rptask *x) {
  uint64_t at = e->ev->cpuid_stub;
  if (!at)
    return 0;
  uint64_t args[6] = {at,
                      e->ev->cpuid_stub_len,
                      PROT_READ | PROT_EXEC,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                      (uint64_t)-1,
                      0};
  bool ok;
  int64_t got = task_inject_syscall(&x->t, false, x->gadget, SYS_mmap, args, &ok);
  if (!ok || (uint64_t)got != at)
    return diverge(e, "cannot map the recorded cpuid page at 0x%" PRIx64 " (%s)", at,
                   got < 0 && got > -4096 ? strerror((int)-got) : "elsewhere");
  return 0;
}

/* The trace's copy of the program interpreter, mapped where it was, with its recorded
 * writable pages. */
static int map_interpreter(struct replay_engine *e, struct rptask *x) {
  char *path = xasprintf("%s/files/%s", e->o->trace_dir, e->ev->interp);
  uint64_t args[6] = {(uint64_t)AT_FDCWD, 0, O_RDONLY | O_CLOEXEC, 0, 0, 0};
  bool ok;
  int64_t fd = inject_with_string(x, false, x->gadget, SYS_openat, args, 1, path, &ok);
  if (!ok || fd < 0) {
    int rc = diverge(e, "cannot open the preserved program interpreter %s: %s", path,
                     strerror((int)-fd));
    free(path);
    return rc;
  }
  free(path);
  for (uint32_t i = 0; i < e->ev->interp_count; i++) {
    uint64_t m[4]; /* unaligned in the record */
    memcpy(m, e->ev->interp_maps + i * sizeof m, sizeof m);
    uint64_t margs[6] = {m[0],         m[1] - m[0], m[3], MAP_PRIVATE | MAP_FIXED_NOREPLACE,
                         (uint64_t)fd, m[2]};
    int64_t got = task_inject_syscall(&x->t, false, x->gadget, SYS_mmap, margs, &ok);
    if (!ok || (uint64_t)got != m[0])
      return diverge(e, "cannot map the preserved program interpreter at 0x%" PRIx64 " (%s)", m[0],
                     got < 0 && got > -4096 ? strerror((int)-got) : "elsewhere");
  }
  uint64_t cargs[6] = {(uint64_t)fd, 0, 0, 0, 0, 0};
  task_inject_syscall(&x->t, false, x->gadget, SYS_close, cargs, &ok);
  int rc = map_cpuid_stub(e, x);
  return rc ? rc : write_back_memory(e, x);
}

/* The image laid out as recorded: the system's interpreter out, the kernel's mappings
 * moved to their recorded places, the trace's interpreter in. */
static int lay_out_image(struct replay_engine *e, struct rptask *x) {
  bool interp = e->ev->interp[0] && e->ev->interp_count;
  int missing = interp ? missing_file(e, e->ev->interp) : 0;
  if (missing)
    return missing;
  int rc = interp ? unmap_system_interpreter(e, x) : 0;
  if (rc == 0)
    rc = replay_layout_apply(e, x);
  if (rc == 0 && interp)
    rc = map_interpreter(e, x);
  replay_brk_exec(e, x);
  return rc;
}

/* The recorded initial stack written over the stack (now at its recorded place), what
 * lies below it cleared as the kernel leaves it. */
static int write_initial_stack(struct replay_engine *e, struct rptask *x) {
  uint64_t want = e->ev->stack_addr, end = want + e->ev->stack_len;
  struct proc_mapping m;
  if (proc_mapping_find(x->t.tid, want, &m) < 0 || m.end < end)
    return diverge(
        e, "the recorded initial stack 0x%" PRIx64 "-0x%" PRIx64 " does not fit the replayed stack",
        want, end);
  if (m.start < want) {
    size_t gap = want - m.start;
    uint8_t *zero = xcalloc(1, gap);
    int rc = task_write_mem(&x->t, m.start, zero, gap);
    free(zero);
    if (rc < 0)
      return diverge(e, "cannot clear the replayed stack: %s", strerror(errno));
  }
  if (task_write_mem(&x->t, want, e->ev->stack, e->ev->stack_len) < 0)
    return diverge(e, "cannot write the recorded initial stack: %s", strerror(errno));
  return 0;
}

/* At the PTRACE_EVENT_EXEC stop: runs to the end of execve and makes the new image the
 * recorded one: its layout, the recorded stack (argv, envp, auxv, AT_RANDOM bytes) and
 * registers. */
int replay_apply_exec(struct replay_engine *e, struct rptask *x) {
  struct stop st;
  char buf[256];
  state_pages_forget_process(e->state_pages, x->rec_pid);
  x->k = (struct thread_kstate){0}; /* exec drops them all */
  x->fork_advice = false;
  x->libc_patch = LIBC_PATCH_AHEAD; /* the new image's preload patches its libc again */
  if (run_task(e, x, &st, false) < 0)
    return -1;
  if (st.kind != STOP_SYSCALL_EXIT)
    return diverge(e, "execve did not return; found %s", stop_desc(&st, buf, sizeof buf));
  if (task_open_mem(&x->t) < 0)
    return diverge(e, "cannot open the memory of task %d: %s", x->t.tid, strerror(errno));
  if (!cpu_bind_cpuid_native() && exec_image_cpuid_faulting_possible() &&
      exec_image_enable_cpuid_faulting(&x->t) < 0)
    return diverge(e, "cannot turn on cpuid faulting");
  if (task_get_regs(&x->t) < 0)
    return -1;
  x->gadget = proc_syscall_gadget(x->t.tid, x->t.mem_fd);
  save_auxv(x, e->ev->stack, e->ev->stack_len);
  int rc = lay_out_image(e, x);
  if (rc == 0)
    rc = write_initial_stack(e, x);
  if (rc)
    return rc;
  snprintf(x->exe, sizeof x->exe, "%s/files/%s", e->o->trace_dir, e->ev->file);
  save_cmdline(x, e->ev);
  if (vdso_patch_from_auxv(&x->t, x->auxv, x->auxv_len) < 0)
    return diverge(e, "the program's vDSO is not where it was recorded (another kernel?)");
  rc = replay_tsc_exec(e, x);
  if (rc)
    return rc;
  return task_set_regs(&x->t, &e->ev->regs) < 0 ? -1 : 0;
}

/* Runs the task to its execve (unless an enter event got it there). */
static int exec_run(struct replay_engine *e, struct rptask *x, struct stop *st) {
  if (x->at_entry) {
    st->kind = STOP_SYSCALL_ENTRY;
    return 0;
  }
  int rc = run_task(e, x, st, true);
  /* The buffered calls before it, while the old image is still there. */
  return rc == 0 && st->kind == STOP_SYSCALL_ENTRY ? replay_syscallbuf_check_entry(e, x) : rc;
}

/* A later execve by the program: it runs the preserved copy with the recorded vectors. */
static int exec_complete(struct replay_engine *e, struct rptask *x, const struct stop *at) {
  struct stop st = *at;
  char buf[256];
  x->at_entry = false;
  if (replay_reenter(e, x) != 0)
    return -1;
  if (task_get_regs(&x->t) < 0 ||
      (x->t.regs.orig_rax != SYS_execve && x->t.regs.orig_rax != SYS_execveat))
    return diverge(e, "expected execve, found %s", stop_desc(&st, buf, sizeof buf));
  int missing = missing_file(e, e->ev->file);
  if (missing)
    return missing;
  /* Lay out path, argv and envp below the red zone; the old image is discarded anyway. */
  char *path = xasprintf("%s/files/%s", e->o->trace_dir, e->ev->file);
  uint32_t nptr = e->ev->argc + e->ev->envc + 2;
  size_t plen = strlen(path) + 1;
  uint64_t base = (x->t.regs.rsp - 256 - plen - e->ev->strings_len - nptr * 8) & ~15ull;
  uint64_t *ptrs = xcalloc(nptr, 8);
  uint64_t strs = base + nptr * 8;
  const char *s = e->ev->strings;
  for (uint32_t i = 0, k = 0; i < e->ev->argc + e->ev->envc; i++, k++) {
    if (i == e->ev->argc)
      k++; /* the NULL ending argv */
    ptrs[k] = strs + (uint64_t)(s - e->ev->strings);
    s += strlen(s) + 1;
  }
  int rc = 0;
  if (task_write_mem(&x->t, base, ptrs, nptr * 8) < 0 ||
      task_write_mem(&x->t, strs, e->ev->strings, e->ev->strings_len) < 0 ||
      task_write_mem(&x->t, strs + e->ev->strings_len, path, plen) < 0) {
    rc = diverge(e, "cannot prepare execve of %s: %s", path, strerror(errno));
  } else {
    struct user_regs_struct regs = x->t.regs;
    regs.orig_rax = SYS_execve;
    regs.rdi = strs + e->ev->strings_len;
    regs.rsi = base;
    regs.rdx = base + (e->ev->argc + 1) * 8;
    /* Other threads die first: see replay_exec_thread.c. */
    bool in_thread = replay_exec_kills_threads(e, x);
    if (task_set_regs(&x->t, &regs) < 0)
      rc = -1;
    else if (in_thread ? (rc = replay_exec_in_thread(e, x, &st)) != 0
                       : run_task(e, x, &st, false) < 0)
      rc = rc ? rc : -1;
    else if (st.kind != STOP_EVENT || st.event != PTRACE_EVENT_EXEC)
      rc = diverge(e, "execve of the preserved %s failed; found %s", path,
                   stop_desc(&st, buf, sizeof buf));
    else
      rc = replay_apply_exec(e, x);
  }
  free(ptrs);
  free(path);
  return rc;
}

const struct event_handler replay_exec_handler = {
    .run = exec_run,
    .complete = exec_complete,
};
