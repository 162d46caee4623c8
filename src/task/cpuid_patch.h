/* cpuid in the program interpreter without a ptrace stop. glibc's ld.so asks cpuid 40-70
 * times at every exec (its cpu feature and cache set-up), each a trap and a stop of
 * ~25 us. At the exec the recorder maps a stub page near the interpreter, with a table of
 * the answers its trap would give (arch/x86_cpuid_stub.h), and puts a jmp to the page at
 * each cpuid site of the interpreter's code it can move (arch/x86_displace.h; a site is
 * left alone when a branch may land inside the bytes the jmp covers). The exec event
 * carries the page's address and length and, as memory, the page and the patched bytes:
 * replay maps the page there and writes them, so the same code runs in both and nothing
 * depends on the replaying CPU. A leaf missing from the table runs a real cpuid in the
 * page, which traps and is recorded as before.
 *
 * Where cpuid is not faulted (DEJA_CPUID_NATIVE, or a CPU that cannot) nothing is patched.
 * DEJA_CPUID_PATCH=0 turns the patching off. The sites of one interpreter are found once
 * per deja process (capstone) and, by the interpreter's preserved file name (which names
 * its content), kept for the next exec. */
#ifndef DEJA_TASK_CPUID_PATCH_H
#define DEJA_TASK_CPUID_PATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "task/task.h"

struct cpuid_patched {
  uint64_t addr;
  uint8_t len;
  uint8_t bytes[16];
};

struct cpuid_patch {
  uint64_t stub;     /* the page's address (0: nothing patched) */
  uint32_t stub_len; /* its length (whole pages) */
  uint8_t *page;     /* its content */
  int n;             /* the sites patched */
  struct cpuid_patched *site;
};

/* Whether execs are patched (cpuid faulted and DEJA_CPUID_PATCH is not 0). */
bool cpuid_patch_wanted(void);

/* At the exec stop of T: patches the interpreter whose NMAPS mappings are MAPS (start,
 * end, file offset, PROT_*; KEY names its content) into OUT. Returns 0 (OUT->stub 0
 * when nothing was patched: no site, or no room), or -1 when T was left half patched
 * (a message said why). */
int cpuid_patch_interp(struct task *t, const uint64_t (*maps)[4], int nmaps, const char *key,
                       struct cpuid_patch *out);
void cpuid_patch_free(struct cpuid_patch *p);

#endif
