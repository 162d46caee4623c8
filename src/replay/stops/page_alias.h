/* A second mapping of one page of a replayed process, for the store hooks
 * (store_hooks.h): while a watched page is write-protected, stores next to its watched
 * bytes go through an alias of it instead of faulting one by one. A private page has no
 * alias in Linux, so for one run of a task the page is moved aside (mremap keeps its
 * mapping: file, offset, protection) and a memfd page with its contents is mapped in its
 * place and at the alias; at the run's stop the contents go back into the moved page and
 * it is moved back. Nothing else sees the memfd page: between runs (the replay's system
 * calls, checkpoint forks, gdb's reads) the page is the program's own again. */
#ifndef DEJA_REPLAY_PAGE_ALIAS_H
#define DEJA_REPLAY_PAGE_ALIAS_H

#include <stdbool.h>
#include <stdint.h>

#include "replay/engine/replay_engine.h"

struct page_alias {
  uint64_t page;  /* the program's page (0: no alias) */
  uint64_t alias; /* where the same page is mapped writable */
  uint64_t saved; /* where the program's own mapping waits meanwhile */
  int orig_prot;  /* the program's protection of it */
};

/* Gives X's PAGE (protection ORIG, PROT for the run) an alias at ALIAS, its own mapping
 * moved to SAVED (both pages reserved by the caller); at a stop that is not a system
 * call's entry. False when it could not (the page is then as it was). */
bool page_alias_make(struct page_alias *a, struct rptask *x, uint64_t page, int orig, int prot,
                     uint64_t alias, uint64_t saved);
/* Puts the program's mapping back with the contents written meanwhile (AT_ENTRY: at a
 * system call's entry stop). */
void page_alias_undo(struct page_alias *a, struct rptask *x, bool at_entry);

#endif
