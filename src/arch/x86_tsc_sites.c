/* rdtsc and rdtscp sites in machine code (see x86_tsc_sites.h). */
#include "arch/x86_tsc_sites.h"

#include <stdlib.h>
#include <string.h>

#include "arch/x86_decoder.h"
#include "common/log.h"

/* How far before a candidate decoding starts: each must land on it. */
static const size_t back[] = {24, 48, 96, 192};

/* A decoder of its own without operand details (several times faster). */
static csh lean_decoder(void) {
  static csh h;
  static int state; /* 0: not tried, 1: ready, -1: unavailable */
  if (state == 0)
    state = x86_decoder() && x86_cs.open(CS_ARCH_X86, CS_MODE_64, &h) == CS_ERR_OK ? 1 : -1;
  return state == 1 ? h : 0;
}

/* Whether linear decoding from FROM reaches AT exactly (an undecodable byte counts as one
 * byte, as disassemblers do). */
static bool lands_on(csh h, cs_insn *insn, const uint8_t *code, size_t len, uint64_t base,
                     size_t from, size_t at) {
  size_t p = from;
  while (p < at) {
    const uint8_t *c = code + p;
    size_t size = len - p < 16 ? len - p : 16;
    uint64_t addr = base + p;
    p += x86_cs.disasm_iter(h, &c, &size, &addr, insn) ? insn->size : 1;
  }
  return p == at;
}

/* Whether the instruction at AT decodes as rdtsc/rdtscp of length WANT (CPUID: as
 * cpuid). */
static bool is_insn(csh h, cs_insn *insn, const uint8_t *code, size_t len, uint64_t base, size_t at,
                    unsigned want, bool cpuid) {
  const uint8_t *c = code + at;
  size_t size = len - at < 16 ? len - at : 16;
  uint64_t addr = base + at;
  if (!x86_cs.disasm_iter(h, &c, &size, &addr, insn) || insn->size != want)
    return false;
  return cpuid ? insn->id == X86_INS_CPUID
               : insn->id == X86_INS_RDTSC || insn->id == X86_INS_RDTSCP;
}

static bool confirmed(csh h, cs_insn *insn, const uint8_t *code, size_t len, uint64_t base,
                      size_t at, unsigned want, bool cpuid) {
  if (!is_insn(h, insn, code, len, base, at, want, cpuid))
    return false;
  for (size_t i = 0; i < sizeof back / sizeof back[0]; i++) {
    size_t from = at > back[i] ? at - back[i] : 0;
    if (!lands_on(h, insn, code, len, base, from, at))
      return false;
    if (from == 0)
      break;
  }
  return true;
}

int x86_tsc_sites_scan(const uint8_t *code, size_t len, uint64_t base, struct tsc_site **out,
                       int *n, int *cap) {
  csh h = lean_decoder();
  if (!h)
    return -1;
  cs_insn *insn = x86_cs.malloc(h);
  if (!insn)
    return -1;
  int added = 0;
  for (size_t at = 0; at + 2 <= len; at++) {
    const uint8_t *p = memchr(code + at, 0x0f, len - 1 - at);
    if (!p)
      break;
    at = (size_t)(p - code);
    unsigned want = p[1] == 0x31 ? 2 : at + 3 <= len && p[1] == 0x01 && p[2] == 0xf9 ? 3 : 0;
    if (!want || !confirmed(h, insn, code, len, base, at, want, false))
      continue;
    if (*n == *cap) {
      *cap = *cap ? *cap * 2 : 16;
      *out = xrealloc(*out, (size_t)*cap * sizeof **out);
    }
    struct tsc_site *s = &(*out)[(*n)++];
    memset(s, 0, sizeof *s);
    s->addr = base + at;
    s->len = (uint8_t)want;
    memcpy(s->orig, p, want);
    added++;
    at += want - 1; /* the loop's at++ steps past it */
  }
  x86_cs.free(insn, 1);
  return added;
}

int x86_cpuid_sites_scan(const uint8_t *code, size_t len, uint64_t base, uint64_t *out, int max) {
  csh h = lean_decoder();
  cs_insn *insn = h ? x86_cs.malloc(h) : NULL;
  if (!insn)
    return -1;
  int n = 0;
  for (size_t at = 0; at + 2 <= len && n < max; at++) {
    const uint8_t *p = memchr(code + at, 0x0f, len - 1 - at);
    if (!p)
      break;
    at = (size_t)(p - code);
    if (p[1] == 0xa2 && confirmed(h, insn, code, len, base, at, 2, true))
      out[n++] = base + at++;
  }
  x86_cs.free(insn, 1);
  return n;
}

void x86_tsc_trap_bytes(unsigned len, uint8_t out[3]) {
  out[0] = 0xcc; /* int3 */
  out[1] = out[2] = 0x90;
  (void)len;
}
