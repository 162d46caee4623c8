/* Placing a new program image where it was recorded (replay_special.h): the kernel chose
 * its own addresses for the executable, the stack and the vDSO/vvar (another kernel's
 * layout, or ASLR on in either run); each is moved to the recorded address with
 * mremap, through a scratch area so that no move lands on a mapping not moved yet. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "replay/events/replay_special.h"
#include "task/proc_maps.h"

#define MAX_MOVES 32
#define PAGE 4096ull
/* The stack's own room below the recorded initial stack, as the kernel leaves it. */
#define STACK_ROOM (32 * PAGE)

struct layout_move {
  uint64_t from, len, to, newlen;
  char name[256];
};

struct layout_plan {
  const char *exe;                /* the preserved executable's path */
  uint64_t exe_delta, vdso_delta; /* recorded minus replayed addresses */
  uint64_t stack_top, stack_len;  /* the recorded stack's end and initial image size */
  struct layout_move moves[MAX_MOVES];
  int nmoves;
  uint64_t prev_end; /* the previous mapping's end, if it was the exe's */
};

static uint64_t page_up(uint64_t a) { return (a + PAGE - 1) & ~(PAGE - 1); }

/* The value of auxv entry TYPE in LEN bytes of (type, value) pairs; 0 when absent. */
static uint64_t auxv_value(const uint8_t *auxv, size_t len, uint64_t type) {
  for (size_t at = 0; at + 16 <= len; at += 16) {
    uint64_t pair[2];
    memcpy(pair, auxv + at, sizeof pair);
    if (pair[0] == type)
      return pair[1];
    if (pair[0] == AT_NULL)
      break;
  }
  return 0;
}

/* The replayed process's auxiliary vector, as the kernel keeps it. */
static size_t replay_auxv(pid_t tid, uint8_t *buf, size_t size) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/auxv", tid);
  FILE *f = fopen(path, "re");
  if (!f)
    return 0;
  size_t n = fread(buf, 1, size, f);
  fclose(f);
  return n;
}

static void add_move(struct layout_plan *p, const struct proc_mapping *m, uint64_t to,
                     uint64_t newlen) {
  if (p->nmoves == MAX_MOVES || (to == m->start && newlen == m->end - m->start))
    return;
  struct layout_move *v = &p->moves[p->nmoves++];
  *v = (struct layout_move){m->start, m->end - m->start, to, newlen, ""};
  snprintf(v->name, sizeof v->name, "%s", m->name[0] ? m->name : "[anonymous]");
}

/* Which of the image's mappings move where: the executable's (and its bss right after
 * it), the stack (its end at the recorded end, room for the recorded image), the vDSO
 * and the vvar pages it reads (together, so their distance stays the kernel's). */
static int plan_mapping(const struct proc_mapping *m, void *ctx) {
  struct layout_plan *p = ctx;
  uint64_t len = m->end - m->start;
  bool exe = strcmp(m->name, p->exe) == 0, bss = !m->name[0] && m->start == p->prev_end;
  p->prev_end = exe || bss ? m->end : 0;
  if (exe || bss) {
    add_move(p, m, m->start + p->exe_delta, len);
  } else if (strcmp(m->name, "[stack]") == 0 && p->stack_top) {
    uint64_t need = page_up(p->stack_len) + STACK_ROOM, newlen = len > need ? len : need;
    add_move(p, m, p->stack_top - newlen, newlen);
  } else if (p->vdso_delta &&
             (strcmp(m->name, "[vdso]") == 0 || strncmp(m->name, "[vvar", 5) == 0)) {
    add_move(p, m, m->start + p->vdso_delta, len);
  }
  return 0;
}

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen) {
  return a < b + blen && b < a + alen;
}

struct overlap_query {
  uint64_t start, len;
  struct proc_mapping found;
};

static int find_overlap(const struct proc_mapping *m, void *ctx) {
  struct overlap_query *q = ctx;
  if (!overlaps(q->start, q->len, m->start, m->end - m->start))
    return 0;
  q->found = *m;
  return 1;
}

/* Whether [START, START+LEN) is free in task TID; else *BY is what is there. */
static bool range_free(pid_t tid, uint64_t start, uint64_t len, struct proc_mapping *by) {
  struct overlap_query q = {.start = start, .len = len};
  if (proc_maps_each(tid, find_overlap, &q) == 0)
    return true;
  *by = q.found;
  return false;
}

/* A free range of LEN bytes that is no move's destination, reserved in the program. */
static uint64_t reserve_scratch(struct replay_engine *e, struct rptask *x,
                                const struct layout_plan *p, uint64_t len) {
  for (uint64_t base = 0x300000000000ull; base < 0x700000000000ull; base += 0x10000000000ull) {
    bool clear = true;
    for (int i = 0; i < p->nmoves; i++)
      clear &= !overlaps(base, len, p->moves[i].to, p->moves[i].newlen);
    uint64_t a[6] = {
        base, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, (uint64_t)-1, 0};
    bool ok = false;
    if (clear && engine_inject_call(x, SYS_mmap, a, &ok) == (int64_t)base && ok)
      return base;
  }
  (void)e;
  return 0;
}

/* One mremap; the injection gadget moves with the vDSO that holds it. 0 or an errno. */
static int move_mapping(struct rptask *x, uint64_t from, uint64_t len, uint64_t newlen,
                        uint64_t to) {
  uint64_t a[6] = {from, len, newlen, MREMAP_MAYMOVE | MREMAP_FIXED, to, 0};
  bool ok = false;
  int64_t got = engine_inject_call(x, SYS_mremap, a, &ok);
  if (!ok || (uint64_t)got != to)
    return ok ? (int)-got : EIO;
  if (x->gadget >= from && x->gadget < from + len)
    x->gadget += to - from;
  return 0;
}

/* Every planned move: first all of them into the scratch area, then each to its place. */
static int carry_out(struct replay_engine *e, struct rptask *x, struct layout_plan *p) {
  uint64_t total = 0, off[MAX_MOVES];
  for (int i = 0; i < p->nmoves; i++) {
    off[i] = total;
    total += p->moves[i].len > p->moves[i].newlen ? p->moves[i].len : p->moves[i].newlen;
  }
  uint64_t scratch = reserve_scratch(e, x, p, total);
  if (!scratch)
    return diverge(e, "cannot find room to move the new image of task %d to its recorded place",
                   x->rec_tid);
  for (int i = 0; i < p->nmoves; i++) {
    const struct layout_move *v = &p->moves[i];
    int err = move_mapping(x, v->from, v->len, v->len, scratch + off[i]);
    if (err)
      return diverge(e, "cannot move %s of task %d (mremap: %s)", v->name, x->rec_tid,
                     strerror(err));
  }
  for (int i = 0; i < p->nmoves; i++) {
    const struct layout_move *v = &p->moves[i];
    struct proc_mapping by;
    if (!range_free(x->t.tid, v->to, v->newlen, &by) &&
        !overlaps(by.start, by.end - by.start, scratch, total))
      return diverge(e, "the recorded place 0x%" PRIx64 " of %s is taken by %s (0x%" PRIx64 ")",
                     v->to, v->name, by.name[0] ? by.name : "an anonymous mapping", by.start);
    int err = move_mapping(x, scratch + off[i], v->len, v->newlen, v->to);
    if (err)
      return diverge(e, "cannot move %s of task %d to 0x%" PRIx64 " (mremap: %s)", v->name,
                     x->rec_tid, v->to, strerror(err));
  }
  uint64_t a[6] = {scratch, total, 0, 0, 0, 0};
  bool ok;
  engine_inject_call(x, SYS_munmap, a, &ok);
  return 0;
}

int replay_layout_apply(struct replay_engine *e, struct rptask *x) {
  const struct event *ev = e->ev;
  char exe[512], link[64];
  snprintf(link, sizeof link, "/proc/%d/exe", x->t.tid);
  ssize_t l = readlink(link, exe, sizeof exe - 1);
  exe[l > 0 ? l : 0] = 0;
  uint8_t rep_auxv[1024];
  const uint8_t *rec_auxv = x->auxv;
  size_t rec_len = x->auxv_len, rep_len = replay_auxv(x->t.tid, rep_auxv, sizeof rep_auxv);
  struct layout_plan p = {
      .exe = exe, .stack_top = ev->stack_addr + ev->stack_len, .stack_len = ev->stack_len};
  uint64_t rec_entry = auxv_value(rec_auxv, rec_len, AT_ENTRY);
  uint64_t rep_entry = auxv_value(rep_auxv, rep_len, AT_ENTRY);
  uint64_t rec_vdso = auxv_value(rec_auxv, rec_len, AT_SYSINFO_EHDR);
  uint64_t rep_vdso = auxv_value(rep_auxv, rep_len, AT_SYSINFO_EHDR);
  if (!rec_entry || !rep_entry)
    return diverge(e, "the auxiliary vector of task %d has no entry point", x->rec_tid);
  p.exe_delta = rec_entry - rep_entry;
  p.vdso_delta = rec_vdso && rep_vdso ? rec_vdso - rep_vdso : 0;
  if (proc_maps_each(x->t.tid, plan_mapping, &p) < 0)
    return diverge(e, "cannot read the mappings of task %d", x->rec_tid);
  if (p.nmoves == 0)
    return 0;
  int rc = carry_out(e, x, &p);
  if (rc || task_get_regs(&x->t) < 0)
    return rc ? rc : -1;
  x->t.regs.rsp = ev->stack_addr; /* injected calls put strings below it */
  return task_set_regs(&x->t, &x->t.regs) < 0 ? -1 : 0;
}
