/* Finding r_debug through the executable's dynamic section (see link_map.h). */
#include "replay/engine/link_map.h"

#include <elf.h>
#include <string.h>

#include "replay/engine/replay_engine.h"

uint64_t replay_r_debug_addr(struct rptask *x) {
  uint64_t phdr = 0, phnum = 0;
  for (size_t i = 0; i + 16 <= x->auxv_len; i += 16) {
    uint64_t kv[2];
    memcpy(kv, x->auxv + i, 16);
    if (kv[0] == AT_PHDR)
      phdr = kv[1];
    else if (kv[0] == AT_PHNUM)
      phnum = kv[1];
  }
  if (!phdr || !phnum || phnum > 64)
    return 0;
  Elf64_Phdr ph[64];
  if (task_read_mem(&x->t, phdr, ph, phnum * sizeof ph[0]) < 0)
    return 0;
  uint64_t bias = 0, dyn = 0;
  for (uint64_t i = 0; i < phnum; i++)
    if (ph[i].p_type == PT_PHDR)
      bias = phdr - ph[i].p_vaddr;
  for (uint64_t i = 0; i < phnum; i++)
    if (ph[i].p_type == PT_DYNAMIC)
      dyn = ph[i].p_vaddr + bias;
  for (int i = 0; dyn && i < 256; i++) {
    Elf64_Dyn d;
    if (task_read_mem(&x->t, dyn + (uint64_t)i * sizeof d, &d, sizeof d) < 0 || d.d_tag == DT_NULL)
      return 0;
    if (d.d_tag == DT_DEBUG)
      return d.d_un.d_ptr;
  }
  return 0;
}
