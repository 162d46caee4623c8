/* The replay side of the in-process system call buffer. The library runs the same code
 * as when recording, but the page's entry returns the result found in the record the
 * library is about to write, and the kernel's bytes are already there: deja writes a
 * task's recorded records into its buffer (EV_SBUF) before the task runs the user code
 * that made them. After the task's next event the records the library wrote are compared
 * with the recorded ones: a call with another number or other arguments is a divergence
 * that names it. */
#include "replay/events/replay_syscallbuf.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "preload/syscallbuf_abi.h"
#include "replay/events/replay_handlers.h"
#include "replay/engine/replay_output.h"
#include "replay/events/replay_shared.h"
#include "syscalls/syscall_table.h"

/* Records written into a task's buffer and not yet checked. */
struct pending {
  pid_t rec_tid;
  uint64_t buf, evno;
  uint32_t off, len;
  uint8_t *data;
  /* The call after these is diverted to the traced entry (EVF_SBUF_DIVERT): the address
   * of its record's `ret` word, which the divert word holds while it is pending; or 0. */
  uint64_t divert;
};

/* The records of every task (one set each): the engine's e->sbuf_pending. */
struct syscallbuf_pending {
  struct pending *p;
  int n, cap;
};

struct syscallbuf_pending *syscallbuf_pending_new(void) {
  return xcalloc(1, sizeof(struct syscallbuf_pending));
}

struct syscallbuf_pending *syscallbuf_pending_copy(const struct syscallbuf_pending *from) {
  struct syscallbuf_pending *set = syscallbuf_pending_new();
  int n = from->n;
  set->p = xcalloc((size_t)(n ? n : 1), sizeof *set->p);
  set->cap = n ? n : 1;
  set->n = n;
  for (int i = 0; i < n; i++) {
    set->p[i] = from->p[i];
    set->p[i].data = xmalloc(from->p[i].len ? from->p[i].len : 1);
    memcpy(set->p[i].data, from->p[i].data, from->p[i].len);
  }
  return set;
}

void syscallbuf_pending_free(struct syscallbuf_pending *set) {
  if (!set)
    return;
  for (int i = 0; i < set->n; i++)
    free(set->p[i].data);
  free(set->p);
  free(set);
}

static struct pending *find(const struct syscallbuf_pending *set, pid_t rec_tid) {
  for (int i = 0; i < set->n; i++)
    if (set->p[i].rec_tid == rec_tid)
      return &set->p[i];
  return NULL;
}

const uint8_t *replay_syscallbuf_pending(const struct replay_engine *e, pid_t rec_tid,
                                         uint32_t *len, uint64_t *evno, uint64_t *buf,
                                         uint32_t *off) {
  const struct pending *p = find(e->sbuf_pending, rec_tid);
  if (!p)
    return NULL;
  *len = p->len;
  *evno = p->evno;
  *buf = p->buf;
  *off = p->off;
  return p->data;
}

static void drop(struct syscallbuf_pending *set, struct pending *p) {
  free(p->data);
  *p = set->p[--set->n];
}

/* Whether LEN bytes at DATA are whole records; their number in *COUNT. */
static bool records_valid(const uint8_t *data, uint32_t len, uint32_t *count) {
  uint32_t n = 0;
  for (uint32_t at = 0; at < len; n++) {
    struct sbuf_rec rec;
    if (len - at < sizeof rec)
      return false;
    memcpy(&rec, data + at, sizeof rec);
    if (rec.size < sizeof rec || rec.size % 8 || rec.size > len - at)
      return false;
    at += rec.size;
  }
  *count = n;
  return true;
}

/* The announcing call: run to its entry... */
static int announce_run(struct replay_engine *e, struct rptask *x, struct stop *st) {
  char buf[256];
  if (!(e->ev->flags & EVF_SBUF_INIT) || x->at_entry)
    return 0;
  int rc = run_task(e, x, st, true);
  if (rc)
    return rc;
  if (st->kind != STOP_SYSCALL_ENTRY)
    return diverge(e, "expected the system call buffer's announcement, found %s",
                   stop_desc(st, buf, sizeof buf));
  rc = expect_regs(e, x, &e->ev->regs);
  if (rc == 0)
    x->at_entry = true;
  return rc;
}

/* ...skipped with the recorded answer; the page's entry becomes the replay one. */
static int announce_complete(struct replay_engine *e, struct rptask *x, const struct stop *st0) {
  (void)st0;
  if (!(e->ev->flags & EVF_SBUF_INIT))
    return 0;
  x->at_entry = false;
  if (!engine_sysemu_skips(x)) { /* (under PTRACE_SYSEMU the kernel skips it by itself) */
    struct stop st;
    char buf[256];
    if (task_get_regs(&x->t) < 0)
      return -1;
    x->t.regs.orig_rax = (uint64_t)-1;
    if (task_set_regs(&x->t, &x->t.regs) < 0 || run_task(e, x, &st, false) < 0)
      return -1;
    if (st.kind != STOP_SYSCALL_EXIT)
      return diverge(e, "the system call buffer's announcement did not return; found %s",
                     stop_desc(&st, buf, sizeof buf));
  }
  if (task_get_regs(&x->t) < 0)
    return -1;
  bool refused = e->ev->flags & EVF_SBUF_REFUSED;
  uint32_t fl = e->ev->flags;
  x->t.regs.rax = refused ? (uint64_t)-ENOSYS
                          : (uint64_t)((fl & EVF_SBUF_CHAOS ? SBUF_ANNOUNCE_CHAOS : 0) |
                                       (fl & EVF_SBUF_OUT_TRACED ? SBUF_ANNOUNCE_OUT_TRACED : 0));
  /* As the recorder left it (it skipped the call): a signal delivered right after the
   * announcement sees no call number (under PTRACE_SYSEMU the kernel kept it). */
  x->t.regs.orig_rax = (uint64_t)-1;
  if (task_set_regs(&x->t, &x->t.regs) < 0)
    return -1;
  static const uint8_t entry[] = SBUF_ENTRY_REPLAY, divert[] = SBUF_DIVERT_CODE,
                       body[] = SBUF_REPLAY_BODY;
  static const uint32_t replaying = 1;
  uint8_t tf_table[256];
  for (int i = 0; i < 256; i++)
    tf_table[i] = (uint8_t)(i & ~1);
  if (!refused &&
      (task_write_mem(&x->t, SBUF_PAGE_ADDR + SBUF_TF_TABLE_OFF, tf_table, sizeof tf_table) < 0 ||
       task_write_mem(&x->t, SBUF_PAGE_ADDR + SBUF_REPLAY_BODY_OFF, body, sizeof body) < 0 ||
       task_write_mem(&x->t, SBUF_ENTRY_ADDR, entry, sizeof entry) < 0 ||
       task_write_mem(&x->t, SBUF_PAGE_ADDR + SBUF_DIVERT_CODE_OFF, divert, sizeof divert) < 0 ||
       task_write_mem(&x->t, SBUF_PAGE_ADDR + SBUF_REPLAYING_OFF, &replaying, sizeof replaying) <
           0))
    return diverge(e, "cannot write the system call buffer's replay entry at 0x%lx: %s",
                   SBUF_ENTRY_ADDR, strerror(errno));
  if (!refused)
    x->sbuf = e->ev->sbuf;
  return 0;
}

uint64_t syscallbuf_output(const uint8_t *data, uint32_t len, unsigned stream,
                           void (*fn)(void *ctx, unsigned stream, uint32_t off, uint32_t n),
                           void *ctx) {
  uint64_t total = 0;
  for (uint32_t at = 0; at + sizeof(struct sbuf_rec) <= len;) {
    struct sbuf_rec rec;
    memcpy(&rec, data + at, sizeof rec);
    if (rec.size < sizeof rec || rec.size > len - at)
      break;
    uint32_t n = rec.ret > 0 && (uint64_t)rec.ret <= rec.size - sizeof rec ? (uint32_t)rec.ret : 0;
    unsigned to = (rec.flags & SBUF_REC_OUT_MASK) >> SBUF_REC_OUT_SHIFT;
    bool shown = to == OUT_TO_STDOUT || to == OUT_TO_STDERR; /* 3: a corrupt record */
    if ((rec.flags & SBUF_REC_OUTPUT) && n && shown && (!stream || to == stream)) {
      if (fn)
        fn(ctx, to, at + (uint32_t)sizeof rec, n);
      total += n;
    }
    at += rec.size;
  }
  return total;
}

struct print_ctx {
  struct replay_engine *e;
  const uint8_t *data;
  uint32_t from, upto; /* the records printed: those that start and end between */
};

static void print_one(void *ctx, unsigned stream, uint32_t off, uint32_t n) {
  struct print_ctx *c = ctx;
  uint32_t start = off - (uint32_t)sizeof(struct sbuf_rec);
  if (start >= c->from && off + n <= c->upto)
    replay_print(c->e, stream, c->data + off, n);
}

/* Prints the output of the writes to the recording's stdout and stderr among P's records
 * that end within the first UPTO bytes and were not printed before: all of them once the
 * task made them (at its next event's entry: in order with its traced writes), the ones
 * made so far at a debugger's stop inside the stretch. */
static void print_output(struct replay_engine *e, const struct pending *p, uint32_t upto) {
  struct replay_printed *pr = e->printed;
  if (p->evno <= pr->sbuf || e->o->quiet)
    return; /* (a quiet run, to a position, prints nothing: the output is still to come) */
  uint32_t from = pr->part_event == p->evno ? pr->part_bytes : 0;
  if (upto > p->len)
    upto = p->len;
  if (upto <= from && upto < p->len)
    return;
  struct print_ctx c = {e, p->data, from, upto};
  syscallbuf_output(p->data, p->len, 0, print_one, &c);
  if (upto == p->len) {
    pr->sbuf = p->evno;
    return;
  }
  pr->part_event = p->evno;
  pr->part_bytes = upto;
}

/* The bytes of P's records that task X has made: whole records below its buffer's
 * `used`, and the one after them when its call has RETURNED (0 when it cannot be read). */
static uint32_t records_made(struct rptask *x, const struct pending *p, bool returned) {
  struct sbuf_hdr h;
  if (!x || task_read_mem(&x->t, p->buf, &h, sizeof h) < 0 || h.used < p->off)
    return 0;
  uint32_t have = h.used - p->off, at = 0;
  while (at + sizeof(struct sbuf_rec) <= p->len) {
    struct sbuf_rec rec;
    memcpy(&rec, p->data + at, sizeof rec);
    if (rec.size < sizeof rec || (at + rec.size > have && !(returned && at == have)))
      break;
    at += rec.size;
  }
  return at;
}

void replay_syscallbuf_flush(struct replay_engine *e, pid_t returned) {
  struct syscallbuf_pending *set = e->sbuf_pending;
  for (int i = 0; i < set->n; i++) {
    struct pending *p = &set->p[i];
    uint32_t made = records_made(engine_task(e, p->rec_tid), p, p->rec_tid == returned);
    if (made)
      print_output(e, p, made);
  }
}

/* The bytes of EV's records: all of its data but the diverted call's record header. */
uint32_t syscallbuf_records_len(const struct event *ev) {
  uint32_t extra = ev->flags & EVF_SBUF_DIVERT ? sizeof(struct sbuf_rec) : 0;
  return ev->sbuf_len < extra ? 0 : ev->sbuf_len - extra;
}

/* The recording's second process was made: X's writes to deja's stdout and stderr are
 * traced from here, as the recorder told its library in its page. */
static int trace_output(struct replay_engine *e, struct rptask *x) {
  static const uint32_t one = 1;
  if (task_write_mem(&x->t, SBUF_PAGE_ADDR + SBUF_OUT_TRACED_OFF, &one, sizeof one) < 0 && x->sbuf)
    return diverge(e, "cannot tell the system call buffer of task %d to trace its output: %s",
                   e->ev->tid, strerror(errno));
  return 0;
}

/* Refills the buffer before the task runs the code that made the calls. A diverted
 * call's record header follows them: what its probes returned. */
static int refill(struct replay_engine *e, struct rptask *x) {
  if (e->ev->flags & EVF_SBUF_INIT)
    return 0;
  if (e->ev->flags & EVF_SBUF_OUT_TRACED)
    return trace_output(e, x);
  uint32_t count, len = syscallbuf_records_len(e->ev);
  bool divert = e->ev->flags & EVF_SBUF_DIVERT;
  if (e->ev->sbuf_off % 8 || e->ev->sbuf_off > SBUF_CAPACITY ||
      e->ev->sbuf_len > SBUF_CAPACITY - e->ev->sbuf_off ||
      (divert && e->ev->sbuf_len < sizeof(struct sbuf_rec)) ||
      !records_valid(e->ev->sbuf_data, len, &count)) {
    deja_msg("%s/events: event %" PRIu64 " (buffered system calls of task %d) is corrupt",
             e->o->trace_dir, e->pos.event, e->ev->tid);
    return REPLAY_BAD_TRACE;
  }
  struct syscallbuf_pending *set = e->sbuf_pending;
  struct pending *p = find(set, x->rec_tid);
  if (p) {
    int rc = replay_syscallbuf_check(e);
    if (rc)
      return rc;
  }
  uint64_t at = e->ev->sbuf + SBUF_DATA_OFF + e->ev->sbuf_off;
  uint32_t used = e->ev->sbuf_off;
  if (task_write_mem(&x->t, at, e->ev->sbuf_data, e->ev->sbuf_len) < 0 ||
      task_write_mem(&x->t, e->ev->sbuf, &used, sizeof used) < 0)
    return diverge(e, "cannot refill the system call buffer at 0x%" PRIx64 ": %s", e->ev->sbuf,
                   strerror(errno));
  if (set->n == set->cap) {
    set->cap = set->cap ? set->cap * 2 : 16;
    set->p = xrealloc(set->p, (size_t)set->cap * sizeof *set->p);
  }
  p = &set->p[set->n++];
  uint64_t ret = divert ? at + len + offsetof(struct sbuf_rec, ret) : 0;
  *p = (struct pending){
      x->rec_tid, e->ev->sbuf, e->pos.event, e->ev->sbuf_off, len, xmalloc(len ? len : 1), ret};
  memcpy(p->data, e->ev->sbuf_data, len);
  /* calls the library makes for real: the task runs under PTRACE_CONT until they are done */
  for (uint32_t a = 0; a + sizeof(struct sbuf_rec) <= len;) {
    struct sbuf_rec rec;
    memcpy(&rec, p->data + a, sizeof rec);
    x->sbuf_exec_ahead |= sbuf_exec_call_nr(rec.nr) && !(rec.flags & SBUF_REC_PROBE_ONLY);
    a += rec.size;
  }
  return replay_syscallbuf_divert(e, x);
}

int replay_syscallbuf_divert(struct replay_engine *e, struct rptask *x) {
  struct pending *p = find(e->sbuf_pending, x->rec_tid);
  if (!p || !p->divert)
    return 0;
  if (task_write_mem(&x->t, SBUF_DIVERT_ADDR, &p->divert, sizeof p->divert) < 0)
    return diverge(e, "cannot divert a buffered call of task %d to its traced entry: %s",
                   x->rec_tid, strerror(errno));
  return 0;
}

/* The offset of the first byte where A and B differ, or -1. */
static int first_difference(const uint8_t *a, const uint8_t *b, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (a[i] != b[i])
      return (int)i;
  return -1;
}

/* Compares the records the library wrote with the recorded ones. */
/* The header is read into H (*HAVE_H then) for settle. */
static int check(struct replay_engine *e, struct rptask *x, const struct pending *p,
                 struct sbuf_hdr *h, bool *have_h) {
  /* Records from the start of the data follow the header: one read for both. */
  uint32_t whole = p->off == 0 ? p->len : 0;
  uint8_t *all = xmalloc(SBUF_DATA_OFF + whole + sizeof(struct sbuf_rec));
  if (task_read_mem(&x->t, p->buf, all, SBUF_DATA_OFF + whole) < 0) {
    free(all);
    return 0; /* the task is on its way out */
  }
  memcpy(h, all, sizeof *h);
  *have_h = true;
  uint32_t used = h->used;
  uint32_t have = used < p->off ? 0 : used - p->off;
  uint32_t n = have < p->len ? have : p->len;
  uint8_t *got = all + SBUF_DATA_OFF;
  if (!whole) {
    free(all);
    all = got = xmalloc(n + sizeof(struct sbuf_rec));
    if (task_read_mem(&x->t, p->buf + SBUF_DATA_OFF + p->off, got, n) < 0) {
      free(all);
      return 0;
    }
  }
  int rc = 0;
  /* Unless it diverged, the library wrote the very bytes that were recorded. */
  if (n == p->len && used == p->off + p->len && !memcmp(got, p->data, n)) {
    free(all);
    return 0;
  }
  uint32_t total = 0, i = 0, at = 0;
  int b;
  records_valid(p->data, p->len, &total);
  for (; at < p->len && !rc; i++) {
    struct sbuf_rec want, made;
    memcpy(&want, p->data + at, sizeof want);
    memcpy(&made, got + at, sizeof made);
    if (n < at + want.size)
      rc = diverge(e,
                   "the task made %u of the %u system calls it recorded in its buffer (event "
                   "%" PRIu64 "); the next one recorded is %s",
                   i, total, p->evno, syscall_name(want.nr));
    else if (made.nr == want.nr && made.hash == want.hash && made.ret == want.ret &&
             (want.flags & SBUF_REC_OUTPUT) && want.ret > 0 &&
             (b = first_difference(got + at + sizeof want, p->data + at + sizeof want,
                                   (uint64_t)want.ret < want.size - sizeof want
                                       ? (uint32_t)want.ret
                                       : want.size - (uint32_t)sizeof want)) >= 0)
      rc = diverge(e,
                   "buffered system call %u of %u (event %" PRIu64
                   "): write to descriptor %u differs from the recorded output at byte %d of "
                   "%" PRId64 ": the replayed program wrote 0x%02x, the recording 0x%02x",
                   i + 1, total, p->evno, (want.flags >> SBUF_REC_FD_SHIFT) & 3u, b, want.ret,
                   got[at + sizeof want + (uint32_t)b], p->data[at + sizeof want + (uint32_t)b]);
    else if (made.nr == want.nr && made.hash == want.hash && made.ret != want.ret &&
             sbuf_exec_call_nr(want.nr))
      rc = diverge(e,
                   "buffered system call %u of %u (event %" PRIu64 "): %s returned %" PRId64
                   " (0x%" PRIx64 ") in replay, recorded %" PRId64 " (0x%" PRIx64 ")",
                   i + 1, total, p->evno, syscall_name(want.nr), made.ret, (uint64_t)made.ret,
                   want.ret, (uint64_t)want.ret);
    else if (made.nr != want.nr || made.hash != want.hash || made.ret != want.ret)
      rc = diverge(e,
                   "buffered system call %u of %u (event %" PRIu64
                   "): recorded %s (arguments hash %08x), replay made %s (arguments hash %08x)",
                   i + 1, total, p->evno, syscall_name(want.nr), want.hash, syscall_name(made.nr),
                   made.hash);
    at += want.size;
  }
  if (!rc && used > p->off + p->len) {
    struct sbuf_rec more;
    memset(&more, 0, sizeof more);
    task_read_mem(&x->t, p->buf + SBUF_DATA_OFF + p->off + p->len, &more, sizeof more);
    rc = diverge(e,
                 "the task made more system calls in its buffer than the %u recorded (event "
                 "%" PRIu64 "): the next one is %s",
                 total, p->evno, syscall_name(more.nr));
  }
  free(all);
  return rc;
}

/* Checks X's pending records P (unless CHECK is false: nothing to compare), empties the
 * buffer as the recorder did and forgets them. */
static int settle(struct replay_engine *e, struct rptask *x, struct pending *p, bool check_them,
                  bool gone) {
  struct sbuf_hdr h;
  bool have_h = false;
  int rc = check_them && !gone ? check(e, x, p, &h, &have_h) : 0;
  if (!rc)
    print_output(e, p, p->len); /* what the program wrote (or the stretch restored) */
  /* The recorder emptied the buffer here unless the library was inside a call: so does
   * replay, so the buffer's memory is the recorded one (a state point compares it). */
  uint32_t zero = 0;
  if (!rc && !gone && (have_h || task_read_mem(&x->t, p->buf, &h, sizeof h) == 0) && !h.in_call &&
      h.used)
    task_write_mem(&x->t, p->buf + offsetof(struct sbuf_hdr, used), &zero, sizeof zero);
  if (x)
    x->sbuf_exec_ahead = false;
  /* (the word may name another thread's call by now: that one stays) */
  uint64_t none = 0, now = 0;
  if (p->divert && !gone && task_read_mem(&x->t, SBUF_DIVERT_ADDR, &now, sizeof now) == 0 &&
      now == p->divert)
    task_write_mem(&x->t, SBUF_DIVERT_ADDR, &none, sizeof none);
  drop(e->sbuf_pending, p);
  return rc;
}

int replay_syscallbuf_check(struct replay_engine *e) {
  struct pending *p = find(e->sbuf_pending, e->ev->tid);
  if (!p || (e->ev->kind == EV_SBUF && p->evno == e->pos.event))
    return 0;
  struct rptask *x = engine_task(e, e->ev->tid);
  /* A restored state point, a new image or an exit leave nothing to check. */
  bool gone = !x || e->ev->kind == EV_EXEC || e->ev->kind == EV_EXIT;
  return settle(e, x, p, e->ev->kind != EV_STATE, gone);
}

void replay_syscallbuf_finish(struct replay_engine *e) {
  struct syscallbuf_pending *set = e->sbuf_pending;
  while (set->n) {
    print_output(e, &set->p[0], set->p[0].len);
    drop(set, &set->p[0]);
  }
}

int replay_syscallbuf_check_entry(struct replay_engine *e, struct rptask *x) {
  struct pending *p = find(e->sbuf_pending, x->rec_tid);
  if (!p || p->evno == e->pos.event)
    return 0;
  return settle(e, x, p, true, false);
}

const struct event_handler replay_syscallbuf_handler = {
    .begin = refill,
    .run = announce_run,
    .complete = announce_complete,
};

void syscallbuf_describe(const struct event *ev, FILE *f) {
  if (ev->flags & EVF_SBUF_INIT) {
    fprintf(f, " buffer at 0x%" PRIx64 " announced%s%s", ev->sbuf,
            ev->flags & EVF_SBUF_REFUSED ? " (refused)" : "",
            ev->flags & EVF_SBUF_OUT_TRACED ? " (output traced)" : "");
    return;
  }
  if (ev->flags & EVF_SBUF_OUT_TRACED) {
    fprintf(f, " writes to stdout and stderr traced from here");
    return;
  }
  uint32_t count = 0, len = syscallbuf_records_len(ev);
  if (!records_valid(ev->sbuf_data, len, &count)) {
    fprintf(f, " (corrupt records)");
    return;
  }
  fprintf(f, " %u call%s (%u bytes)%s:", count, count == 1 ? "" : "s", len,
          ev->flags & EVF_SBUF_DIVERT ? ", then one restarted traced" : "");
  for (uint32_t at = 0; at < len;) {
    struct sbuf_rec rec;
    memcpy(&rec, ev->sbuf_data + at, sizeof rec);
    if (rec.flags & SBUF_REC_PROBE_ONLY)
      fprintf(f, " %s(traced)", syscall_name(rec.nr));
    else
      fprintf(f, " %s=%" PRId64, syscall_name(rec.nr), rec.ret);
    at += rec.size;
  }
  /* As for traced writes (whose lines tests and tools read the same way). */
  uint64_t out = syscallbuf_output(ev->sbuf_data, len, OUT_TO_STDOUT, NULL, NULL);
  uint64_t err = syscallbuf_output(ev->sbuf_data, len, OUT_TO_STDERR, NULL, NULL);
  if (out)
    fprintf(f, "; output to stdout (%" PRIu64 " bytes)", out);
  if (err)
    fprintf(f, "; output to stderr (%" PRIu64 " bytes)", err);
}
