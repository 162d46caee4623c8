/* Watchpoints in the debug registers and the target's writer (see debug_internal.h). */
#include "replay/stops/debug_internal.h"

#include "arch/x86_access.h"
#include "arch/x86_rep.h"
#include "arch/x86_writes.h"

int dbg_target_slot(const struct replay_debug *d) {
  if (!d->target.on || !d->target.watch)
    return -1;
  for (int i = 0; i < d->breaks.nwps; i++)
    if (d->breaks.wps[i].addr == d->target.addr && d->breaks.wps[i].len == d->target.len &&
        d->breaks.wps[i].type == d->target.type)
      return i;
  return d->breaks.nwps < DEBUG_MAX_WPS ? d->breaks.nwps : -1;
}

int dbg_watch_slots(const struct replay_debug *d) {
  return dbg_target_slot(d) == d->breaks.nwps ? d->breaks.nwps + 1 : d->breaks.nwps;
}

/* The watchpoint in data slot I (the user's, then the target's). */
static struct debug_watch slot_watch(const struct replay_debug *d, int i) {
  return i < d->breaks.nwps ? d->breaks.wps[i]
                            : (struct debug_watch){d->target.addr, d->target.len, d->target.type};
}

unsigned long dbg_write_traps(const struct replay_debug *d, struct rptask *x, unsigned long dr6) {
  unsigned long drop = 0;
  uint8_t code[X86_MAX_INSN_LEN];
  int n = d->run.regs.emulated ? 0 : dbg_watch_slots(d);
  for (int i = 0; i < n; i++) {
    struct debug_watch w = slot_watch(d, i);
    if (!(dr6 >> i & 1) || w.type != 3 || task_get_regs(&x->t) < 0 ||
        task_read_mem(&x->t, x->t.regs.rip - X86_MAX_INSN_LEN, code, sizeof code) < 0)
      continue;
    if (x86_trap_read(code, &x->t.regs, w.addr, (uint64_t)w.len) == 0)
      drop |= 1ul << i;
  }
  return drop;
}

void dbg_set_watchpoints(struct replay_debug *d, struct rptask *x) {
  struct debug_run *r = &d->run;
  unsigned long dr7 = 0;
  int n = dbg_watch_slots(d);
  /* Before-targets arm their execution breakpoints only once the trigger before theirs
   * came: an execution breakpoint next to a hot loop slows it down two or three times
   * (measured here), and the writing instruction often follows one. */
  bool exec_now = !d->target.before || d->target.early || d->target.count + 1 >= d->target.n;
  r->dr_used = n;
  /* emulated (page protection): the writer of a before-target faults on its page, its
   * other executions are not seen, so its arrivals are not counted then (`early') */
  debug_regs_exec_at_fault(&r->regs, d->target.on && d->target.before && !d->target.early &&
                                         d->target.tid == x->rec_tid);
  if (d->target.on && d->target.tid == x->rec_tid && d->target.rep_pending)
    exec_now = false; /* the writer is reached already */
  if (d->target.on && d->target.tid == x->rec_tid && exec_now)
    for (int j = 0; j < d->target.nexec && n + j < DEBUG_MAX_WPS; j++) {
      /* an execution breakpoint: RW and LEN bits 0 */
      debug_regs_set(&r->regs, x->t.tid, n + j, d->target.exec[j]);
      dr7 |= 1ul << (2 * (n + j));
      r->dr_used = n + j + 1;
    }
  unsigned reads = 0;
  for (int i = 0; i < n; i++) {
    static const unsigned len_bits[9] = {0, 0, 1, 0, 3, 0, 0, 0, 2};
    struct debug_watch w = slot_watch(d, i);
    unsigned rw = w.type == 2 ? 1 : 3;  /* x86 has no read-only watchpoints */
    reads |= w.type == 3 ? 1u << i : 0; /* (page protection can tell reads) */
    debug_regs_set(&r->regs, x->t.tid, i, w.addr);
    dr7 |= (1ul << (2 * i)) | ((unsigned long)rw << (16 + 4 * i)) |
           ((unsigned long)len_bits[w.len] << (18 + 4 * i));
  }
  debug_regs_reads_only(&r->regs, reads);
  debug_regs_set(&r->regs, x->t.tid, 7, dr7);
  r->dr7 = dr7;
}

/* The first iteration of string instruction S at X's pc that writes bytes watched in the
 * debug registers (the user's write and access watchpoints, the target's), or -1. */
static int64_t rep_watched_iteration(const struct replay_debug *d, const struct rptask *x,
                                     const struct x86_string *s) {
  int64_t first = -1;
  for (int i = 0; i <= d->breaks.nwps; i++) {
    bool target = i == d->breaks.nwps;
    if (target && !(d->target.on && d->target.watch && d->target.tid == x->rec_tid))
      break;
    struct debug_watch w = target
                               ? (struct debug_watch){d->target.addr, d->target.len, d->target.type}
                               : d->breaks.wps[i];
    int64_t k =
        w.type == 3 ? -1 : x86_string_write_iteration(s, &x->t.regs, w.addr, (uint64_t)w.len);
    if (k >= 0 && (first < 0 || k < first))
      first = k;
  }
  return first;
}

void dbg_start_rep_limit(struct replay_debug *d, struct rptask *x) {
  bool pending = d->target.on && d->target.rep_pending && d->target.tid == x->rec_tid;
  bool watched = d->breaks.nwps || (d->target.on && d->target.watch);
  if (!pending && (d->run.regs.emulated || !watched))
    return; /* (most resumes: no code read) */
  struct x86_string s;
  if (!rep_limit_decode(x, &s) || !x86_string_writes(&s)) {
    d->target.rep_pending = false;
    return;
  }
  int64_t k =
      pending ? x86_string_write_iteration(&s, &x->t.regs, d->target.addr, (uint64_t)d->target.len)
              : rep_watched_iteration(d, x, &s);
  if (k < 0) {
    d->target.rep_pending = false;
    return;
  }
  if (rep_limit_start(&d->run.rep, x, &s, pending ? (uint64_t)k : (uint64_t)k + 1))
    dbg_place(d, x, d->run.rep.end);
}

bool dbg_writes_target(const struct replay_debug *d, struct rptask *x) {
  uint8_t code[X86_MAX_INSN_LEN];
  size_t len = task_read_code(&x->t, x->t.regs.rip, code, sizeof code);
  if (d->target.type == 3 || d->target.type == 4)
    return x86_insn_touches(code, len, &x->t.regs, d->target.addr, (uint64_t)d->target.len,
                            d->target.type == 3 ? X86_TOUCH_READ : X86_TOUCH_ANY) != 0;
  return x86_insn_writes(code, len, &x->t.regs, d->target.addr, (uint64_t)d->target.len);
}

bool dbg_rep_before(struct replay_debug *d, struct rptask *x) {
  struct x86_string s;
  if (!rep_limit_decode(x, &s) ||
      x86_string_write_iteration(&s, &x->t.regs, d->target.addr, (uint64_t)d->target.len) <= 0)
    return false;
  d->target.rep_pending = true;
  return true;
}

bool dbg_rep_next_writes(const struct replay_debug *d, struct rptask *x) {
  uint8_t code[X86_MAX_INSN_LEN];
  size_t len = task_read_code(&x->t, x->t.regs.rip, code, sizeof code);
  struct x86_string s;
  return x86_string_decode(code, len, x->t.regs.rip, &s) &&
         x86_string_write_iteration(&s, &x->t.regs, d->target.addr, (uint64_t)d->target.len) == 0;
}
