/* Where a thread-local variable is (gdb's qGetTLSAddr), read from the replayed thread as
 * glibc lays TLS out on x86-64: the thread pointer (fs_base) points at the thread's TCB,
 * whose second word is the dynamic thread vector (DTV); entry M of it (16 bytes each)
 * holds the address of module M's TLS block in this thread, or -1 while it is not
 * allocated (a library loaded by dlopen whose TLS the thread has not touched). Module
 * ids are glibc's: 1, 2, ... in load order among the modules that have a PT_TLS segment,
 * which is the order of the dynamic linker's list of loaded objects (r_debug.r_map). */
#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "replay/adapter/gdb_adapter.h"
#include "replay/engine/link_map.h"

#define MAX_MODULES 4096
#define MAX_PHDRS 64

/* glibc's struct link_map, its public part. */
struct lm_public {
  uint64_t l_addr, l_name, l_ld, l_next, l_prev;
};

/* The program headers of an ELF image: at *PHDR, *PHNUM of them. The executable's from
 * the recorded auxiliary vector; a shared object's from its ELF header at its base. */
static bool phdrs_of(struct rptask *x, const struct lm_public *m, bool first, uint64_t *phdr,
                     uint64_t *phnum) {
  if (first) {
    *phdr = *phnum = 0;
    for (size_t at = 0; at + 16 <= x->auxv_len; at += 16) {
      uint64_t kv[2];
      memcpy(kv, x->auxv + at, sizeof kv);
      if (kv[0] == AT_PHDR)
        *phdr = kv[1];
      if (kv[0] == AT_PHNUM)
        *phnum = kv[1];
    }
    return *phdr && *phnum;
  }
  Elf64_Ehdr eh;
  if (task_read_mem(&x->t, m->l_addr, &eh, sizeof eh) < 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG))
    return false;
  *phdr = m->l_addr + eh.e_phoff;
  *phnum = eh.e_phnum;
  return true;
}

/* Whether the image has a PT_TLS segment. */
static bool has_tls(struct rptask *x, const struct lm_public *m, bool first) {
  uint64_t phdr, phnum;
  if (!phdrs_of(x, m, first, &phdr, &phnum))
    return false;
  for (uint64_t i = 0; i < phnum && i < MAX_PHDRS; i++) {
    Elf64_Phdr ph;
    if (task_read_mem(&x->t, phdr + i * sizeof ph, &ph, sizeof ph) < 0)
      return false;
    if (ph.p_type == PT_TLS)
      return true;
  }
  return false;
}

/* The TLS module id of the object whose link_map is at LM (0: the executable), or 0. */
static uint64_t module_of(struct rptask *x, uint64_t lm, char *err, size_t errlen) {
  uint64_t rd = replay_r_debug_addr(x);
  struct r_debug_ext r;
  if (!rd || task_read_mem(&x->t, rd, &r, sizeof r) < 0) {
    if (lm == 0)
      return 1; /* a static program: its own TLS is the only module */
    snprintf(err, errlen, "the dynamic linker's list of loaded objects cannot be read");
    return 0;
  }
  uint64_t id = 0;
  int n = 0;
  for (uint64_t at = r.r_map; at && n < MAX_MODULES; n++) {
    struct lm_public m;
    if (task_read_mem(&x->t, at, &m, sizeof m) < 0)
      break;
    bool tls = has_tls(x, &m, n == 0);
    id += tls;
    if (at == lm || (lm == 0 && n == 0))
      return tls ? id : 0;
    at = m.l_next;
  }
  snprintf(err, errlen, "no loaded object has its link_map at 0x%" PRIx64, lm);
  return 0;
}

int gdb_tls_address(void *ctx, pid_t tid, uint64_t lm, uint64_t offset, uint64_t *addr, char *err,
                    size_t errlen) {
  struct gdb_adapter *a = ctx;
  struct rptask *x = engine_task(&a->s->e, tid);
  if (!x || task_get_regs(&x->t) < 0) {
    snprintf(err, errlen, "the thread is not replayed now");
    return -1;
  }
  uint64_t module = module_of(x, lm, err, errlen);
  if (!module)
    return -1;
  uint64_t dtv = 0, block = 0;
  if (!x->t.regs.fs_base || task_read_mem(&x->t, x->t.regs.fs_base + 8, &dtv, sizeof dtv) < 0 ||
      !dtv || task_read_mem(&x->t, dtv + 16 * module, &block, sizeof block) < 0) {
    snprintf(err, errlen, "its thread pointer is not set up yet");
    return -1;
  }
  if (block == (uint64_t)-1 || !block) {
    snprintf(err, errlen, "the TLS block of module %" PRIu64 " is not allocated in it yet", module);
    return -1;
  }
  *addr = block + offset;
  return 0;
}
