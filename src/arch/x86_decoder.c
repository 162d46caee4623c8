/* The shared capstone decoder (see x86_decoder.h). */
#include "arch/x86_decoder.h"

#include <dlfcn.h>
#include <stdio.h>
#include <sys/user.h>

#include "common/log.h"

struct x86_capstone x86_cs;

/* Fills x86_cs from the library; false when it or one of its functions is missing. */
static bool load_capstone(void) {
  void *lib = dlopen(DEJA_CAPSTONE_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    deja_msg("warning: cannot load capstone (%s): instructions are not decoded", dlerror());
    return false;
  }
  struct {
    const char *name;
    void **fn;
  } fns[] = {{"cs_open", (void **)&x86_cs.open},
             {"cs_option", (void **)&x86_cs.option},
             {"cs_disasm", (void **)&x86_cs.disasm},
             {"cs_disasm_iter", (void **)&x86_cs.disasm_iter},
             {"cs_malloc", (void **)&x86_cs.malloc},
             {"cs_free", (void **)&x86_cs.free},
             {"cs_insn_group", (void **)&x86_cs.insn_group}};
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
    *fns[i].fn = dlsym(lib, fns[i].name);
    if (!*fns[i].fn) {
      deja_msg("warning: %s has no %s: instructions are not decoded", DEJA_CAPSTONE_LIBRARY,
               fns[i].name);
      dlclose(lib);
      return false;
    }
  }
  return true; /* kept loaded for the life of the process */
}

csh x86_decoder(void) {
  static csh h;
  static int state; /* 0: not tried, 1: ready, -1: unavailable */
  if (state == 0) {
    state = load_capstone() && x86_cs.open(CS_ARCH_X86, CS_MODE_64, &h) == CS_ERR_OK ? 1 : -1;
    if (state == 1)
      x86_cs.option(h, CS_OPT_DETAIL, CS_OPT_ON);
  }
  return state == 1 ? h : 0;
}

cs_insn *x86_decode_one(const uint8_t *code, size_t len, uint64_t addr) {
  csh h = x86_decoder();
  cs_insn *insn;
  return h && x86_cs.disasm(h, code, len, addr, 1, &insn) == 1 ? insn : NULL;
}

bool x86_next_insn(csh h, const uint8_t **code, size_t *left, uint64_t *addr, cs_insn *insn) {
  while (*left) {
    if (x86_cs.disasm_iter(h, code, left, addr, insn))
      return true;
    (*code)++;
    (*left)--;
    (*addr)++;
  }
  return false;
}

static uint64_t reg_value(const struct user_regs_struct *r, x86_reg reg, uint64_t next_rip) {
  switch (reg) {
  case X86_REG_RAX: return r->rax;
  case X86_REG_RBX: return r->rbx;
  case X86_REG_RCX: return r->rcx;
  case X86_REG_RDX: return r->rdx;
  case X86_REG_RSI: return r->rsi;
  case X86_REG_RDI: return r->rdi;
  case X86_REG_RBP: return r->rbp;
  case X86_REG_RSP: return r->rsp;
  case X86_REG_R8: return r->r8;
  case X86_REG_R9: return r->r9;
  case X86_REG_R10: return r->r10;
  case X86_REG_R11: return r->r11;
  case X86_REG_R12: return r->r12;
  case X86_REG_R13: return r->r13;
  case X86_REG_R14: return r->r14;
  case X86_REG_R15: return r->r15;
  case X86_REG_RIP: return next_rip;
  case X86_REG_EAX: return (uint32_t)r->rax;
  case X86_REG_EBX: return (uint32_t)r->rbx;
  case X86_REG_ECX: return (uint32_t)r->rcx;
  case X86_REG_EDX: return (uint32_t)r->rdx;
  case X86_REG_ESI: return (uint32_t)r->rsi;
  case X86_REG_EDI: return (uint32_t)r->rdi;
  default: return 0;
  }
}

uint64_t x86_mem_address(const cs_x86_op *op, const struct user_regs_struct *r, uint64_t next_rip) {
  uint64_t ea = reg_value(r, op->mem.base, next_rip) +
                reg_value(r, op->mem.index, next_rip) * (uint64_t)op->mem.scale +
                (uint64_t)op->mem.disp;
  if (op->mem.segment == X86_REG_FS)
    ea += r->fs_base;
  else if (op->mem.segment == X86_REG_GS)
    ea += r->gs_base;
  return ea;
}

bool x86_mem_written(const cs_insn *insn, int i) {
  const cs_x86 *x = &insn->detail->x86;
  if (i < 0 || i >= x->op_count || x->operands[i].type != X86_OP_MEM)
    return false;
  if (x->operands[i].access & CS_AC_WRITE)
    return true;
  if (i != 0)
    return false;
  switch (insn->id) {
  case X86_INS_CMP:
  case X86_INS_TEST:
  case X86_INS_BT:
  case X86_INS_PUSH:
  case X86_INS_CMPSB:
  case X86_INS_CMPSW:
  case X86_INS_CMPSD:
  case X86_INS_CMPSQ: return false; /* only read */
  case X86_INS_FST:
  case X86_INS_FSTP:
  case X86_INS_FIST:
  case X86_INS_FISTP:
  case X86_INS_FISTTP:
  case X86_INS_FNSTCW:
  case X86_INS_FNSTENV:
  case X86_INS_FNSAVE:
  case X86_INS_STMXCSR:
  case X86_INS_VSTMXCSR: return true;
  default: return x->op_count >= 2;
  }
}

bool x86_mem_read(const cs_insn *insn, int i) {
  const cs_x86 *x = &insn->detail->x86;
  if (i < 0 || i >= x->op_count || x->operands[i].type != X86_OP_MEM)
    return false;
  uint8_t access = x->operands[i].access;
  if (!(access & (CS_AC_READ | CS_AC_WRITE)))
    return true; /* not known: it may */
  if (!(access & CS_AC_READ))
    return false;
  /* a store capstone says only reads (x86_mem_written) reads nothing, but cmpxchg */
  return (access & CS_AC_WRITE) || !x86_mem_written(insn, i) || insn->id == X86_INS_CMPXCHG;
}
