/* Fuzz target: gdb's agent expressions (src/gdb/gdb_agent.c): the bytecode a client sends
 * with a conditional breakpoint, which the server runs at every arrival. The first input
 * byte says what the rest is: bit 0 set, the text that follows a Z0 packet's kind
 * (";X len,hex..." as gdb_agent_parse_conds reads it); clear, one expression's raw
 * bytecode. Bits 1-2 choose how much register state the thread has (no xsave area, a
 * bare FXSAVE image, a header, all of it), bits 3-4 the register layout (AVX, AVX-512).
 * Expressions run with registers read through gdb_regs.c as replay's conditions do and
 * a small readable memory window. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "gdb/gdb_agent.h"
#include "gdb/gdb_regs.h"

#define MEM_BASE 0x1000u
#define MEM_SIZE 256u

struct env {
  struct gdb_xsave_layout layout;
  struct gdb_thread_regs regs;
  uint8_t mem[MEM_SIZE];
};

static bool env_reg(void *ctx, int regno, uint64_t *val) {
  struct env *e = ctx;
  uint8_t buf[GDB_REG_MAX_SIZE];
  if (!gdb_reg_read(&e->layout, &e->regs, regno, buf))
    return false;
  size_t size = gdb_reg_size(&e->layout, regno);
  if (size == 0 || size > GDB_REG_MAX_SIZE)
    fuzz_fail("gdb_reg_read read a register of no size");
  *val = 0;
  memcpy(val, buf, size < sizeof *val ? size : sizeof *val);
  return true;
}

static bool env_mem(void *ctx, uint64_t addr, void *buf, size_t len) {
  struct env *e = ctx;
  if (len > 8)
    fuzz_fail("an expression read more than 8 bytes at once");
  if (addr < MEM_BASE || addr - MEM_BASE > MEM_SIZE - len)
    return false;
  memcpy(buf, e->mem + (addr - MEM_BASE), len);
  return true;
}

static void make_env(struct env *e, unsigned flags) {
  static const size_t xsave_lens[] = {0, 512, 576, sizeof e->regs.xsave};
  memset(e, 0, sizeof *e);
  gdb_xsave_layout_standard(&e->layout, flags & 8, flags & 16);
  for (size_t i = 0; i < sizeof e->regs.gpr; i++)
    ((uint8_t *)&e->regs.gpr)[i] = (uint8_t)(i * 7 + 1);
  for (size_t i = 0; i < sizeof e->regs.xsave; i++)
    e->regs.xsave[i] = (uint8_t)(i * 13 + 5);
  e->regs.xsave_len = xsave_lens[(flags >> 1) & 3];
  for (size_t i = 0; i < MEM_SIZE; i++)
    e->mem[i] = (uint8_t)(0xff - i);
}

static void run(const struct gdb_agent_expr *x, struct env *e) {
  struct gdb_agent_env env = {env_reg, env_mem, e};
  uint64_t result;
  char err[256] = "";
  if (gdb_agent_eval(x, &env, &result, err, sizeof err) != 0 && !err[0])
    fuzz_fail("an expression failed without a reason");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  static struct env e;
  make_env(&e, data[0]);
  if (data[0] & 1) {
    char *text = strndup((const char *)data + 1, size - 1);
    struct gdb_agent_expr conds[GDB_AGENT_MAX_CONDS];
    int n = gdb_agent_parse_conds(text, conds);
    if (n > GDB_AGENT_MAX_CONDS)
      fuzz_fail("more conditions than there is room for");
    for (int i = 0; i < n; i++)
      run(&conds[i], &e);
    gdb_agent_free(conds, n > 0 ? n : 0);
    free(text);
  } else {
    /* a copy of exactly the code's size: ASan sees a read past its end */
    uint8_t *code = malloc(size - 1 ? size - 1 : 1);
    memcpy(code, data + 1, size - 1);
    struct gdb_agent_expr x = {code, size - 1};
    run(&x, &e);
    free(code);
  }
  return 0;
}
