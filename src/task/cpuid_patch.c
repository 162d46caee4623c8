/* Patching the interpreter's cpuid sites into jumps to a lookup (see cpuid_patch.h). */
#include "task/cpuid_patch.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "arch/x86_cpuid_stub.h"
#include "common/log.h"
#include "task/cpuid_sites.h"
#include "task/exec_image.h"

#define PAGE 4096u
#define SITE_ROOM (X86_CPUID_SITE_HEAD + X86_DISPLACE_OUT)

/* One table for the whole recording, made at the first exec (deja is pinned by then). */
static struct x86_cpuid_entry table[X86_CPUID_TABLE_MAX];
static int ntable;

bool cpuid_patch_wanted(void) {
  const char *off = getenv("DEJA_CPUID_PATCH");
  return !(off && *off == '0') && !exec_image_cpuid_native();
}

/* Writes the page for P's sites at a text at BASE into OUT->page (the page at OUT->stub)
 * and the jmps into OUT->site. */
static void build(const struct cpuid_sites *p, uint64_t base, struct cpuid_patch *out) {
  uint32_t table_off = (uint32_t)(X86_CPUID_LOOKUP_LEN + p->n * SITE_ROOM + 31) & ~31u;
  x86_cpuid_stub_lookup(out->page, table_off, (uint32_t)ntable);
  memcpy(out->page + table_off, table, (size_t)ntable * sizeof table[0]);
  out->site = xcalloc((size_t)p->n, sizeof *out->site);
  uint32_t at = X86_CPUID_LOOKUP_LEN;
  for (int i = 0; i < p->n; i++, at += SITE_ROOM) {
    struct x86_displaced a = cpuid_site_after(p, i, base);
    uint64_t site = a.addr - 2, to = out->stub + at;
    if (!x86_cpuid_stub_site(to, out->stub, &a, out->page + at))
      continue; /* out of reach: the site keeps its cpuid */
    struct cpuid_patched *s = &out->site[out->n++];
    s->addr = site;
    s->len = (uint8_t)(a.addr + a.off[a.n] - site);
    memset(s->bytes, 0xcc, sizeof s->bytes);
    int32_t rel = (int32_t)(int64_t)(to - (site + X86_JMP_LEN));
    s->bytes[0] = 0xe9;
    memcpy(s->bytes + 1, &rel, 4);
  }
}

/* Maps the page (read and execute, below the interpreter's lowest mapping where that is
 * free) in T. Its address, or 0. */
static uint64_t map_page(struct task *t, uint64_t below, uint32_t len) {
  uint64_t args[6] = {below - len,  len, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
                      (uint64_t)-1, 0};
  bool ok;
  int64_t got = exec_image_inject(t, SYS_mmap, args, &ok);
  return ok && (uint64_t)got < -4096ull ? (uint64_t)got : 0;
}

static int write_all(struct task *t, const struct cpuid_patch *p) {
  if (task_write_mem(t, p->stub, p->page, p->stub_len) < 0)
    return -1;
  for (int i = 0; i < p->n; i++)
    if (task_write_mem(t, p->site[i].addr, p->site[i].bytes, p->site[i].len) < 0)
      return -1;
  return 0;
}

int cpuid_patch_interp(struct task *t, const uint64_t (*maps)[4], int nmaps, const char *key,
                       struct cpuid_patch *out) {
  memset(out, 0, sizeof *out);
  int text = -1;
  uint64_t lowest = UINT64_MAX;
  for (int i = 0; i < nmaps; i++) {
    if ((maps[i][3] & PROT_EXEC) && text < 0)
      text = i;
    lowest = maps[i][0] < lowest ? maps[i][0] : lowest;
  }
  if (text < 0)
    return 0;
  uint64_t base = maps[text][0], len = maps[text][1] - base;
  const struct cpuid_sites *p = cpuid_sites_of(t, base, len, key);
  if (!p || !p->n)
    return 0;
  if (!ntable)
    ntable = x86_cpuid_table(table, X86_CPUID_TABLE_MAX);
  size_t need = X86_CPUID_LOOKUP_LEN + (size_t)p->n * SITE_ROOM + 32 + ntable * sizeof table[0];
  out->stub_len = (uint32_t)((need + PAGE - 1) & ~(size_t)(PAGE - 1));
  out->stub = map_page(t, lowest, out->stub_len);
  if (!out->stub)
    return 0;
  out->page = xcalloc(1, out->stub_len);
  memset(out->page, 0xcc, X86_CPUID_LOOKUP_LEN + (size_t)p->n * SITE_ROOM);
  build(p, base, out);
  if (write_all(t, out) == 0)
    return 0;
  deja_msg("cannot patch cpuid in the program interpreter of task %d: %s", t->tid, strerror(errno));
  return -1;
}

void cpuid_patch_free(struct cpuid_patch *p) {
  free(p->page);
  free(p->site);
  memset(p, 0, sizeof *p);
}
