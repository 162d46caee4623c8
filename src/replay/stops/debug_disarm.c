/* Telling a stop: what made it, then one handler each (see debug_internal.h). */
#include "replay/stops/debug_internal.h"

#include <signal.h>
#include <sys/ptrace.h>

/* What made a stop of a resumed task, in the order they are told apart. */
enum stop_cause {
  BY_INTERRUPT,      /* the debugger's interrupt or the slice's: its group stop */
  BY_OTHER,          /* a task of another process, or a blind run: not observed */
  BY_HOOK_INTO,      /* a branch into the jump hook's jmp: the task goes on from there */
  BY_COUNT_HOOK,     /* a counting hook reached its count: the target's arrival */
  BY_CALL_LOG_FULL,  /* the call log's buffer is full (read now): the task goes on */
  BY_REP_LIMIT,      /* a string instruction ran the iterations its run was limited to */
  BY_COUNTER,        /* a kernel counter's signal at an arrival */
  BY_COUNTER_TARGET, /* a kernel counter's signal at the target's n-th arrival */
  BY_NO_TRAP,        /* no SIGTRAP (a signal, a system call, an exit): the replay's */
  BY_RWATCH_WRITE,   /* a read watchpoint's bytes written, not read */
  BY_WRITER,         /* a before-target's execution breakpoint: a possible writer */
  BY_TRIGGER,        /* the target watchpoint's n-th trigger */
  BY_TRIGGER_NEXT,   /* inside a string store whose next iteration makes the n-th trigger */
  BY_WATCHPOINT,     /* a user's watchpoint */
  BY_TRIGGER_EARLY,  /* the target watchpoint, not its n-th trigger yet */
  BY_BREAKPOINT,     /* a breakpoint's trap: an int3, or a debug register in guarded text */
  BY_STEP,           /* a single step's trap */
  BY_PROGRAM,        /* the program's own SIGTRAP (an int3 in its code) */
};

/* What telling the stop found out, for its handler. */
struct stop_facts {
  uint64_t count_hit; /* BY_COUNT_HOOK: the address its hook counts */
  uint64_t pc;        /* a SIGTRAP: where a breakpoint that made it would be */
  bool hw_at_pc;      /* BY_BREAKPOINT: a debug register's, before the instruction ran */
  int si_code;        /* a SIGTRAP's */
  int index;          /* BY_WRITER: the execution breakpoint's; BY_WATCHPOINT: the user's */
};

/* The index of the before-target's execution breakpoint whose trap DR6 shows (X at a
 * possible writer, about to execute it), or -1. N: the slots the watchpoints use. */
static int writer_fired(const struct replay_debug *d, const struct rptask *x, unsigned long dr6,
                        int n) {
  unsigned long watch_bits = (1ul << n) - 1;
  if (!d->target.on || d->target.tid != x->rec_tid || (dr6 & watch_bits) || d->target.rep_pending)
    return -1;
  unsigned long hw_bits = 0; /* the guarded breakpoints' slots */
  for (int i = 0; i < d->run.nhw; i++)
    hw_bits |= d->run.hw_slot[i] >= 0 ? 1ul << d->run.hw_slot[i] : 0;
  for (int j = 0; j < d->target.nexec && n + j < DEBUG_MAX_WPS; j++)
    if (dr6 & ~hw_bits & (1ul << (n + j)))
      return j;
  return -1;
}

/* A SIGTRAP's cause: the debug registers' status (DR6, its rwatch traps by writes
 * dropped) and the siginfo tell it. INSERTED_AT_PC: an int3 of the resume is at F->pc.
 * The target watchpoint's triggers are counted here (and a later iteration of a string
 * store that makes the n-th noted: dbg_rep_before). */
static enum stop_cause classify_trap(struct replay_debug *d, struct rptask *x, struct stop_facts *f,
                                     bool inserted_at_pc) {
  siginfo_t si;
  memset(&si, 0, sizeof si);
  ptrace(PTRACE_GETSIGINFO, x->t.tid, 0, &si);
  f->si_code = si.si_code;
  unsigned long dr6 = debug_regs_take_dr6(&d->run.regs, x->t.tid);
  unsigned long not_read = dbg_write_traps(d, x, dr6);
  dr6 &= ~not_read;
  if (not_read && !(dr6 & (0xful | DR6_SINGLE_STEP)) && si.si_code != TRAP_TRACE)
    return BY_RWATCH_WRITE;
  int slot = dbg_target_slot(d), n = dbg_watch_slots(d);
  d->wps_fired = (unsigned)(dr6 & ((1ul << d->breaks.nwps) - 1));
  f->index = writer_fired(d, x, dr6, n);
  if (f->index >= 0)
    return BY_WRITER;
  bool target_fired = slot >= 0 && (dr6 & (1ul << slot));
  bool target_task = x->rec_tid == d->target.tid;
  if (target_fired && target_task && ++d->target.count == d->target.n)
    return BY_TRIGGER;
  if (target_fired && target_task && d->target.before && d->target.count + 1 == d->target.n &&
      !d->target.rep_pending) {
    /* inside a string store: its own later iteration may make the n-th trigger */
    if (dbg_rep_next_writes(d, x))
      return BY_TRIGGER_NEXT;
    dbg_rep_before(d, x);
  }
  for (int i = 0; i < d->breaks.nwps; i++)
    if (dr6 & (1ul << i)) {
      f->index = i;
      return BY_WATCHPOINT;
    }
  if (target_fired && !(dr6 & (DR6_SINGLE_STEP)) && si.si_code != TRAP_TRACE)
    return BY_TRIGGER_EARLY;
  f->hw_at_pc = dbg_hw_arrival(d, x, dr6); /* stopped before the instruction */
  if ((si.si_code == SI_KERNEL && inserted_at_pc) || f->hw_at_pc)
    return BY_BREAKPOINT;
  /* A single step that delivered a signal to its handler is reported at the handler's
   * first instruction by the kernel's own SIGTRAP (si_code SIGTRAP), not a debug trap. */
  bool into_handler = si.si_code == SIGTRAP && d->run.resume_req == PTRACE_SINGLESTEP;
  if (si.si_code == TRAP_TRACE || (dr6 & DR6_SINGLE_STEP) || into_handler)
    return BY_STEP;
  return BY_PROGRAM;
}

/* What made X's stop ST. On the way the hooks come out (a stop inside one is made the
 * one it stands for) and the counts of the run are added up. */
static enum stop_cause classify(struct replay_debug *d, struct rptask *x, const struct stop *st,
                                struct stop_facts *f) {
  struct debug_run *r = &d->run;
  f->pc = 0;
  f->hw_at_pc = false;
  f->si_code = 0;
  f->index = -1;
  /* the jump hook out first: a stop inside its page is made the one it stands for */
  jump_hook_remove(&r->hook, &x->t);
  enum jump_hook_seen hook_seen = jump_hook_stop(&r->hook, x, st);
  bool hook_hit = hook_seen == JUMP_HOOK_HIT;
  uint64_t count_trap = 0; /* a moved int3's stop: X is at its breakpoint */
  f->count_hit = r->counts.n || r->counts.owner ? dbg_count_hooks_done(d, x, st, &count_trap) : 0;
  /* the call log's jmps out, its records read; an entry's stop is a breakpoint's arrival */
  enum call_log_stop logged = d->calls ? call_log_stop(d->calls, x, st) : CALL_LOG_NONE;
  count_trap = logged == CALL_LOG_ARRIVAL ? x->t.regs.rip : count_trap;
  /* a string instruction's limited run: its registers as the instruction left them */
  bool rep_done = r->rep.active && r->rep.tid == x->rec_tid && rep_limit_end(&r->rep, x);
  if (r->interrupt_sent && st->kind == STOP_GROUP)
    return BY_INTERRUPT;
  if (x->rec_pid != d->pid || d->blind)
    return BY_OTHER;
  r->arrived_tid = 0; /* until this stop is found to be an arrival */
  d->wps_fired = 0;
  if (hook_seen == JUMP_HOOK_INTO)
    return BY_HOOK_INTO;
  if (f->count_hit)
    return BY_COUNT_HOOK;
  if (logged == CALL_LOG_FULL)
    return BY_CALL_LOG_FULL;
  if (rep_done)
    return BY_REP_LIMIT;
  bool inserted_at_pc = hook_hit || count_trap;
  bool trap = st->kind == STOP_SIGNAL && st->sig == SIGTRAP;
  if (trap && task_get_regs(&x->t) == 0) {
    f->pc = hook_hit || count_trap ? x->t.regs.rip : x->t.regs.rip - 1;
    for (int i = 0; i < r->nins; i++)
      if (r->ins[i].addr == f->pc)
        inserted_at_pc = true;
  }
  dbg_remove_all(d, &x->t);
  enum counted c = r->counter.fd >= 0 ? dbg_take_target_count(d, x, st) : COUNTED_NOT;
  if (c == COUNTED_NOT && r->nbp_counters)
    c = dbg_take_bp_counts(d, x, st);
  if (c != COUNTED_NOT)
    return c == COUNTED_TARGET ? BY_COUNTER_TARGET : BY_COUNTER;
  if (!trap)
    return BY_NO_TRAP;
  return classify_trap(d, x, f, inserted_at_pc);
}

static enum hook_verdict on_interrupt(struct replay_debug *d, struct rptask *x,
                                      const struct stop *st, struct replay_stop *out) {
  struct debug_run *r = &d->run;
  dbg_take_target_count(d, x, st); /* (a group stop is none of the counters' signals) */
  dbg_take_bp_counts(d, x, st);
  r->interrupt_sent = false;
  dbg_remove_all(d, &x->t);
  fill_stop(out, r->slice_sent ? RSTOP_SLICE : RSTOP_INTERRUPT, x);
  if (r->slice_sent)
    r->arrived_tid = 0; /* it ran freely since its last arrival: on one now, it arrives */
  r->slice_sent = false;
  return HOOK_STOP;
}

/* BY_COUNT_HOOK: the target's n-th arrival, or one before it the hook stopped at. */
static enum hook_verdict on_count_hook(struct replay_debug *d, struct rptask *x,
                                       const struct stop *st, const struct stop_facts *f,
                                       struct replay_stop *out) {
  dbg_remove_all(d, &x->t);
  if (d->run.nbp_counters)
    dbg_take_bp_counts(d, x, st);
  d->run.arrived_tid = x->rec_tid;
  d->run.arrived_pc = f->count_hit;
  if (!target_bp_of(d, x, f->count_hit) || d->target.count != d->target.n)
    return HOOK_AGAIN;
  fill_stop(out, RSTOP_TARGET, x);
  out->addr = f->count_hit;
  return HOOK_STOP;
}

/* A stop that is no arrival: the breakpoints out, the counters and DR6 read. */
static void take_counts(struct replay_debug *d, struct rptask *x, const struct stop *st) {
  dbg_remove_all(d, &x->t);
  if (d->run.counter.fd >= 0)
    dbg_take_target_count(d, x, st);
  if (d->run.nbp_counters)
    dbg_take_bp_counts(d, x, st);
  debug_regs_take_dr6(&d->run.regs, x->t.tid);
}

/* BY_CALL_LOG_FULL (the records are read; the task is back at the address it was at)
 * and BY_HOOK_INTO (the task is at the instruction a branch went to): not arrived, it
 * goes on. */
static enum hook_verdict on_go_on(struct replay_debug *d, struct rptask *x, const struct stop *st) {
  take_counts(d, x, st);
  return HOOK_AGAIN;
}

/* BY_REP_LIMIT: its iterations ran: just before the target's write, or on (the watched
 * write would have trapped). */
static enum hook_verdict on_rep_limit(struct replay_debug *d, struct rptask *x,
                                      const struct stop *st, struct replay_stop *out) {
  take_counts(d, x, st);
  if (!(d->target.on && d->target.rep_pending && d->target.tid == x->rec_tid))
    return HOOK_AGAIN;
  d->target.rep_pending = false;
  fill_stop(out, RSTOP_TARGET, x);
  out->addr = x->t.regs.rip;
  d->run.stepover = false;
  return HOOK_STOP;
}

/* BY_COUNTER and BY_COUNTER_TARGET (TARGET): the breakpoints counted with the target's
 * counter have their arrivals up to here too. */
static enum hook_verdict on_counter(struct replay_debug *d, struct rptask *x, const struct stop *st,
                                    bool target, struct replay_stop *out) {
  if (target) {
    fill_stop(out, RSTOP_TARGET, x);
    out->addr = d->run.arrived_pc;
  }
  if (d->run.nbp_counters)
    dbg_take_bp_counts(d, x, st);
  return target ? HOOK_STOP : HOOK_AGAIN;
}

/* BY_WRITER: the writer's arrival counted; the stop when it is about to make the n-th
 * trigger (or the string instruction is run up to the iteration before). */
static enum hook_verdict on_writer(struct replay_debug *d, struct rptask *x,
                                   const struct stop_facts *f, struct replay_stop *out) {
  d->target.exec_count[f->index]++;
  d->target.exec_last = f->index;
  if (d->target.before && d->target.count + 1 == d->target.n && dbg_writes_target(d, x)) {
    if (dbg_rep_before(d, x))
      return HOOK_AGAIN; /* on to the iteration before the write */
    fill_stop(out, RSTOP_TARGET, x);
    out->addr = x->t.regs.rip;
    return HOOK_STOP;
  }
  return HOOK_AGAIN; /* about to execute it: the kernel set RF to go on */
}

/* BY_TRIGGER (a before-target missed its writer then) and BY_TRIGGER_NEXT (AT_PC: X is
 * just before the iteration). */
static enum hook_verdict on_trigger(struct replay_debug *d, struct rptask *x, bool at_pc,
                                    struct replay_stop *out) {
  if (!at_pc)
    d->target.missed = d->target.before;
  fill_stop(out, RSTOP_TARGET, x);
  if (at_pc)
    out->addr = x->t.regs.rip;
  d->run.stepover = false;
  return HOOK_STOP;
}

static enum hook_verdict on_watchpoint(struct replay_debug *d, struct rptask *x,
                                       const struct stop_facts *f, struct replay_stop *out) {
  fill_stop(out, RSTOP_WATCHPOINT, x);
  out->watch_type = d->breaks.wps[f->index].type;
  out->addr = d->breaks.wps[f->index].addr;
  d->run.stepover = false;
  return HOOK_STOP;
}

/* BY_BREAKPOINT: X back onto the breakpoint's instruction, its arrival there counted;
 * the end of a step over a rep instruction, the target's n-th arrival, the internal
 * breakpoint or the user's. */
static enum hook_verdict on_breakpoint(struct replay_debug *d, struct rptask *x,
                                       const struct stop_facts *f, struct replay_stop *out) {
  struct debug_run *r = &d->run;
  uint64_t pc = f->pc;
  if (f->hw_at_pc) {
    pc = x->t.regs.rip;
  } else {
    x->t.regs.rip = pc; /* back onto the breakpoint's instruction */
    task_set_regs(&x->t, &x->t.regs);
  }
  if (r->step_end && pc == r->step_end && r->stepover) {
    r->stepover = false; /* over a breakpoint on a rep instruction: not arrived here yet */
    return HOOK_AGAIN;
  }
  if (r->step_end && pc == r->step_end && d->stepping && x->rec_tid == d->step_tid) {
    /* a whole rep's step done: at the next instruction, not arrived there yet */
    fill_stop(out, RSTOP_STEP, x);
    out->addr = pc;
    return HOOK_STOP;
  }
  r->arrived_tid = x->rec_tid;
  r->arrived_pc = pc;
  if (probe_of(d, x, pc))
    d->target.probe_count++;
  int tc = trap_count_of(d, x, pc);
  if (tc >= 0 && d->target.trapped_count[tc] < d->target.trap_cap)
    d->target.trapped_count[tc]++;
  if (target_bp_of(d, x, pc) && ++d->target.count == d->target.n) {
    fill_stop(out, RSTOP_TARGET, x);
    out->addr = pc;
    return HOOK_STOP;
  }
  if (!is_user_bp(d, pc) && pc != r->internal_bp)
    return HOOK_AGAIN; /* the target's breakpoint, not its n-th arrival yet */
  if (pc == r->internal_bp && !is_user_bp(d, pc))
    return HOOK_INTERNAL;
  fill_stop(out, RSTOP_BREAKPOINT, x);
  out->addr = pc;
  return HOOK_STOP;
}

/* BY_STEP: the end of gdb's step (but inside a rep instruction run whole), or of a step
 * off a breakpoint. */
static enum hook_verdict on_step(struct replay_debug *d, struct rptask *x,
                                 struct replay_stop *out) {
  if (d->run.stepover) {
    d->run.stepover = false;
    return HOOK_AGAIN;
  }
  if (!d->stepping || x->rec_tid != d->step_tid)
    return HOOK_NONE;
  if (d->run.step_rep && x->t.regs.rip == d->run.step_rep)
    return HOOK_AGAIN; /* inside a rep run whole without a debug register */
  fill_stop(out, RSTOP_STEP, x);
  out->addr = x->t.regs.rip;
  return HOOK_STOP;
}

enum hook_verdict dbg_disarm(void *ctx, struct rptask *x, const struct stop *st,
                             struct replay_stop *out) {
  struct replay_debug *d = ctx;
  struct stop_facts f;
  switch (classify(d, x, st, &f)) {
  case BY_INTERRUPT: return on_interrupt(d, x, st, out);
  case BY_OTHER: return HOOK_NONE;
  case BY_COUNT_HOOK: return on_count_hook(d, x, st, &f, out);
  case BY_HOOK_INTO: return on_go_on(d, x, st);
  case BY_CALL_LOG_FULL: return on_go_on(d, x, st);
  case BY_REP_LIMIT: return on_rep_limit(d, x, st, out);
  case BY_COUNTER: return on_counter(d, x, st, false, out);
  case BY_COUNTER_TARGET: return on_counter(d, x, st, true, out);
  case BY_NO_TRAP: d->run.stepover = false; return HOOK_NONE;
  case BY_RWATCH_WRITE: return HOOK_AGAIN;
  case BY_WRITER: return on_writer(d, x, &f, out);
  case BY_TRIGGER: return on_trigger(d, x, false, out);
  case BY_TRIGGER_NEXT: return on_trigger(d, x, true, out);
  case BY_WATCHPOINT: return on_watchpoint(d, x, &f, out);
  case BY_TRIGGER_EARLY: return HOOK_AGAIN;
  case BY_BREAKPOINT: return on_breakpoint(d, x, &f, out);
  case BY_STEP: return on_step(d, x, out);
  case BY_PROGRAM: return HOOK_NONE;
  }
  return HOOK_NONE;
}
