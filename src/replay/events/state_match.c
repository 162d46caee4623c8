/* Matching a state point by running its stretch (see state_match.h). */
#include "replay/events/state_match.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>

#include "arch/x86_rep.h"
#include "common/kernel_abi.h"
#include "common/log.h"
#include "preload/syscallbuf_abi.h"
#include "replay/engine/regs_compare.h"
#include "replay/events/replay_syscallbuf.h"

/* How far below a thread's stack pointer memory counts as dead: the frames of the calls
 * it returned from since its last buffered call (the word pushf wrote lies there). */
#define DEAD_STACK_BYTES (16u << 10)
#define MAX_SKIPS 128

struct skip {
  uint64_t lo, hi; /* [lo, hi): not compared */
};

/* The recorded pages' contents in the replay when the stretch of the state point being
 * searched began (state_match_begin), to tell the bytes its task changed since: the
 * engine's e->match_start. */
struct state_match_start {
  uint64_t event;
  pid_t tid;
  uint8_t *data; /* the event's ranges one after another */
  size_t len;
};

struct state_match_start *state_match_start_copy(const struct state_match_start *from) {
  if (!from)
    return NULL;
  struct state_match_start *b = xcalloc(1, sizeof *b);
  *b = *from;
  if (from->data) {
    b->data = xmalloc(from->len ? from->len : 1);
    memcpy(b->data, from->data, from->len);
  }
  return b;
}

void state_match_start_free(struct state_match_start *b) {
  if (b)
    free(b->data);
  free(b);
}

static bool others_ran(struct replay_engine *e, struct rptask *x);

void state_match_begin(struct replay_engine *e, struct rptask *x) {
  struct state_match_start *b = e->match_start;
  if (b && b->event == e->pos.event && b->tid == x->rec_tid)
    return; /* (a debugger stop in the middle of the stretch: it keeps the start's) */
  if (!others_ran(e, x))
    return; /* (alone in its process: every byte is compared, nothing kept) */
  if (!b)
    b = e->match_start = xcalloc(1, sizeof *b);
  size_t len = 0;
  for (uint32_t i = 0; i < e->ev->nmem; i++)
    len += e->ev->mem[i].len;
  free(b->data);
  b->data = malloc(len ? len : 1);
  b->len = len;
  b->event = e->pos.event;
  b->tid = x->rec_tid;
  size_t at = 0;
  for (uint32_t i = 0; i < e->ev->nmem && b->data; i++) {
    const struct event_mem *m = &e->ev->mem[i];
    if (task_read_mem(&x->t, m->addr, b->data + at, m->len) < 0)
      memcpy(b->data + at, m->data, m->len); /* (then never taken for another's) */
    at += m->len;
  }
  if (!b->data)
    b->event = 0;
}

/* Whether another task of X's process is replayed: in the recording it may have run at
 * the same time as X's stretch, and the recorded pages hold its writes of then. */
static bool others_ran(struct replay_engine *e, struct rptask *x) {
  for (int i = 0; i < e->ntasks; i++)
    if (e->tasks[i] && e->tasks[i] != x && e->tasks[i]->rec_pid == x->rec_pid)
      return true;
  return false;
}

bool state_match_inside_call(struct replay_engine *e, struct rptask *x) {
  const struct event *ev = e->ev;
  if (ev->regs.rip == SBUF_UNTRACED_IP)
    return true;
  /* Elsewhere (the library's code after the call), the buffer's header says so, when
   * its page is among the recorded ones (it is when `used` changed since the process's
   * previous state point). */
  uint32_t len, off;
  uint64_t evno, buf;
  if (!replay_syscallbuf_pending(e, x->rec_tid, &len, &evno, &buf, &off))
    return false;
  for (uint32_t i = 0; i < ev->nmem; i++) {
    const struct event_mem *m = &ev->mem[i];
    if (m->addr <= buf && buf + sizeof(struct sbuf_hdr) <= m->addr + m->len) {
      struct sbuf_hdr h;
      memcpy(&h, m->data + (buf - m->addr), sizeof h);
      return h.in_call != 0;
    }
  }
  return false;
}

bool state_match_call_started(struct replay_engine *e, struct rptask *x) {
  (void)e;
  uint32_t len, off;
  uint64_t evno, buf;
  /* No records refilled: the stretch completed no buffered call, so the first entry it
   * reaches belongs to the call in progress. */
  if (!replay_syscallbuf_pending(e, x->rec_tid, &len, &evno, &buf, &off))
    return true;
  struct sbuf_hdr h;
  if (task_read_mem(&x->t, buf, &h, sizeof h) < 0)
    return false;
  return h.in_call && h.used == off + len;
}

uint64_t state_match_divert_word(struct replay_engine *e, struct rptask *x) {
  uint32_t len, off;
  uint64_t evno, buf;
  const uint8_t *data = replay_syscallbuf_pending(e, x->rec_tid, &len, &evno, &buf, &off);
  uint64_t now = 0, want = buf + SBUF_DATA_OFF + off + len + offsetof(struct sbuf_rec, ret);
  if (!data || task_read_mem(&x->t, SBUF_DIVERT_ADDR, &now, sizeof now) < 0 || now == want)
    return 0;  /* no buffer known, or a restarted call is diverted already */
  return want; /* (the word may hold another thread's diverted call: put back after) */
}

bool state_match_traced_entry(const struct stop *st, const struct rptask *x) {
  return st->kind == STOP_SYSCALL_ENTRY && x->t.regs.rip == SBUF_TRACED_ENTRY_ADDR + 2;
}

/* The ranges of X's process not compared with the recorded pages. */
static int skips_of(struct replay_engine *e, struct rptask *x, struct skip *s) {
  int n = 0;
  uint32_t len, off;
  uint64_t evno, buf;
  if (replay_syscallbuf_pending(e, x->rec_tid, &len, &evno, &buf, &off)) {
    uint64_t at = buf + offsetof(struct sbuf_hdr, used);
    s[n++] = (struct skip){at, at + sizeof(uint32_t)};
  }
  for (int i = 0; i < e->ntasks && n + 2 <= MAX_SKIPS; i++) {
    struct rptask *y = e->tasks[i];
    if (!y || y->rec_pid != x->rec_pid)
      continue;
    /* what the recorder wrote into the header at the announcement (its stdout and
     * stderr), which replay does not know */
    if (y->sbuf)
      s[n++] = (struct skip){y->sbuf + offsetof(struct sbuf_hdr, out_dev), y->sbuf + SBUF_DATA_OFF};
    uint64_t sp;
    if (y == x) {
      sp = e->ev->regs.rsp; /* compared with X's own before the pages */
    } else {
      struct user_regs_struct r;
      if (ptrace(PTRACE_GETREGS, y->t.tid, 0, &r) < 0)
        continue; /* running or gone: its stack is compared in full */
      sp = r.rsp;
    }
    s[n++] = (struct skip){sp > DEAD_STACK_BYTES ? sp - DEAD_STACK_BYTES : 0, sp};
  }
  return n;
}

/* Whether LEN bytes at ADDR, LIVE in the process and WANT recorded, are equal outside S
 * and but for the bytes still as they were at the stretch's start (OLD, when not NULL). */
static bool same_outside(uint64_t addr, const uint8_t *live, const uint8_t *want, uint32_t len,
                         const struct skip *s, int n, const uint8_t *old) {
  if (!memcmp(live, want, len))
    return true;
  for (uint32_t i = 0; i < len; i++) {
    if (live[i] == want[i] || (old && live[i] == old[i]))
      continue;
    bool skipped = false;
    for (int k = 0; k < n && !skipped; k++)
      skipped = addr + i >= s[k].lo && addr + i < s[k].hi;
    if (!skipped)
      return false;
  }
  return true;
}

/* Whether the recorded pages are X's memory but for what the match passes over and
 * [LO, HI). */
static bool pages_match(struct replay_engine *e, struct rptask *x, uint64_t lo, uint64_t hi) {
  struct skip s[MAX_SKIPS + 1];
  int n = skips_of(e, x, s);
  s[n++] = (struct skip){lo, hi};
  uint8_t page[PAGE_BYTES];
  /* With other threads, a byte the task has not changed since its stretch began may
   * hold another thread's write of the recording, made while it ran at the same time
   * (replay runs the threads one after another: theirs comes at their own events; the
   * restore after the match writes it). Only the task's own bytes must match then: its
   * registers and the bytes it changed tell the pass. */
  const struct state_match_start *b = e->match_start;
  bool lenient = b && b->event == e->pos.event && b->tid == x->rec_tid && others_ran(e, x);
  size_t at = 0;
  for (uint32_t i = 0; i < e->ev->nmem; i++) {
    const struct event_mem *m = &e->ev->mem[i];
    const uint8_t *old = lenient && at + m->len <= b->len ? b->data + at : NULL;
    at += m->len;
    if (m->len > sizeof page || task_read_mem(&x->t, m->addr, page, m->len) < 0 ||
        !same_outside(m->addr, page, m->data, m->len, s, n, old))
      return false;
  }
  return true;
}

bool state_match_at(struct replay_engine *e, struct rptask *x) {
  char diff[16];
  return task_get_regs(&x->t) == 0 && !regs_differ(&e->ev->regs, &x->t.regs, diff, sizeof diff) &&
         pages_match(e, x, 0, 0);
}

bool state_match_rep_start(struct replay_engine *e, struct rptask *x) {
  const struct user_regs_struct *want = &e->ev->regs;
  /* the registers first (no read of the task's memory at the passes of the natural
   * search that stops at each one): all but the string ones the recorded */
  struct user_regs_struct others = x->t.regs;
  others.rcx = want->rcx, others.rdi = want->rdi, others.rsi = want->rsi;
  char diff[16];
  if (regs_differ(want, &others, diff, sizeof diff) || x->t.regs.rcx <= want->rcx)
    return false;
  uint8_t code[16];
  size_t n = task_read_code(&x->t, want->rip, code, sizeof code);
  struct x86_string s;
  if (!x86_string_decode(code, n, want->rip, &s) || !s.rep || s.addr32)
    return false;
  uint64_t k = x->t.regs.rcx - want->rcx, step = k * s.size;
  bool down = x->t.regs.eflags & 0x400; /* DF */
  bool uses_rdi = s.op != X86_STRING_LODS;
  bool uses_rsi = s.op == X86_STRING_MOVS || s.op == X86_STRING_CMPS || s.op == X86_STRING_LODS;
  struct user_regs_struct then = x->t.regs; /* k iterations on */
  then.rcx = want->rcx;
  if (uses_rdi)
    then.rdi = down ? then.rdi - step : then.rdi + step;
  if (uses_rsi)
    then.rsi = down ? then.rsi - step : then.rsi + step;
  if (regs_differ(want, &then, diff, sizeof diff))
    return false;
  /* The memory too (an earlier instance may have the same registers), but for what the
   * iterations before the interrupt wrote. */
  uint64_t lo = 0, hi = 0;
  if (s.op == X86_STRING_STOS || s.op == X86_STRING_MOVS) {
    lo = down ? x->t.regs.rdi - step + s.size : x->t.regs.rdi;
    hi = lo + step;
  }
  return pages_match(e, x, lo, hi);
}
