/* Robust futexes at a thread's exit. The kernel walks the dying thread's robust list (the
 * one set_robust_list registered) and marks every futex word whose owner field names the
 * thread FUTEX_OWNER_DIED, so the next locker gets EOWNERDEAD. In replay the words hold
 * the recorded tid, which the kernel compares with the replayed one and never finds: replay
 * makes those writes itself at the thread's exit stop, from the list kept in its
 * bookkeeping (struct thread_kstate), the way the kernel's exit_robust_list does. Wakes
 * need nothing (futex calls are replayed from the trace). Not done: the same walk at an
 * execve. */
#include <stdint.h>

#include "replay/events/replay_special.h"

#define FUTEX_WAITERS_BIT 0x80000000u
#define FUTEX_OWNER_DIED_BIT 0x40000000u
#define FUTEX_TID_BITS 0x3fffffffu
#define ROBUST_LIST_MAX 2048 /* the kernel's ROBUST_LIST_LIMIT */

struct robust_head {
  uint64_t list; /* the first entry (bit 0: a PI futex), or the head itself */
  int64_t futex_offset;
  uint64_t pending; /* an entry being locked or unlocked */
};

static void owner_died(struct replay_engine *e, struct rptask *x, uint64_t entry, int64_t offset) {
  uint64_t at = entry + (uint64_t)offset;
  uint32_t word;
  if (task_read_mem(&x->t, at, &word, sizeof word) < 0 ||
      (word & FUTEX_TID_BITS) != (uint32_t)x->rec_tid)
    return;
  word = (word & FUTEX_WAITERS_BIT) | FUTEX_OWNER_DIED_BIT;
  e->hooks->note_write(e->hooks->ctx, x, at, sizeof word); /* for watchpoints */
  task_write_mem(&x->t, at, &word, sizeof word);
}

void replay_robust_exit(struct replay_engine *e, struct rptask *x) {
  struct robust_head h;
  uint64_t at = x->k.robust_head;
  if (!at || x->k.robust_len != sizeof h || task_read_mem(&x->t, at, &h, sizeof h) < 0)
    return;
  uint64_t pending = h.pending & ~1ull;
  uint64_t entry = h.list & ~1ull;
  for (int n = 0; entry != at && n < ROBUST_LIST_MAX; n++) {
    uint64_t next;
    bool ok = task_read_mem(&x->t, entry, &next, sizeof next) == 0;
    if (entry != pending)
      owner_died(e, x, entry, h.futex_offset);
    if (!ok)
      break;
    entry = next & ~1ull;
  }
  if (pending)
    owner_died(e, x, pending, h.futex_offset);
}
