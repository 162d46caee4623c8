/* gdb's agent expressions (the bytecode of gdb's manual, appendix "Agent Expressions"):
 * the breakpoint conditions gdb sends in Z0/Z1 packets (";X len,bytes") once the server
 * offers ConditionalBreakpoints, evaluated by the server at each arrival so that a
 * conditional breakpoint's false arrivals cost no round trip to gdb, and a reverse search
 * can pass over them. */
#ifndef DEJA_GDB_AGENT_H
#define DEJA_GDB_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One expression's bytecode (owned by whoever made it). */
struct gdb_agent_expr {
  uint8_t *code;
  size_t len;
};

/* At most this many conditions per breakpoint are kept (gdb sends one per location). */
#define GDB_AGENT_MAX_CONDS 8

/* What an expression reads: register REGNO (gdb's numbering, gdb_regs.h) and memory. Each
 * returns false when the value cannot be read (the expression then fails). */
struct gdb_agent_env {
  bool (*reg)(void *ctx, int regno, uint64_t *val);
  bool (*mem)(void *ctx, uint64_t addr, void *buf, size_t len);
  void *ctx;
};

/* Parses the conditions at P (what follows a Z packet's kind: ";X len,hex" each, and
 * possibly a ";cmds:" list, which is left alone) into OUT (up to GDB_AGENT_MAX_CONDS,
 * each code malloc'd). Returns how many, or -1 when they are malformed (none kept). */
int gdb_agent_parse_conds(const char *p, struct gdb_agent_expr *out);

void gdb_agent_free(struct gdb_agent_expr *e, int n);

/* Runs E; on `end` the value on top of the stack is *RESULT. Returns 0, or -1 with a reason
 * in ERR: an unknown or unsupported opcode (floating point, trace state variables), a
 * stack under- or overflow, a jump out of the code, division by zero, a register or
 * memory that cannot be read, or too many steps (a loop). */
int gdb_agent_eval(const struct gdb_agent_expr *e, const struct gdb_agent_env *env,
                   uint64_t *result, char *err, size_t errlen);

#endif
