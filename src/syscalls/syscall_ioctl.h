/* The memory an ioctl writes, by request (syscall_ioctl.c). */
#ifndef DEJA_SYSCALL_IOCTL_H
#define DEJA_SYSCALL_IOCTL_H

#include <stdbool.h>
#include <stdint.h>

#include "syscalls/syscall_regions_special.h"

/* Adds the regions an ioctl with ARGS that returned RESULT wrote; -1 when tracee memory
 * needed to size them is unreadable. */
int ioctl_regions(const uint64_t args[6], int64_t result, struct special_regions *s);

#endif
