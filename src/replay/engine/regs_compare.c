#include "replay/engine/regs_compare.h"

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

#define EFLAGS_RF 0x10000ull

static const struct {
  const char *name;
  size_t off;
} regs[] = {
#define R(n)                                                                                       \
  { #n, offsetof(struct user_regs_struct, n) }
    R(rax),    R(rbx),     R(rcx),     R(rdx), R(rsi), R(rdi), R(rbp), R(rsp), R(r8),
    R(r9),     R(r10),     R(r11),     R(r12), R(r13), R(r14), R(r15), R(rip), R(orig_rax),
    R(eflags), R(fs_base), R(gs_base), R(cs),  R(ss),  R(ds),  R(es),  R(fs),  R(gs),
#undef R
};

bool regs_differ(const struct user_regs_struct *want, const struct user_regs_struct *got, char *out,
                 size_t len) {
  bool differ = false;
  size_t used = 0;
  if (len)
    out[0] = 0;
  for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++) {
    uint64_t a = *(const uint64_t *)((const char *)want + regs[i].off);
    uint64_t b = *(const uint64_t *)((const char *)got + regs[i].off);
    if (regs[i].off == offsetof(struct user_regs_struct, eflags)) {
      a &= ~EFLAGS_RF;
      b &= ~EFLAGS_RF;
    }
    if (a == b)
      continue;
    if (used < len) {
      int n =
          snprintf(out + used, len - used, "%s%s recorded 0x%llx, replay 0x%llx",
                   differ ? "; " : "", regs[i].name, (unsigned long long)a, (unsigned long long)b);
      if (n > 0)
        used += (size_t)n;
    }
    differ = true;
  }
  return differ;
}

/* The registers a system call is made with, and where. */
static const size_t call_regs[] = {
    offsetof(struct user_regs_struct, orig_rax), offsetof(struct user_regs_struct, rdi),
    offsetof(struct user_regs_struct, rsi),      offsetof(struct user_regs_struct, rdx),
    offsetof(struct user_regs_struct, r10),      offsetof(struct user_regs_struct, r8),
    offsetof(struct user_regs_struct, r9),       offsetof(struct user_regs_struct, rip),
    offsetof(struct user_regs_struct, rsp),      offsetof(struct user_regs_struct, fs_base),
};

bool regs_differ_in_call(const struct user_regs_struct *want, const struct user_regs_struct *got,
                         char *out, size_t len) {
  struct user_regs_struct a = {0}, b = {0}; /* the call's registers only */
  for (size_t i = 0; i < sizeof call_regs / sizeof call_regs[0]; i++) {
    memcpy((char *)&a + call_regs[i], (const char *)want + call_regs[i], sizeof(uint64_t));
    memcpy((char *)&b + call_regs[i], (const char *)got + call_regs[i], sizeof(uint64_t));
  }
  return regs_differ(&a, &b, out, len);
}
