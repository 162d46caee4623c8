/* The cpuid table and stub code (see x86_cpuid_stub.h). */
#include "arch/x86_cpuid_stub.h"

#include <stdbool.h>
#include <string.h>

#include "arch/x86_trap.h"

#define SUBLEAF_MAX 64

/* The leaves whose answer depends on ecx (Intel's and AMD's manuals). */
static bool reads_subleaf(uint32_t leaf) {
  static const uint32_t known[] = {4,    7,    0xb,  0xd,        0xf,        0x10,      0x12,
                                   0x14, 0x17, 0x18, 0x1b,       0x1d,       0x1e,      0x1f,
                                   0x20, 0x23, 0x24, 0x8000001d, 0x80000020, 0x80000026};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (known[i] == leaf)
      return true;
  return false;
}

static struct x86_cpuid_entry ask(uint32_t leaf, uint32_t sub) {
  struct user_regs_struct r;
  memset(&r, 0, sizeof r);
  r.rax = leaf;
  r.rcx = sub;
  x86_emulate_trapped(INSN_CPUID, &r);
  return (struct x86_cpuid_entry){.leaf = leaf,
                                  .sub = sub,
                                  .eax = (uint32_t)r.rax,
                                  .ebx = (uint32_t)r.rbx,
                                  .ecx = (uint32_t)r.rcx,
                                  .edx = (uint32_t)r.rdx};
}

static bool same_answer(const struct x86_cpuid_entry *a, const struct x86_cpuid_entry *b) {
  return a->eax == b->eax && a->ebx == b->ebx && a->ecx == b->ecx && a->edx == b->edx;
}

/* Whether subleaf S of LEAF (answer E) ends an enumeration: the cache and topology
 * leaves end at an empty level, the others after two empty subleaves in a row (0xd's
 * state components, which have gaps, are all asked). */
static bool ends_enumeration(uint32_t leaf, uint32_t s, const struct x86_cpuid_entry *e,
                             bool prev_empty) {
  if (leaf == 0xd)
    return s >= 31;
  if (leaf == 4 || leaf == 0x8000001d)
    return (e->eax & 0x1f) == 0;
  if (leaf == 0xb || leaf == 0x1f)
    return ((e->ecx >> 8) & 0xff) == 0;
  return prev_empty && !e->eax && !e->ebx && !e->ecx && !e->edx;
}

/* Appends LEAF's answers: one for any ecx, or its subleaves up to the end of their
 * enumeration (a subleaf asked past it traps). */
static int add_leaf(struct x86_cpuid_entry *out, int n, int max, uint32_t leaf) {
  struct x86_cpuid_entry e0 = ask(leaf, 0), e1 = ask(leaf, 1);
  if (!reads_subleaf(leaf) && same_answer(&e0, &e1)) {
    e0.any_sub = 1;
    if (n < max)
      out[n++] = e0;
    return n;
  }
  bool prev_empty = false;
  /* 0xd: the components this CPU has (xcr0's and xss's bits) and those below 8, which
   * glibc asks for anyway; each ask is a VM exit under a hypervisor */
  uint64_t parts = (uint64_t)e0.eax | (uint64_t)e0.edx << 32 | e1.ecx | (uint64_t)e1.edx << 32;
  for (uint32_t s = 0; s < SUBLEAF_MAX && n < max; s++) {
    if (leaf == 0xd && s >= 8 && !(parts >> s & 1))
      continue;
    struct x86_cpuid_entry e = s == 0 ? e0 : s == 1 ? e1 : ask(leaf, s);
    out[n++] = e;
    if (ends_enumeration(leaf, s, &e, prev_empty))
      break;
    prev_empty = !e.eax && !e.ebx && !e.ecx && !e.edx;
  }
  return n;
}

int x86_cpuid_table(struct x86_cpuid_entry *out, int max) {
  int n = 0;
  static const uint32_t bases[] = {0, 0x80000000u};
  for (size_t b = 0; b < sizeof bases / sizeof bases[0]; b++) {
    uint32_t top = ask(bases[b], 0).eax;
    if (top < bases[b] || top - bases[b] > 0x40)
      top = b ? bases[b] : 0x40; /* nonsense: the base leaf alone */
    for (uint32_t leaf = bases[b]; leaf <= top && n < max; leaf++)
      n = add_leaf(out, n, max, leaf);
  }
  return n;
}

void x86_cpuid_stub_lookup(uint8_t *out, uint32_t table_off, uint32_t n) {
  static const uint8_t code[X86_CPUID_LOOKUP_LEN] = {
      0x9c,                            /* 0: pushfq */
      0x48, 0x8d, 0x1d, 0,    0, 0, 0, /* 1: lea rbx, [rip + table] */
      0xba, 0,    0,    0,    0,       /* 8: mov edx, n */
      0x3b, 0x03,                      /* 13: cmp eax, [rbx] */
      0x75, 0x0b,                      /* 15: jne 28 */
      0xf6, 0x43, 0x08, 0x01,          /* 17: test byte [rbx+8], 1 */
      0x75, 0x11,                      /* 21: jnz 40 (any subleaf) */
      0x3b, 0x4b, 0x04,                /* 23: cmp ecx, [rbx+4] */
      0x74, 0x0c,                      /* 26: je 40 */
      0x48, 0x83, 0xc3, 0x20,          /* 28: add rbx, 32 */
      0xff, 0xca,                      /* 32: dec edx */
      0x75, 0xe9,                      /* 34: jnz 13 */
      0x9d,                            /* 36: popfq */
      0x0f, 0xa2,                      /* 37: cpuid (not in the table: traps) */
      0xc3,                            /* 39: ret */
      0x8b, 0x43, 0x0c,                /* 40: mov eax, [rbx+12] */
      0x8b, 0x4b, 0x14,                /* 43: mov ecx, [rbx+20] */
      0x8b, 0x53, 0x18,                /* 46: mov edx, [rbx+24] */
      0x8b, 0x5b, 0x10,                /* 49: mov ebx, [rbx+16] */
      0x9d,                            /* 52: popfq */
      0xc3,                            /* 53: ret */
  };
  memcpy(out, code, sizeof code);
  uint32_t disp = table_off - 8;
  memcpy(out + 4, &disp, 4);
  memcpy(out + 9, &n, 4);
}

size_t x86_cpuid_stub_site(uint64_t to, uint64_t lookup, const struct x86_displaced *after,
                           uint8_t *out) {
  static const uint8_t head[X86_CPUID_SITE_HEAD] = {
      0x48, 0x8d, 0x64, 0x24, 0x80,                   /* lea rsp, [rsp-128] */
      0xe8, 0,    0,    0,    0,                      /* call lookup */
      0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00, /* lea rsp, [rsp+128] */
  };
  int64_t rel = (int64_t)(lookup - (to + 10));
  if (rel < INT32_MIN || rel > INT32_MAX)
    return 0;
  int32_t r32 = (int32_t)rel;
  memcpy(out, head, sizeof head);
  memcpy(out + 6, &r32, 4);
  uint8_t new_off[X86_DISPLACE_MAX + 1];
  size_t n = x86_displace_emit(after, to + X86_CPUID_SITE_HEAD, out + X86_CPUID_SITE_HEAD, new_off);
  return n ? X86_CPUID_SITE_HEAD + n : 0;
}
