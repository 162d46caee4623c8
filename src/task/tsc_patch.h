/* rdtsc without PR_SET_TSC. Some kernels and hypervisors (PVM) accept
 * prctl(PR_SET_TSC, PR_TSC_SIGSEGV) but let rdtsc run anyway. There the recorder patches
 * every rdtsc and rdtscp of the program's code into int3 (plus nops to the same length):
 * the trap at site+1 then stands for the instruction, recorded as the SIGSEGV of a
 * trapping kernel is (an EV_INSN event). The trace says so (a file `rdtsc` in its
 * directory) and replay patches exactly when it does, at the same events and in the same
 * way, so memory stays identical.
 *
 * Patched: code from files, when it appears in a process: the executable and the
 * interpreter after execve, a private file mmap with PROT_EXEC, and any private range an
 * mprotect makes executable (which also covers JITs that make their code executable
 * that way). Not patched: code written into memory that is already executable (a JIT
 * writing rwx memory), shared mappings (the write would reach the file), the vDSO (its
 * time functions are system calls already: vdso_patch.h).
 *
 * Each process keeps a table of its patched sites (copied on fork, emptied by exec,
 * updated by munmap and mremap): it recognises the traps and shows a debugger the
 * original bytes. */
#ifndef DEJA_TASK_TSC_PATCH_H
#define DEJA_TASK_TSC_PATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

#include "arch/x86_tsc_sites.h"
#include "task/task.h"

/* The name of the file in a trace directory saying the recording patched rdtsc. */
#define TSC_PATCH_NOTE "rdtsc"

struct tsc_table {
  struct tsc_site *s; /* in address order */
  int n, cap;
};

/* Whether this machine traps rdtsc after PR_SET_TSC (asked once, of a forked child). */
bool tsc_patch_kernel_traps(void);
/* Whether a recording starting now patches: when the kernel does not trap;
 * DEJA_TSC_PATCH=1 patches anyway, DEJA_TSC_PATCH=0 never (for tests). */
bool tsc_patch_wanted(void);
/* Notes in TRACE_DIR that the recording patches. 0, or -1 after saying why. */
int tsc_patch_note(const char *trace_dir);
/* Whether the trace at TRACE_DIR was recorded patching (older traces: no). */
bool tsc_patch_recorded(const char *trace_dir);

void tsc_table_free(struct tsc_table *t);
void tsc_table_copy(struct tsc_table *to, const struct tsc_table *from);

/* After execve: patches the executable file mappings of T's new image; T's process table
 * TAB is emptied first. Returns the number of sites patched or -1. */
int tsc_patch_image(struct task *t, struct tsc_table *tab);
/* Whether the system call with entry registers E and RESULT changes the sites (an
 * address-space call that succeeded). */
bool tsc_patch_call_matters(const struct user_regs_struct *e, int64_t result);
/* After that call, at its exit: patches what it made executable and updates TAB.
 * Returns the number of sites patched or -1. */
int tsc_patch_after_call(struct task *t, struct tsc_table *tab, const struct user_regs_struct *e,
                         int64_t result);

/* The site a SIGTRAP stop at RIP stands for (RIP right after a patched int3 still in
 * place), or NULL. */
const struct tsc_site *tsc_table_trap_site(const struct tsc_table *tab, struct task *t,
                                           uint64_t rip);
/* Puts the original bytes of patched sites back into BUF, LEN bytes read at ADDR (what
 * a debugger must see). */
void tsc_table_original(const struct tsc_table *tab, uint64_t addr, uint8_t *buf, size_t len);

#endif
