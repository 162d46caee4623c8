/* Windows of the replay between two checkpoints that cannot hold a breakpoint or
 * watchpoint hit, told without replaying them: a reverse-continue passes them over.
 *
 * Both checkpoints are stopped copies (forks) of the replayed process, taken at event
 * boundaries A before B. When the page of the watched bytes is the same physical frame
 * in both copies, nothing wrote it between A and B: the copy at A shared that frame from
 * A on (a fork shares every page copy-on-write), so a write in the replay after A, in
 * whichever run that reached B, would have given the writer a new frame (a frame
 * shared with a living copy is never written in place, and one frame is never handed out
 * twice while a copy holds it). Page frame numbers in /proc/PID/pagemap are readable
 * with CAP_SYS_ADMIN only; without it they read as 0 and nothing is passed over. A page
 * not present in either copy tells nothing (it may have been written and then
 * discarded). Same-page merging (KSM) could make two frames one: not used when it runs.
 * Checkpoints are never taken of processes with writable shared memory, whose frames
 * are written in place. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "replay/engine/link_map.h"
#include "replay/checkpoints/replay_checkpoint.h"
#include "replay/timeline/timeline_internal.h"
#include "task/proc_maps.h"

#define PAGE_SIZE_4K 4096ull
#define PM_PRESENT (1ull << 63)
#define PM_PFN_MASK ((1ull << 55) - 1)

/* The frame of the page at ADDR in process PID: 0 when not present or not readable. */
static uint64_t frame_of(pid_t pid, uint64_t addr) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/pagemap", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  uint64_t e = 0;
  ssize_t n = pread(fd, &e, sizeof e, (off_t)(addr / PAGE_SIZE_4K * sizeof e));
  close(fd);
  return n == (ssize_t)sizeof e && (e & PM_PRESENT) ? e & PM_PFN_MASK : 0;
}

/* Whether the LEN bytes at ADDR are on pages that are the same frames in copies A and B. */
static bool bytes_kept(pid_t a, pid_t b, uint64_t addr, uint64_t len) {
  for (uint64_t page = addr & ~(PAGE_SIZE_4K - 1); page < addr + len; page += PAGE_SIZE_4K) {
    uint64_t fa = frame_of(a, page);
    if (!fa || fa != frame_of(b, page))
      return false;
  }
  return true;
}

static bool ksm_runs(void) {
  FILE *f = fopen("/sys/kernel/mm/ksm/run", "re");
  if (!f)
    return false;
  int run = 0;
  bool on = fscanf(f, "%d", &run) != 1 || run != 0;
  fclose(f);
  return on;
}

/* Whether breakpoint ADDR cannot be hit between copies A and B of the process of X: it
 * is the dynamic linker's hook, which is called only right after a store to r_state
 * (stretch_observe.h): r_debug's page is the same frame in both (no store between them),
 * and no task was inside the dynamic linker at A (between a store and its call). */
static bool hook_quiet(struct rptask *x, const struct replay_checkpoint *ca, pid_t a, pid_t b,
                       uint64_t addr) {
  uint64_t rd = replay_r_debug_addr(x);
  struct r_debug_ext r;
  if (!rd || task_read_mem(&x->t, rd, &r, sizeof r) < 0 || r.r_brk != addr ||
      (r.r_version >= 2 && r.r_next))
    return false; /* not the hook, or more namespaces than one */
  struct proc_mapping hook;
  if (proc_mapping_find(x->t.tid, addr, &hook) < 0 || !bytes_kept(a, b, rd, sizeof r))
    return false;
  uint64_t pcs[64];
  int n = replay_checkpoint_pcs(ca, x->rec_pid, pcs, 64);
  if (n == 64)
    return false;
  for (int i = 0; i < n; i++) {
    struct proc_mapping m;
    if (proc_mapping_find(a, pcs[i], &m) == 0 && !strcmp(m.name, hook.name))
      return false;
  }
  return true;
}

bool tl_window_quiet(struct timeline *tl, const struct tl_fork *fa, const struct tl_fork *fb) {
  const struct replay_debug *d = tl->d;
  if (!fa || !fb || fa->pos.kind != TL_BOUNDARY || fa->pos.steps || fb->pos.kind != TL_BOUNDARY ||
      fb->pos.steps || fa->pos.event >= fb->pos.event || !replay_checkpoint_valid(fa->cp, tl->s) ||
      !replay_checkpoint_valid(fb->cp, tl->s) || ksm_runs())
    return false;
  struct rptask *x = engine_process(&tl->s->e, d->pid);
  pid_t a = replay_checkpoint_copy_of(fa->cp, d->pid),
        b = replay_checkpoint_copy_of(fb->cp, d->pid);
  if (!x || a < 0 || b < 0)
    return false;
  for (int i = 0; i < d->breaks.nwps; i++)
    if (d->breaks.wps[i].type != 2 ||
        !bytes_kept(a, b, d->breaks.wps[i].addr, (uint64_t)d->breaks.wps[i].len))
      return false; /* read and access watchpoints trigger without a write */
  for (int i = 0; i < d->breaks.nbps; i++)
    if (d->breaks.bp_exec[i] >= 0 && !hook_quiet(x, fa->cp, a, b, d->breaks.bps[i]))
      return false;
  return true;
}
