/* The dynamic linker's r_debug in a replayed process: where gdb learns the loaded
 * libraries (r_map) and puts its shared-library event breakpoint (r_brk). */
#ifndef DEJA_REPLAY_LINK_MAP_H
#define DEJA_REPLAY_LINK_MAP_H

#include <stdint.h>

struct rptask;

/* glibc's struct r_debug_extended: r_debug, then the next namespace's (dlmopen). */
struct r_debug_ext {
  int32_t r_version, pad;
  uint64_t r_map, r_brk;
  int32_t r_state, pad2;
  uint64_t r_ldbase, r_next;
};

/* The address of the dynamic linker's r_debug in X's process (DT_DEBUG of the
 * executable's dynamic section, found through the recorded auxiliary vector), or 0 (a
 * static program, or before the dynamic linker filled it in). */
uint64_t replay_r_debug_addr(struct rptask *x);

#endif
