/* brk where the kernel's brk area cannot be where it was recorded (replay_special.h):
 * ASLR placed it at random in the recording or in the replay, and moving it needs
 * CAP_SYS_RESOURCE. The recorded break is then made of anonymous mappings: growing maps
 * the new pages, shrinking unmaps them, as the kernel's brk does. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "replay/events/replay_special.h"
#include "task/proc_maps.h"

#define PAGE 4096ull

static uint64_t page_up(uint64_t a) { return (a + PAGE - 1) & ~(PAGE - 1); }

void replay_brk_exec(struct replay_engine *e, struct rptask *x) {
  uint64_t kernel = proc_start_brk(x->t.tid);
  x->brk_emulated = e->ev->has_brk && kernel != e->ev->brk_start;
  x->brk_cur = e->ev->has_brk ? e->ev->brk_start : 0;
}

/* The pending call X re-entered becomes the mapping change from break OLD to NEW: an
 * mmap of the pages added, a munmap of those removed, or nothing (number -1). */
static uint64_t change_call(struct user_regs_struct *r, uint64_t old, uint64_t new) {
  uint64_t from = page_up(old), to = page_up(new);
  r->orig_rax = (uint64_t)-1;
  if (to > from) {
    r->orig_rax = SYS_mmap;
    r->rdi = from;
    r->rsi = to - from;
    r->rdx = PROT_READ | PROT_WRITE;
    r->r10 = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE;
    r->r8 = (uint64_t)-1;
    r->r9 = 0;
    return from;
  }
  if (to < from) {
    r->orig_rax = SYS_munmap;
    r->rdi = to;
    r->rsi = from - to;
  }
  return 0;
}

int replay_brk(struct replay_engine *e, struct rptask *x, const struct syscall_desc *d) {
  if (!x->brk_emulated || d->nr != SYS_brk)
    return finish_executed(e, x, d->name, FINISH_RESTORE_ARGS);
  uint64_t want = (uint64_t)e->ev->result;
  struct user_regs_struct r = x->t.regs;
  uint64_t expect = change_call(&r, x->brk_cur, want);
  struct stop st;
  if (task_set_regs(&x->t, &r) < 0 || run_task(e, x, &st, false) < 0 || task_get_regs(&x->t) < 0)
    return -1;
  int64_t got = (int64_t)x->t.regs.rax;
  if (st.kind != STOP_SYSCALL_EXIT || (r.orig_rax != (uint64_t)-1 && (uint64_t)got != expect))
    return diverge(e, "cannot make the recorded break 0x%" PRIx64 " of task %d with %s (%s)", want,
                   x->rec_tid, r.orig_rax == SYS_mmap ? "mmap" : "munmap",
                   got < 0 && got > -4096 ? strerror((int)-got) : "not at its place");
  struct user_regs_struct back = x->t.regs; /* as at a brk's exit */
  for (int i = 0; i < 6; i++)
    regs_set_arg(&back, i, regs_arg(&e->ev->regs, i));
  back.orig_rax = e->ev->regs.orig_rax;
  back.rax = want;
  if (task_set_regs(&x->t, &back) < 0)
    return -1;
  for (int i = 0; i < e->ntasks; i++)
    if (e->tasks[i]->pid == x->pid)
      e->tasks[i]->brk_cur = want;
  return 0;
}
