/* What a preempted stretch can trigger (see stretch_observe.h). */
#include "replay/stops/stretch_observe.h"

#include <stddef.h>
#include <string.h>

#include "replay/engine/link_map.h"
#include "task/proc_maps.h"

#define MAX_NAMESPACES 16

bool stretch_changes(struct rptask *x, const struct event *ev, uint64_t addr, uint64_t len) {
  uint8_t now[64];
  if (len > sizeof now || task_read_mem(&x->t, addr, now, len) < 0)
    return true; /* cannot tell */
  for (uint32_t i = 0; i < ev->nmem; i++) {
    const struct event_mem *m = &ev->mem[i];
    uint64_t lo = addr > m->addr ? addr : m->addr;
    uint64_t hi = addr + len < m->addr + m->len ? addr + len : m->addr + m->len;
    if (lo < hi && memcmp(now + (lo - addr), m->data + (lo - m->addr), hi - lo))
      return true;
  }
  return false;
}

/* glibc's dynamic linker calls r_brk (_dl_debug_state) only right after storing a new
 * r_state (RT_ADD or RT_DELETE before it maps or unmaps objects, RT_CONSISTENT after),
 * with no system call between the store and the call. A stretch that calls it
 * therefore either changes an r_debug (the store is in it; the states alternate, so
 * the value changes) or starts between the store and the call, with the pc in the
 * dynamic linker. Namespaces made by dlmopen have their own r_debug, chained by r_next. */
bool stretch_cannot_reach(struct rptask *x, const struct event *ev, uint64_t addr) {
  uint64_t rd = replay_r_debug_addr(x);
  struct r_debug_ext r;
  if (!rd || task_read_mem(&x->t, rd, &r, sizeof r) < 0 || r.r_brk != addr)
    return false;
  struct proc_mapping hook, pc;
  if (task_get_regs(&x->t) < 0 || proc_mapping_find(x->t.tid, addr, &hook) < 0 ||
      (proc_mapping_find(x->t.tid, x->t.regs.rip, &pc) == 0 && !strcmp(pc.name, hook.name)))
    return false;
  for (int i = 0; rd && i < MAX_NAMESPACES; i++) {
    uint64_t size = r.r_version >= 2 ? sizeof r : offsetof(struct r_debug_ext, r_next);
    if (stretch_changes(x, ev, rd, size))
      return false;
    rd = r.r_version >= 2 ? r.r_next : 0;
    if (rd && task_read_mem(&x->t, rd, &r, sizeof r) < 0)
      return false;
  }
  return rd == 0;
}
