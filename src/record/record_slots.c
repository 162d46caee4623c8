/* The CPUs deja records on (recorder_internal.h): one run slot per CPU, each running user
 * code of at most one task, and never two tasks that share memory at once. The first
 * slot is on deja's own CPU: a task there hands its ptrace stops to deja without a
 * cross-CPU wake-up, so a lone process runs as fast as with one slot. A task is moved to
 * its slot's CPU when it takes a slot on another one. */
#include <sched.h>

#include "common/log.h"
#include "record/recorder_internal.h"
#include "task/exec_image.h"

static void add_slot(struct recorder *r, int cpu) {
  struct record_slot *s = &r->slots[r->nslots++];
  s->cur = NULL;
  s->cpu = cpu;
}

void record_slots_init(struct recorder *r, const cpu_set_t *allowed, int pinned, int limit) {
  /* Every CPU by default: the output of processes recorded at once is traced there, in
   * the order it reached deja's stdout and stderr (record_output_order.c). */
  int want = limit > 0 ? limit : CPU_COUNT(allowed);
  if (want > CPU_COUNT(allowed))
    want = CPU_COUNT(allowed);
  if (want > RECORD_MAX_SLOTS)
    want = RECORD_MAX_SLOTS;
  /* Where cpuid runs natively its answers depend on the CPU, and replay runs on one. */
  if (r->o->chaos || pinned < 0 || exec_image_cpuid_native())
    want = 1;
  r->nslots = 0;
  add_slot(r, pinned);
  for (int c = 0; c < CPU_SETSIZE && r->nslots < want; c++)
    if (c != pinned && CPU_ISSET(c, allowed))
      add_slot(r, c);
}

struct record_slot *record_slot_of(struct recorder *r, const struct rtask *x) {
  return x->slot >= 0 && x->slot < r->nslots ? &r->slots[x->slot] : NULL;
}

/* The count of busy slots changes by BY: the time several were busy is summed. */
static void count_busy(struct recorder *r, int by) {
  if (r->nslots < 2)
    return;
  if (r->slots_busy >= 2)
    r->parallel_ns += elapsed_ns(&r->busy_since);
  clock_gettime(CLOCK_MONOTONIC, &r->busy_since);
  r->slots_busy += by;
}

void record_slot_release(struct recorder *r, struct rtask *x) {
  struct record_slot *s = record_slot_of(r, x);
  if (s && s->cur == x) {
    s->cur = NULL;
    count_busy(r, -1);
  }
  x->slot = -1;
}

/* X runs on CPU from now on (its affinity; the program's own sched_setaffinity calls are
 * answered by deja without reaching the kernel). */
static void move_to(struct rtask *x, int cpu) {
  if (x->cpu == cpu || cpu < 0)
    return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (sched_setaffinity(x->t.tid, sizeof one, &one) == 0)
    x->cpu = cpu;
}

void record_slot_take(struct recorder *r, struct record_slot *s, struct rtask *x) {
  record_slot_release(r, x);
  s->cur = x;
  x->slot = (int)(s - r->slots);
  count_busy(r, 1);
  if (r->nslots > 1)
    move_to(x, s->cpu);
}

bool record_slot_conflict(struct recorder *r, const struct rtask *x) {
  for (int i = 0; i < r->nslots; i++) {
    const struct rtask *y = r->slots[i].cur;
    if (y && y != x && i != x->slot && record_tasks_share(x, y))
      return true;
  }
  return false;
}

void record_slots_cpus(const struct recorder *r, cpu_set_t *out) {
  CPU_ZERO(out);
  for (int i = 0; i < r->nslots; i++)
    if (r->slots[i].cpu >= 0)
      CPU_SET(r->slots[i].cpu, out);
}
