/* Recording SysV shared memory: shmat's event carries the attached segment's content, so
 * replay can create a segment like it (size and data) and attach it at the same address.
 * Processes attaching the same segment share it in replay too. */
#include "record/recorder_internal.h"
#include "task/proc_maps.h"

int record_shmat_contents(struct rtask *x, int64_t result, struct mem_region *out) {
  struct proc_mapping m;
  if (proc_mapping_find(x->t.tid, (uint64_t)result, &m) < 0 || m.start != (uint64_t)result)
    return 0;
  out->addr = m.start;
  out->len = m.end - m.start;
  return 1;
}
