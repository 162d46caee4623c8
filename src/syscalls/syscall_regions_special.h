/* Regions of OUT_SPECIAL calls, whose written memory depends on a command argument. */
#ifndef DEJA_SYSCALL_REGIONS_SPECIAL_H
#define DEJA_SYSCALL_REGIONS_SPECIAL_H

#include <stdint.h>

#include "syscalls/syscall_table.h"

/* How the special cases report regions and read tracee memory (0 or -1). */
struct special_regions {
  void (*add)(struct special_regions *s, uint64_t addr, uint64_t len);
  int (*read)(struct special_regions *s, uint64_t addr, void *buf, size_t len);
};

/* Adds the regions call D wrote; -1 when tracee memory needed to size them is unreadable. */
int special_regions(const struct syscall_desc *d, const uint64_t args[6], int64_t result,
                    struct special_regions *s);

#endif
