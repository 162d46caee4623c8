/* The debugger's hooks into the replay engine, and what a client sets (debug_hooks.h). */
#include "replay/stops/debug_hooks.h"

#include <sys/syscall.h>

#include "replay/stops/debug_internal.h"
#include "replay/stops/stretch_observe.h"
#include "replay/stops/stretch_probe.h"

/* Whether X's preempted stretch ending at state point EV must run for real: a step or
 * the timeline's breakpoint target (or trap-counted addresses) in it; a breakpoint it
 * may reach (any but gdb's shared-library event breakpoint when the stretch cannot call
 * the dynamic linker's hook, stretch_observe.h); a read or access watchpoint; a write watchpoint whose bytes
 * the stretch changes (gdb reports a `watch` only when the value changed). Elsewhere
 * its end state is restored. */
static bool observes(void *ctx, struct rptask *x, const struct event *ev) {
  struct replay_debug *d = ctx;
  if (x->rec_pid != d->pid || d->blind)
    return false;
  if (d->stepping ||
      (d->target.on && (!d->target.watch || d->target.ntrapped) && d->target.tid == x->rec_tid))
    return true;
  for (int i = 0; i < d->breaks.nwps; i++)
    if (d->breaks.wps[i].type != 2 ||
        stretch_changes(x, ev, d->breaks.wps[i].addr, (uint64_t)d->breaks.wps[i].len))
      return true;
  if (d->target.on && d->target.watch &&
      (d->target.type != 2 || stretch_changes(x, ev, d->target.addr, (uint64_t)d->target.len)))
    return true;
  uint64_t reach[DEBUG_MAX_BPS];
  int n = 0;
  for (int i = 0; i < d->breaks.nbps; i++)
    if (d->breaks.bp_exec[i] >= 0 && !stretch_cannot_reach(x, ev, d->breaks.bps[i]))
      reach[n++] = d->breaks.bps[i];
  if (!n)
    return false;
  /* Breakpoints it may reach: run for real where a jump hook passes over the state
   * point's address at nearly no cost (the copy would cost as much); else tried on a
   * copy, which is quicker than a run stopping at each pass. */
  uint64_t lo, end;
  return jump_hook_fits(&d->run.hook, x, ev->regs.rip, &lo, &end) ||
         stretch_probe(x, reach, n, &ev->regs, STRETCH_MAX_PASSES) != 0;
}

static void note_write(void *ctx, struct rptask *x, uint64_t addr, uint64_t len) {
  struct replay_debug *d = ctx;
  if (x->rec_pid != d->pid || d->blind)
    return; /* another process's memory, or nothing observed */
  for (int i = 0; i < d->breaks.nwps && !d->watch_pending; i++) {
    if (d->breaks.wps[i].type == 3 ||
        addr >= d->breaks.wps[i].addr + (uint64_t)d->breaks.wps[i].len ||
        d->breaks.wps[i].addr >= addr + len)
      continue;
    fill_stop(&d->watch_stop, RSTOP_WATCHPOINT, x);
    d->watch_stop.watch_type = d->breaks.wps[i].type;
    d->watch_stop.addr = d->breaks.wps[i].addr;
    d->watch_pending = true;
  }
}

static bool syscall_entry(void *ctx, struct rptask *x, struct replay_stop *out) {
  struct replay_debug *d = ctx;
  long nr = (long)x->t.regs.orig_rax;
  if (x->rec_pid != d->pid || d->blind)
    return false;
  if (d->catches.syscalls &&
      (d->catches.any_syscall || (nr >= 0 && nr < DEBUG_NSYSCALLS && d->catches.syscall[nr]))) {
    fill_stop(out, RSTOP_SYSCALL, x);
    out->addr = (uint64_t)nr;
    return true;
  }
  /* gdb's own runs stop before the process ends, as rr's do: a process that exited cannot
   * go backwards (gdb says "The program is not being run") */
  if (nr != SYS_exit_group || !d->gdb_run)
    return false;
  fill_stop(out, RSTOP_EXITING, x); /* (going on from it finds the task at the entry) */
  return true;
}

void debug_hooks_init(struct replay_debug *d, pid_t pid) {
  memset(d, 0, sizeof *d);
  d->pid = pid;
  d->run.counter.fd = -1;
  debug_regs_init(&d->run.regs);
  count_hooks_init(&d->run.counts);
  d->hooks = (struct replay_hooks){
      .ctx = d,
      .arm = dbg_arm,
      .wait = dbg_wait,
      .disarm = dbg_disarm,
      .note_write = note_write,
      .observes = observes,
      .syscall_entry = syscall_entry,
  };
}

int debug_set_break(struct replay_debug *d, int type, uint64_t addr, int len, bool insert_it) {
  if (type == 0 || type == 1) {
    for (int i = 0; i < d->breaks.nbps; i++)
      if (d->breaks.bps[i] == addr) {
        if (!insert_it) {
          d->breaks.nbps--;
          d->breaks.bps[i] = d->breaks.bps[d->breaks.nbps];
          d->breaks.bp_exec[i] = d->breaks.bp_exec[d->breaks.nbps];
        }
        return 0;
      }
    if (!insert_it)
      return 0;
    if (d->breaks.nbps == DEBUG_MAX_BPS)
      return -1;
    d->breaks.bp_exec[d->breaks.nbps] = 0;
    d->breaks.bps[d->breaks.nbps++] = addr;
    return 0;
  }
  if (type < 2 || type > 4)
    return -1;
  for (int i = 0; i < d->breaks.nwps; i++)
    if (d->breaks.wps[i].addr == addr && d->breaks.wps[i].len == len &&
        d->breaks.wps[i].type == type) {
      if (!insert_it)
        d->breaks.wps[i] = d->breaks.wps[--d->breaks.nwps];
      return 0;
    }
  if (!insert_it)
    return 0;
  if (d->breaks.nwps == DEBUG_MAX_WPS || !(len == 1 || len == 2 || len == 4 || len == 8) ||
      addr % (uint64_t)len)
    return -1;
  d->breaks.wps[d->breaks.nwps++] = (struct debug_watch){addr, len, type};
  return 0;
}

void debug_insert_breakpoints(struct replay_debug *d, struct task *t) {
  d->run.nins = 0;
  d->run.step_end = 0;
  for (int i = 0; i < d->breaks.nbps; i++)
    dbg_insert(d, t, d->breaks.bps[i]);
}

void debug_remove_breakpoints(struct replay_debug *d, struct task *t) { dbg_remove_all(d, t); }

bool debug_is_breakpoint(const struct replay_debug *d, uint64_t addr) {
  return is_user_bp(d, addr);
}

void debug_target_set(struct replay_debug *d, const struct debug_target *t) { d->target = *t; }

const struct debug_target *debug_target(const struct replay_debug *d) { return &d->target; }

void debug_target_off(struct replay_debug *d) { d->target.on = false; }

void debug_replay_moved(struct replay_debug *d) {
  d->slice_at = 0;
  d->run.slice_sent = false;
  d->target.on = false;
  d->stepping = false;
  d->watch_pending = false;
}

uint64_t debug_step_rep(const struct replay_debug *d) { return d->run.step_rep; }

void debug_hooks_settle(struct replay_debug *d, struct replay_engine *e) {
  for (int i = 0; i < e->ntasks; i++)
    if (e->tasks[i]->rec_pid == d->pid && e->tasks[i]->gadget) {
      debug_regs_settle(&d->run.regs, e->tasks[i]);
      return;
    }
}
