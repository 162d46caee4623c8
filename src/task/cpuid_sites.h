/* The cpuid sites of a program interpreter's code that a jmp can take the place of
 * (task/cpuid_patch.h), with the instructions after each cpuid that the jmp covers.
 *
 * Finding them decodes the code (capstone: its loading and the checks that no branch
 * lands inside the covered bytes cost 10-40 ms), so they are kept: in memory for the
 * deja process, and in a cache file per interpreter (KEY, the interpreter's preserved
 * file name, names its content) under $XDG_CACHE_HOME/deja or ~/.cache/deja, a private
 * directory. What a cache file says is checked against the code (each site's bytes)
 * before it is used. DEJA_CPUID_CACHE=0 neither reads nor writes it. */
#ifndef DEJA_TASK_CPUID_SITES_H
#define DEJA_TASK_CPUID_SITES_H

#include <stdint.h>

#include "arch/x86_displace.h"
#include "task/task.h"

#define CPUID_SITES_MAX 96

struct cpuid_site {
  uint64_t off;               /* the cpuid's offset from the code's start */
  struct x86_displaced after; /* what follows it, planned at base + off + 2 */
};

struct cpuid_sites {
  char key[256];
  uint64_t base, len; /* where they were planned, the code's length */
  int n;
  struct cpuid_site site[CPUID_SITES_MAX];
};

/* The sites of the interpreter code at [BASE, BASE+LEN) of T. NULL when none can be
 * found (capstone missing, the code unreadable). */
const struct cpuid_sites *cpuid_sites_of(struct task *t, uint64_t base, uint64_t len,
                                         const char *key);
/* Site I's moved instructions for the code at BASE. */
struct x86_displaced cpuid_site_after(const struct cpuid_sites *s, int i, uint64_t base);

#endif
