/* gdb's view of amd64 Linux registers: the numbering of the target description we send,
 * each register's bytes taken from struct gdb_thread_regs, and the description's XML. */
#ifndef DEJA_GDB_REGS_H
#define DEJA_GDB_REGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gdb/gdb_target.h"

/* Register numbers as in gdb's own amd64 Linux description (core, sse, linux, segments,
 * avx, avx512 features in that order). */
enum {
  GDB_REG_RAX = 0,
  GDB_REG_RIP = 16,
  GDB_REG_EFLAGS = 17,
  GDB_REG_CS = 18, /* cs ss ds es fs gs */
  GDB_REG_ST0 = 24,
  GDB_REG_FCTRL = 32, /* fctrl fstat ftag fiseg fioff foseg fooff fop */
  GDB_REG_XMM0 = 40,
  GDB_REG_MXCSR = 56,
  GDB_REG_ORIG_RAX = 57,
  GDB_REG_FS_BASE = 58,
  GDB_REG_GS_BASE = 59,
  GDB_REG_YMM0H = 60,
  GDB_REG_XMM16 = 76,
  GDB_REG_YMM16H = 92,
  GDB_REG_K0 = 108,
  GDB_REG_ZMM0H = 116,
  GDB_REG_COUNT_SSE = 60, /* no AVX */
  GDB_REG_COUNT_AVX = 76, /* AVX, no AVX-512 */
  GDB_REG_COUNT_AVX512 = 148,
  GDB_REG_MAX_SIZE = 32,
};

/* Which extended state the description covers and where XSAVE puts it. */
struct gdb_xsave_layout {
  bool avx, avx512;
  uint32_t avx_off;       /* component 2: ymm0h-15h */
  uint32_t opmask_off;    /* component 5: k0-7 */
  uint32_t zmm_hi256_off; /* component 6: zmm0h-15h */
  uint32_t hi16_zmm_off;  /* component 7: zmm16-31 whole */
};

/* What this CPU and kernel enable (cpuid leaves 1, 7 and 0xd, xgetbv). */
void gdb_xsave_layout_host(struct gdb_xsave_layout *out);
/* The usual offsets (576, 1088, 1152, 1664) with the given features: for tests. */
void gdb_xsave_layout_standard(struct gdb_xsave_layout *out, bool avx, bool avx512);

int gdb_reg_count(const struct gdb_xsave_layout *l);
/* Size in bytes of register REGNO, or 0 when there is no such register. */
size_t gdb_reg_size(const struct gdb_xsave_layout *l, int regno);
/* Writes register REGNO's value (little-endian, gdb_reg_size bytes) into OUT. Returns true,
 * or false when the thread's state does not include it (gdb shows it unavailable). */
bool gdb_reg_read(const struct gdb_xsave_layout *l, const struct gdb_thread_regs *r, int regno,
                  uint8_t out[GDB_REG_MAX_SIZE]);

/* Sets register REGNO to VAL (as gdb_reg_read gives it). Returns false for registers it
 * cannot set (x87 stack and control, AVX-512 state) or that the state does not hold. */
bool gdb_reg_write(const struct gdb_xsave_layout *l, struct gdb_thread_regs *r, int regno,
                   const uint8_t *val);

/* The whole target description (target.xml), malloc'd. */
char *gdb_target_xml(const struct gdb_xsave_layout *l);

#endif
