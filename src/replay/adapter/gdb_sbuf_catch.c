/* `catch syscall` at the calls a program made through the system call buffer (not events:
 * the preload library takes their results from the refilled records). Each passes through
 * the library's page: the replay entry at SBUF_ENTRY_ADDR (its jump to the replay body at
 * +3: the library reads the first byte to tell a replay), returning at SBUF_UNTRACED_IP
 * (the `ret` after the recording's `syscall`) with the result in rax. While gdb catches
 * calls, deja's own breakpoints sit there, with a condition that holds only for the call
 * of the record the library is in (not its probes, lseek, poll, fstat, nor a call diverted
 * to a traced one, which is an event) and a call number gdb catches. Being breakpoints,
 * their stops are positions like any other: forwards and backwards alike. gdb is shown
 * the registers a live process has there: at the entry the pc after the `syscall`, the
 * number in orig_rax and -ENOSYS in rax; at the return the number in orig_rax.
 * The address-space calls (mmap, munmap, mprotect, brk) that replay makes for real through
 * the `syscall` at SBUF_EXEC_ADDR are not caught: a breakpoint there would be stepped over
 * as a traced system call (the engine reaches a `syscall` as a stop); gdb's console says
 * so once when it catches one of them. */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>

#include "common/log.h"
#include "preload/syscallbuf_abi.h"
#include "replay/adapter/gdb_adapter.h"

#define ENTRY (SBUF_ENTRY_ADDR + 3) /* SBUF_ENTRY_REPLAY: jmp +1; ret; jmp body */
#define RETURN SBUF_UNTRACED_IP

static struct rptask *task_of(struct gdb_adapter *a, const struct task *t) {
  for (int i = 0; i < a->s->e.ntasks; i++)
    if (a->s->e.tasks[i]->t.tid == t->tid)
      return a->s->e.tasks[i];
  return NULL;
}

/* 0 unless ADDR is one of the places: 1 the entry, 2 the return. */
static int place_of(uint64_t addr) { return addr == ENTRY ? 1 : addr == RETURN ? 2 : 0; }

/* The number of the buffered call task X (registers read) makes or returns from at ADDR,
 * or -1 when this is not the call of the record its library is in. */
static long buffered_call(struct rptask *x, uint64_t addr) {
  struct sbuf_hdr h;
  struct sbuf_rec rec;
  if (!place_of(addr) || !x->sbuf || task_read_mem(&x->t, x->sbuf, &h, sizeof h) < 0 ||
      !h.in_call || h.used > SBUF_CAPACITY - sizeof rec)
    return -1;
  uint64_t at = x->sbuf + SBUF_DATA_OFF + h.used;
  if (task_read_mem(&x->t, at, &rec, sizeof rec) < 0)
    return -1;
  const struct user_regs_struct *r = &x->t.regs;
  /* the caller pushed where the record's result is: a probe's points elsewhere */
  uint64_t result = 0, diverted = 0;
  uint64_t want = at + offsetof(struct sbuf_rec, ret);
  if (task_read_mem(&x->t, r->rsp + 8, &result, sizeof result) < 0 || result != want ||
      task_read_mem(&x->t, SBUF_DIVERT_ADDR, &diverted, sizeof diverted) < 0 || diverted == want)
    return -1;
  return rec.nr;
}

static bool caught(const struct gdb_adapter *a, long nr) {
  return a->filter.catch_syscalls &&
         (a->filter.any_syscall || (nr >= 0 && nr < GDB_NSYSCALLS && a->filter.syscalls[nr]));
}

/* The breakpoints' condition (bp_cond_native). */
static int holds(void *arg, struct task *t, uint64_t addr) {
  struct gdb_adapter *a = arg;
  struct rptask *x = task_of(a, t);
  return x && caught(a, buffered_call(x, addr));
}

/* Inserts (ON) or removes the breakpoints in process PID. */
static void place(struct gdb_adapter *a, pid_t pid, bool on) {
  uint64_t at[2] = {ENTRY, RETURN};
  for (int j = 0; j < 2; j++)
    if (gdb_follow_set_break(a, pid, 0, at[j], 1, on) < 0 ||
        bp_conds_set_native(&a->conds, pid, at[j], on ? holds : NULL, a) < 0)
      deja_msg("cannot place deja's breakpoint at 0x%lx: catch syscall misses the calls "
               "made through the system call buffer",
               (unsigned long)at[j]);
}

/* Once, when gdb catches an address-space call: the buffered ones are not caught. */
static void note_uncaught(struct gdb_adapter *a) {
  static const long nrs[] = {SYS_mmap, SYS_munmap, SYS_mprotect, SYS_brk};
  for (size_t i = 0; i < sizeof nrs / sizeof nrs[0] && !a->sbuf_told; i++)
    if (caught(a, nrs[i])) {
      deja_msg("catch syscall does not stop at the mmap, munmap, mprotect and brk calls this "
               "program made through deja's system call buffer; to catch those too, record "
               "with `deja record -n`");
      a->sbuf_told = true;
    }
}

void gdb_sbuf_catch_sync(struct gdb_adapter *a) {
  pid_t want = a->filter.catch_syscalls ? a->dbg.pid : 0;
  note_uncaught(a);
  if (want == a->sbuf_catch_pid)
    return;
  if (a->sbuf_catch_pid)
    place(a, a->sbuf_catch_pid, false);
  if (want)
    place(a, want, true);
  a->sbuf_catch_pid = want;
}

bool gdb_sbuf_catch_stop(struct gdb_adapter *a, const struct replay_stop *r, struct gdb_stop *g) {
  int where =
      r->kind == RSTOP_BREAKPOINT && r->rec_pid == a->sbuf_catch_pid ? place_of(r->addr) : 0;
  struct rptask *x = where ? engine_task(&a->s->e, r->rec_tid) : NULL;
  if (!x || task_get_regs(&x->t) < 0)
    return false;
  long nr = buffered_call(x, r->addr);
  if (!caught(a, nr))
    return false;
  stop_at(g, where == 1 ? GDB_STOP_SYSCALL_ENTRY : GDB_STOP_SYSCALL_RETURN, x, SIGTRAP);
  g->syscall_no = (int)nr;
  a->sbuf_stop = (struct sbuf_catch_stop){x->rec_tid, where == 1, nr};
  return true;
}

void gdb_sbuf_catch_regs(const struct gdb_adapter *a, pid_t tid, struct user_regs_struct *r) {
  const struct sbuf_catch_stop *s = &a->sbuf_stop;
  if (!s->tid || s->tid != tid)
    return;
  r->orig_rax = (uint64_t)s->nr;
  if (!s->entry)
    return;
  /* as the kernel shows a call at its entry: after the `syscall`, which set rcx and r11 */
  r->rip = RETURN;
  r->rcx = r->rip;
  r->r11 = r->eflags;
  r->rax = (uint64_t)-ENOSYS;
}
