/* VEX and EVEX instruction lengths (see x86_vex.h). */
#include "arch/x86_vex.h"

#include <stdbool.h>

/* Whether an instruction of opcode map MAP with opcode OP has an 8-bit immediate: all of
 * map 3 (0f 3a), and in map 1 (0f) the shuffles, shifts by an immediate, compares,
 * pinsrw/pextrw and shufps. */
static bool has_imm8(unsigned map, uint8_t op) {
  if (map == 3)
    return true;
  return map == 1 &&
         ((op >= 0x70 && op <= 0x73) || op == 0xc2 || op == 0xc4 || op == 0xc5 || op == 0xc6);
}

/* The prefix's length and opcode map (1: 0f, 2: 0f 38, 3: 0f 3a), or 0 for what is not
 * one known here. */
static size_t prefix(const uint8_t *code, size_t len, unsigned *map) {
  if (len >= 2 && code[0] == 0xc5) {
    *map = 1;
    return 2;
  }
  if (len >= 3 && code[0] == 0xc4) {
    *map = code[1] & 0x1f;
    return *map >= 1 && *map <= 3 ? 3 : 0;
  }
  /* EVEX: P0's mm bits (its bit 3 is 0), P1's fixed bit 2 */
  if (len >= 4 && code[0] == 0x62 && !(code[1] & 0x08) && (code[2] & 0x04)) {
    *map = code[1] & 0x07;
    return *map >= 1 && *map <= 3 ? 4 : 0;
  }
  return 0;
}

size_t x86_vex_length(const uint8_t *code, size_t len, uint8_t *disp_at) {
  unsigned map = 0;
  size_t at = prefix(code, len, &map);
  *disp_at = 0;
  if (!at || at >= len)
    return 0;
  uint8_t op = code[at++];
  if (map == 1 && op == 0x77 && code[0] != 0x62)
    return at; /* vzeroupper, vzeroall: no ModRM */
  if (at >= len)
    return 0;
  uint8_t modrm = code[at++], mod = modrm >> 6, rm = modrm & 7;
  size_t disp = mod == 1 ? 1 : mod == 2 ? 4 : 0;
  if (mod != 3 && rm == 4) {
    if (at >= len)
      return 0;
    if (mod == 0 && (code[at] & 7) == 5)
      disp = 4; /* no base: a disp32 */
    at++;
  } else if (mod == 0 && rm == 5) {
    disp = 4;
    *disp_at = (uint8_t)at; /* rip-relative */
  }
  at += disp + (has_imm8(map, op) ? 1 : 0);
  return at <= len && at <= 15 ? at : 0;
}
