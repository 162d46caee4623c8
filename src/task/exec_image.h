/* A freshly exec'ed process image: its initial stack (argv, envp, auxiliary vector) and the
 * per-exec setup both record and replay apply (vDSO hidden, cpuid faulting on). */
#ifndef DEJA_TASK_EXEC_IMAGE_H
#define DEJA_TASK_EXEC_IMAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "task/proc_maps.h"
#include "task/task.h"

/* At the syscall-exit stop of a successful execve: rewrites AT_SYSINFO_EHDR in the
 * auxiliary vector into AT_IGNORE (time queries become system calls) and collects argv
 * and envp as NUL-separated strings (malloc'ed *STRINGS, *LEN, *ARGC, *ENVC).
 * Returns 0 or -1 with a message in ERR. */
int exec_image_prepare(struct task *t, char **strings, uint32_t *len, uint32_t *argc,
                       uint32_t *envc, char *err, size_t errlen);

/* Whether this CPU and kernel can fault cpuid (asked once, of deja's own thread): when
 * not, no injection is tried at each exec. */
bool exec_image_cpuid_faulting_possible(void);
/* Whether a recording lets the program run cpuid natively: the CPU cannot fault it, or
 * DEJA_CPUID_NATIVE=1 asks to record as on such a CPU (for tests). */
bool exec_image_cpuid_native(void);

/* Runs system call NR with ARGS in T at its current instruction (a `syscall` written
 * there for it and the bytes put back), registers restored: at the exec stop, before the
 * new image ran. The result; *OK false when the injection failed. */
int64_t exec_image_inject(struct task *t, long nr, const uint64_t args[6], bool *ok);

/* Turns on cpuid faulting for the new image (it is reset by execve) by injecting
 * arch_prctl(ARCH_SET_CPUID, 0) at the current instruction. Returns 0 when on, 1 when the
 * CPU or kernel cannot fault cpuid, -1 when the injection failed. */
int exec_image_enable_cpuid_faulting(struct task *t);

#endif
