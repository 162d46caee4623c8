/* Replay's side of patching rdtsc (see replay_tsc.h). */
#include "replay/events/replay_tsc.h"

#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "replay/events/replay_shared.h"
#include "task/tsc_patch.h"

/* The versions of the tables, newest first: the replay's (e->shared). */
struct tsc_version {
  struct tsc_version *next;
  struct tsc_table t;
};

static struct tsc_table *new_version(struct replay_engine *e, const struct tsc_table *from) {
  struct tsc_version *v = xcalloc(1, sizeof *v);
  if (from)
    tsc_table_copy(&v->t, from);
  v->next = e->shared->tsc_versions;
  e->shared->tsc_versions = v;
  return &v->t;
}

/* Gives every task of X's process the table T. */
static void set_table(struct replay_engine *e, const struct rptask *x, const struct tsc_table *t) {
  for (int i = 0; i < e->ntasks; i++)
    if (e->tasks[i]->rec_pid == x->rec_pid)
      e->tasks[i]->tsc = t;
}

int replay_tsc_exec(struct replay_engine *e, struct rptask *x) {
  if (!e->tsc_patched)
    return 0;
  struct tsc_table *t = new_version(e, NULL);
  if (tsc_patch_image(&x->t, t) < 0)
    return diverge(e, "cannot patch rdtsc in the new program image as the recording did");
  set_table(e, x, t);
  return 0;
}

int replay_tsc_call(struct replay_engine *e, struct rptask *x) {
  const struct user_regs_struct *r = &e->ev->regs;
  if (!e->tsc_patched || !tsc_patch_call_matters(r, e->ev->result))
    return 0;
  static const struct tsc_table none;
  struct tsc_table *t = new_version(e, x->tsc ? x->tsc : &none);
  if (tsc_patch_after_call(&x->t, t, r, e->ev->result) < 0)
    return diverge(e, "cannot patch rdtsc in newly executable code as the recording did");
  set_table(e, x, t);
  return 0;
}

void replay_tsc_original(const struct rptask *x, uint64_t addr, void *buf, size_t len) {
  if (x->tsc)
    tsc_table_original(x->tsc, addr, buf, len);
}

void replay_tsc_free(struct replay_shared *sh) {
  while (sh->tsc_versions) {
    struct tsc_version *v = sh->tsc_versions;
    sh->tsc_versions = v->next;
    tsc_table_free(&v->t);
    free(v);
  }
}
