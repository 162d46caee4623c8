/* Rewriting the vDSO's time functions to make real system calls (see vdso_patch.c). */
#ifndef DEJA_TASK_VDSO_PATCH_H
#define DEJA_TASK_VDSO_PATCH_H

#include <stddef.h>
#include <stdint.h>

#include "task/task.h"

/* Patches the vDSO mapped at BASE in T; returns how many functions, or -1. */
int vdso_patch(struct task *t, uint64_t base);
/* The same for the vDSO an auxiliary vector (AUXV, LEN bytes of pairs) names; 0 when it
 * names none. */
int vdso_patch_from_auxv(struct task *t, const uint8_t *auxv, size_t len);

#endif
