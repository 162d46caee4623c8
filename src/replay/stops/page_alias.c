/* A page's alias by a memfd page in its place for one run (see page_alias.h). */
#include "replay/stops/page_alias.h"

#include <inttypes.h>
#include <linux/memfd.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "common/log.h"
#include "task/proc_maps.h"
#include "task/task.h"

#define PAGE 4096ull

static int64_t call(struct rptask *x, bool at_entry, long nr, uint64_t a0, uint64_t a1, uint64_t a2,
                    uint64_t a3, uint64_t a4, uint64_t a5, bool *ok) {
  uint64_t args[6] = {a0, a1, a2, a3, a4, a5};
  bool injected = false;
  int64_t rc = task_inject_syscall(&x->t, at_entry, x->gadget, nr, args, &injected);
  *ok = *ok && injected && !(rc < 0 && rc >= -4095);
  return rc;
}

static bool copy_page(struct task *t, uint64_t from, uint64_t to) {
  uint8_t buf[PAGE];
  return task_read_mem(t, from, buf, sizeof buf) == 0 &&
         task_write_mem(t, to, buf, sizeof buf) == 0;
}

bool page_alias_make(struct page_alias *a, struct rptask *x, uint64_t page, int orig, int prot,
                     uint64_t alias, uint64_t saved) {
  memset(a, 0, sizeof *a);
  if (!x->gadget)
    return false;
  bool ok = true;
  /* the name: the page's first bytes would do as well, but a fixed one reads better in
   * /proc/PID/maps */
  static const char name[] = "deja-alias";
  if (task_write_mem(&x->t, alias, name, sizeof name) < 0)
    return false;
  int64_t fd = call(x, false, SYS_memfd_create, alias, MFD_CLOEXEC, 0, 0, 0, 0, &ok);
  if (!ok)
    return false;
  call(x, false, SYS_ftruncate, (uint64_t)fd, PAGE, 0, 0, 0, 0, &ok);
  call(x, false, SYS_mremap, page, PAGE, PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, saved, 0, &ok);
  bool moved = ok;
  call(x, false, SYS_mmap, alias, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
       (uint64_t)fd, 0, &ok);
  if (ok && !copy_page(&x->t, saved, alias))
    ok = false;
  call(x, false, SYS_mmap, page, PAGE, (uint64_t)prot, MAP_SHARED | MAP_FIXED, (uint64_t)fd, 0,
       &ok);
  /* the program's own page keeps the program's protection while it waits */
  call(x, false, SYS_mprotect, saved, PAGE, (uint64_t)orig, 0, 0, 0, &ok);
  bool closed = true;
  call(x, false, SYS_close, (uint64_t)fd, 0, 0, 0, 0, 0, &closed);
  if (!ok) {
    if (moved) {
      bool back = true;
      call(x, false, SYS_mremap, saved, PAGE, PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, page, 0, &back);
      if (!back)
        deja_msg("warning: the page at 0x%" PRIx64 " of task %d could not be put back after "
                 "a failed alias: the replay may diverge",
                 page, x->rec_tid);
    }
    return false;
  }
  a->page = page;
  a->alias = alias;
  a->saved = saved;
  a->orig_prot = orig;
  return true;
}

void page_alias_undo(struct page_alias *a, struct rptask *x, bool at_entry) {
  if (!a->page)
    return;
  /* The program may have unmapped or replaced the page meanwhile (an in-process call of
   * the system call buffer): then its saved mapping is only dropped. */
  struct proc_mapping m;
  bool ours = proc_mapping_find(x->t.tid, a->page, &m) == 0 && !m.priv &&
              strstr(m.name, "deja-alias") != NULL;
  bool ok = true;
  if (ours && copy_page(&x->t, a->alias, a->saved)) {
    call(x, at_entry, SYS_mremap, a->saved, PAGE, PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, a->page, 0,
         &ok);
  } else {
    call(x, at_entry, SYS_munmap, a->saved, PAGE, 0, 0, 0, 0, &ok);
  }
  if (!ok)
    deja_msg("warning: the page at 0x%" PRIx64 " of task %d could not be given back after a "
             "watchpoint's run: the replay may diverge",
             a->page, x->rec_tid);
  a->page = 0;
}
