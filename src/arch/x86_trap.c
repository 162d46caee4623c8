#include "arch/x86_trap.h"

#include <cpuid.h>
#include <x86intrin.h>

enum trapped_insn x86_trapped_insn(const uint8_t code[3], unsigned *len) {
  if (code[0] == 0x0f && code[1] == 0x31) {
    *len = 2;
    return INSN_RDTSC;
  }
  if (code[0] == 0x0f && code[1] == 0x01 && code[2] == 0xf9) {
    *len = 3;
    return INSN_RDTSCP;
  }
  if (code[0] == 0x0f && code[1] == 0xa2) {
    *len = 2;
    return INSN_CPUID;
  }
  *len = 0;
  return INSN_NONE;
}

const char *x86_trapped_insn_name(enum trapped_insn k) {
  switch (k) {
  case INSN_RDTSC: return "rdtsc";
  case INSN_RDTSCP: return "rdtscp";
  case INSN_CPUID: return "cpuid";
  default: return "?";
  }
}

void x86_emulate_trapped(enum trapped_insn k, struct user_regs_struct *r) {
  switch (k) {
  case INSN_RDTSC: {
    uint64_t t = __rdtsc();
    r->rax = (uint32_t)t;
    r->rdx = t >> 32;
    break;
  }
  case INSN_RDTSCP: {
    unsigned aux;
    uint64_t t = __rdtscp(&aux);
    r->rax = (uint32_t)t;
    r->rdx = t >> 32;
    r->rcx = aux;
    break;
  }
  case INSN_CPUID: {
    unsigned a, b, c, d;
    unsigned leaf = (uint32_t)r->rax, sub = (uint32_t)r->rcx;
    __cpuid_count(leaf, sub, a, b, c, d);
    if (leaf == 1)
      c &= ~(1u << 30); /* rdrand */
    if (leaf == 7 && sub == 0)
      b &= ~(1u << 18); /* rdseed */
    r->rax = a;
    r->rbx = b;
    r->rcx = c;
    r->rdx = d;
    break;
  }
  default: break;
  }
}
