/* The library's semaphore operations (preload/sem.c, SBUF_SEM_NR), made by deja on
 * glibc's word of a sem_open semaphore: the value in the low 32 bits, the count of
 * waiters in the high 32. deja makes them one at a time, at the call's exit stop, where
 * the event recording the word is written at once: the trace has them in the order they
 * were made, and replay writes the word at each, so processes that share nothing else
 * run at once (record_shared.c) and replay as recorded. */
#include <errno.h>
#include <limits.h>

#include "preload/syscallbuf_abi.h"
#include "record/recorder_internal.h"

#define ONE_WAITER (1ull << 32)

int record_sem_entry(struct recorder *r, struct rtask *x) {
  x->sem_op = (int)x->entry.rdi;
  x->emulated = true;
  x->emu_result = -ENOSYS;
  x->t.regs.orig_rax = (uint64_t)-1; /* the kernel skips it */
  if (task_set_regs(&x->t, &x->t.regs) < 0)
    return recorder_abort(r, "cannot skip a semaphore operation's system call");
  return 0;
}

/* Operation OP on word *W: its result. */
static int64_t apply(int op, uint64_t *w) {
  uint32_t value = (uint32_t)*w;
  switch (op) {
  case SBUF_SEM_TRYWAIT: return value ? (--*w, 0) : -EAGAIN;
  case SBUF_SEM_WAIT: return value ? (--*w, 0) : (*w += ONE_WAITER, 1);
  case SBUF_SEM_RETRY: return value ? (*w -= ONE_WAITER + 1, 0) : 1;
  case SBUF_SEM_GIVE_UP: return value ? (*w -= ONE_WAITER + 1, 0) : (*w -= ONE_WAITER, 1);
  case SBUF_SEM_POST:
    if (value == INT_MAX)
      return -EOVERFLOW;
    ++*w;
    return *w >> 32 ? 1 : 0;
  case SBUF_SEM_VALUE: return value;
  }
  return -EINVAL;
}

int64_t record_sem_exit(struct rtask *x) {
  int op = x->sem_op;
  if (op == SBUF_SEM_UNROUTED) {
    x->proc->sem_routed = false; /* its semaphores group it with the others again */
    record_shared_changed(x);
    return 0;
  }
  uint64_t addr = x->entry.rsi;
  if (addr % 8 || task_read_mem(&x->t, addr, &x->sem_word, sizeof x->sem_word) < 0)
    return -EINVAL;
  uint64_t before = x->sem_word;
  int64_t res = apply(op, &x->sem_word);
  if (x->sem_word != before && task_write_mem(&x->t, addr, &x->sem_word, sizeof x->sem_word) < 0)
    return -EINVAL;
  return res;
}

void record_sem_effect(const struct rtask *x, struct event *ev) {
  int op = x->sem_op;
  if (op != SBUF_SEM_UNROUTED && ev->result != -EINVAL)
    event_add_mem(ev, x->entry.rsi, (const uint8_t *)&x->sem_word, sizeof x->sem_word);
}
