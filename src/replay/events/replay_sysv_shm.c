/* Replaying shmat: each recorded segment id gets a private segment of the replay, created
 * at its first attach with the recorded size and content and attached at the recorded
 * address; later attaches (other processes, after fork) share it. deja keeps one
 * attachment of its own, so a segment outlives its processes' detaches like the recorded
 * one (it is marked for removal at once and goes away with deja). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>

#include "common/log.h"
#include "replay/events/replay_shared.h"
#include "replay/events/replay_special.h"

/* A segment of the replay: the replay's (e->shared). */
struct shm_segment {
  int rec_id, id;
  uint8_t *mine; /* deja's attachment */
  uint64_t len;
};

static struct shm_segment *segment_for(struct replay_engine *e, int rec_id,
                                       const struct event_mem *m) {
  struct replay_shared *sh = e->shared;
  for (int i = 0; i < sh->nshm; i++)
    if (sh->shm[i].rec_id == rec_id)
      return &sh->shm[i];
  int id = shmget(IPC_PRIVATE, m->len, IPC_CREAT | 0600);
  void *mine = id < 0 ? (void *)-1 : shmat(id, NULL, 0);
  if (mine == (void *)-1) {
    diverge(e, "cannot create a %" PRIu32 "-byte shared memory segment for the replay: %s", m->len,
            strerror(errno));
    return NULL;
  }
  shmctl(id, IPC_RMID, NULL);
  sh->shm = xrealloc(sh->shm, (size_t)(sh->nshm + 1) * sizeof *sh->shm);
  sh->shm[sh->nshm] = (struct shm_segment){rec_id, id, mine, m->len};
  return &sh->shm[sh->nshm++];
}

void replay_shm_free(struct replay_shared *sh) {
  for (int i = 0; i < sh->nshm; i++)
    shmdt(sh->shm[i].mine); /* marked for removal: it goes with the last attachment */
  free(sh->shm);
  sh->shm = NULL;
  sh->nshm = 0;
}

int replay_shmat(struct replay_engine *e, struct rptask *x, const struct syscall_desc *d) {
  (void)d;
  const struct event_mem *m = NULL;
  for (uint32_t i = 0; i < e->ev->nmem; i++)
    if (e->ev->mem[i].addr == (uint64_t)e->ev->result)
      m = &e->ev->mem[i];
  if (!m)
    return diverge(e, "the trace lacks the content of the attached shared memory segment");
  struct shm_segment *s = segment_for(e, (int)e->ev->regs.rdi, m);
  if (!s)
    return REPLAY_DIVERGED;
  if (s->len < m->len)
    return diverge(e,
                   "shared memory segment %d is %" PRIu64 " bytes in the replay, recorded %" PRIu32,
                   s->rec_id, s->len, m->len);
  /* The content as recorded at this attach (data from before the recording, or written
   * by processes that replay re-executes: then it is already equal). */
  if (memcmp(s->mine, m->data, m->len) != 0)
    memcpy(s->mine, m->data, m->len);
  struct user_regs_struct regs = x->t.regs;
  regs.rdi = (uint64_t)s->id;
  regs.rsi = (uint64_t)e->ev->result;
  regs.rdx &= ~(uint64_t)SHM_RND;
  if (task_set_regs(&x->t, &regs) < 0)
    return -1;
  struct stop st;
  char buf[256];
  if (run_task(e, x, &st, false) < 0)
    return -1;
  if (st.kind != STOP_SYSCALL_EXIT || task_get_regs(&x->t) < 0)
    return diverge(e, "shmat did not return; found %s", stop_desc(&st, buf, sizeof buf));
  int64_t got = (int64_t)x->t.regs.rax;
  struct user_regs_struct back = x->t.regs; /* the recorded arguments back */
  for (int i = 0; i < 6; i++)
    regs_set_arg(&back, i, regs_arg(&e->ev->regs, i));
  back.orig_rax = e->ev->regs.orig_rax;
  if (task_set_regs(&x->t, &back) < 0)
    return -1;
  if (got != e->ev->result)
    return diverge(e, "shmat attached at 0x%" PRIx64 ", recorded 0x%" PRIx64, (uint64_t)got,
                   (uint64_t)e->ev->result);
  return 0;
}
