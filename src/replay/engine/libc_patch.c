/* Whether a replayed process has patched its libc yet (see libc_patch.h). */
#include "replay/engine/libc_patch.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "replay/engine/replay_engine.h"
#include "task/proc_maps.h"

void libc_patch_note_call(struct rptask **tasks, int ntasks, const struct rptask *x,
                          const struct event *ev) {
  if (ev->regs.orig_rax != SYS_mprotect || x->libc_patch == LIBC_PATCH_DONE)
    return;
  uint64_t prot = ev->regs.rdx;
  enum libc_patch_state next = x->libc_patch;
  if (x->libc_patch == LIBC_PATCH_AHEAD && prot == (PROT_READ | PROT_WRITE | PROT_EXEC))
    next = LIBC_PATCH_WRITING;
  else if (x->libc_patch == LIBC_PATCH_WRITING && prot == (PROT_READ | PROT_EXEC) &&
           ev->regs.rdi == x->libc_patch_text)
    next = LIBC_PATCH_DONE;
  else
    return;
  for (int i = 0; i < ntasks; i++)
    if (tasks[i]->rec_pid == x->rec_pid) {
      tasks[i]->libc_patch = next;
      tasks[i]->libc_patch_text = ev->regs.rdi;
    }
}

struct guard_ctx {
  uint64_t (*r)[2];
  int max, n;
  bool preload;
};

/* Preserved files keep their name before a '-' (files/libc.so.6-<hash>); a file mapped
 * from elsewhere has it as is. */
static bool named(const char *path, const char *base) {
  const char *slash = strrchr(path, '/');
  size_t len = strlen(base);
  return slash && !strncmp(slash + 1, base, len) && (!slash[1 + len] || slash[1 + len] == '-');
}

static int collect(const struct proc_mapping *m, void *ctx) {
  struct guard_ctx *g = ctx;
  if (named(m->name, "libdeja-preload.so"))
    g->preload = true;
  if ((m->prot & PROT_EXEC) && named(m->name, "libc.so.6") && g->n < g->max) {
    g->r[g->n][0] = m->start;
    g->r[g->n++][1] = m->end;
  }
  return 0;
}

int libc_patch_guarded(struct rptask *x, uint64_t (*r)[2], int max) {
  if (x->libc_patch == LIBC_PATCH_DONE)
    return 0;
  struct guard_ctx g = {r, max, 0, false};
  if (proc_maps_each(x->t.tid, collect, &g) < 0)
    return 0;
  /* ld.so maps the preload library before libc's code first runs: without it, nothing
   * will patch this libc (noted, so the maps are not read again at every resume) */
  if (!g.preload && g.n) {
    x->libc_patch = LIBC_PATCH_DONE;
    return 0;
  }
  return g.preload ? g.n : 0;
}
