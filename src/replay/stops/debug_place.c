/* The breakpoints a resume puts in and takes out (see debug_internal.h). */
#include "replay/stops/debug_internal.h"

#include <inttypes.h>

#include "common/log.h"
#include "replay/engine/libc_patch.h"
#include "task/hw_caps.h"

void dbg_insert(struct replay_debug *d, struct task *t, uint64_t addr) {
  uint8_t orig, trap = 0xcc;
  for (int i = 0; i < d->run.nins; i++)
    if (d->run.ins[i].addr == addr)
      return;
  if (task_read_mem(t, addr, &orig, 1) < 0 || task_write_mem(t, addr, &trap, 1) < 0)
    return;
  d->run.ins[d->run.nins++] = (struct debug_inserted){addr, orig};
}

bool dbg_guarded(struct replay_debug *d, struct rptask *x, uint64_t addr, uint64_t len) {
  if (d->run.nguard < 0)
    d->run.nguard = libc_patch_guarded(x, d->run.guard, 4);
  for (int i = 0; i < d->run.nguard; i++)
    if (addr + len > d->run.guard[i][0] && addr < d->run.guard[i][1])
      return true;
  return false;
}

void dbg_place(struct replay_debug *d, struct rptask *x, uint64_t addr) {
  struct debug_run *r = &d->run;
  if (!dbg_guarded(d, x, addr, 1)) {
    for (int i = 0; i < r->nwant; i++)
      if (r->want[i] == addr)
        return;
    if (r->nwant < (int)(sizeof r->want / sizeof r->want[0]))
      r->want[r->nwant++] = addr;
    return;
  }
  for (int i = 0; i < r->nhw; i++)
    if (r->hw[i] == addr)
      return;
  if (r->nhw < DEBUG_MAX_WPS)
    r->hw[r->nhw++] = addr;
}

bool dbg_wanted(const struct replay_debug *d, uint64_t addr) {
  for (int i = 0; i < d->run.nwant; i++)
    if (d->run.want[i] == addr)
      return true;
  return false;
}

void dbg_arm_hw(struct replay_debug *d, struct rptask *x) {
  struct debug_run *r = &d->run;
  int armed = 0;
  for (int i = 0; i < r->nhw; i++) {
    r->hw_slot[i] = -1;
    int slot = r->dr_used;
    unsigned long dr7 = r->dr7 | 1ul << (2 * slot); /* RW and LEN 0: execution */
    if (slot < DEBUG_MAX_WPS && hw_debug_registers_work() &&
        debug_regs_set(&r->regs, x->t.tid, slot, r->hw[i]) == 0 &&
        debug_regs_set(&r->regs, x->t.tid, 7, dr7) == 0) {
      r->hw_slot[i] = slot;
      r->dr7 = dr7;
      r->dr_used++;
      armed++;
    } else if (!r->deferred_said) {
      r->deferred_said = true;
      deja_msg("note: the breakpoint at 0x%" PRIx64 " in libc is not armed until the preload "
               "library has patched libc: no debug register is free",
               r->hw[i]);
    }
  }
  r->nhw = armed ? r->nhw : 0;
}

bool dbg_hw_arrival(const struct replay_debug *d, const struct rptask *x, unsigned long dr6) {
  const struct debug_run *r = &d->run;
  for (int i = 0; i < r->nhw; i++)
    if (r->hw_slot[i] >= 0 && (dr6 & (1ul << r->hw_slot[i])) && r->hw[i] == x->t.regs.rip)
      return true;
  return false;
}

bool dbg_placed(const struct replay_debug *d, uint64_t addr) {
  const struct debug_run *r = &d->run;
  for (int i = 0; i < r->nins; i++)
    if (r->ins[i].addr == addr)
      return true;
  for (int i = 0; i < r->nhw; i++)
    if (r->hw[i] == addr && r->hw_slot[i] >= 0)
      return true;
  return false;
}

bool dbg_other_bp_in(const struct replay_debug *d, const struct rptask *x, uint64_t lo,
                     uint64_t hi) {
  for (int i = 0; i < d->breaks.nbps; i++)
    if (d->breaks.bps[i] >= lo && d->breaks.bps[i] < hi)
      return true;
  for (int j = 0; d->target.on && j < d->target.nexec; j++)
    if (d->target.exec[j] >= lo && d->target.exec[j] < hi)
      return true;
  for (uint64_t a = lo; a < hi; a++)
    if (target_bp_of(d, x, a) || probe_of(d, x, a) || trap_count_of(d, x, a) >= 0)
      return true;
  return false;
}

void dbg_remove_all(struct replay_debug *d, struct task *t) {
  jump_hook_remove(&d->run.hook, t);
  count_hooks_remove(&d->run.counts, t);
  if (d->calls)
    call_log_remove(d->calls, t);
  for (int i = d->run.nins; i-- > 0;)
    task_write_mem(t, d->run.ins[i].addr, &d->run.ins[i].orig, 1);
  d->run.nins = 0;
}
