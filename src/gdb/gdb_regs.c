/* amd64 Linux registers for gdb: numbering, values from ptrace-style state, and the target
 * description XML (see gdb_regs.h). */
#include "gdb/gdb_regs.h"

#include <cpuid.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

#include "gdb/gdb_strbuf.h"

/* XSTATE_BV bits (XSAVE header at byte 512). */
#define XFEATURE_X87 (1u << 0)
#define XFEATURE_SSE (1u << 1)
#define XFEATURE_AVX (1u << 2)
#define XFEATURE_OPMASK (1u << 5)
#define XFEATURE_ZMM_HI256 (1u << 6)
#define XFEATURE_HI16_ZMM (1u << 7)

/* Offsets in the legacy FXSAVE region. */
#define FX_FCW 0
#define FX_FSW 2
#define FX_FTW 4
#define FX_FOP 6
#define FX_FIP 8
#define FX_FDP 16
#define FX_MXCSR 24
#define FX_ST0 32
#define FX_XMM0 160

static const char *const gpr_names[16] = {"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
                                          "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};
static const size_t gpr_offsets[16] = {
    offsetof(struct user_regs_struct, rax), offsetof(struct user_regs_struct, rbx),
    offsetof(struct user_regs_struct, rcx), offsetof(struct user_regs_struct, rdx),
    offsetof(struct user_regs_struct, rsi), offsetof(struct user_regs_struct, rdi),
    offsetof(struct user_regs_struct, rbp), offsetof(struct user_regs_struct, rsp),
    offsetof(struct user_regs_struct, r8),  offsetof(struct user_regs_struct, r9),
    offsetof(struct user_regs_struct, r10), offsetof(struct user_regs_struct, r11),
    offsetof(struct user_regs_struct, r12), offsetof(struct user_regs_struct, r13),
    offsetof(struct user_regs_struct, r14), offsetof(struct user_regs_struct, r15)};
static const char *const seg_names[6] = {"cs", "ss", "ds", "es", "fs", "gs"};
static const size_t seg_offsets[6] = {
    offsetof(struct user_regs_struct, cs), offsetof(struct user_regs_struct, ss),
    offsetof(struct user_regs_struct, ds), offsetof(struct user_regs_struct, es),
    offsetof(struct user_regs_struct, fs), offsetof(struct user_regs_struct, gs)};
static const char *const x87_ctl_names[8] = {"fctrl", "fstat", "ftag",  "fiseg",
                                             "fioff", "foseg", "fooff", "fop"};

void gdb_xsave_layout_standard(struct gdb_xsave_layout *out, bool avx, bool avx512) {
  out->avx = avx || avx512;
  out->avx512 = avx512;
  out->avx_off = 576;
  out->opmask_off = 1088;
  out->zmm_hi256_off = 1152;
  out->hi16_zmm_off = 1664;
}

void gdb_xsave_layout_host(struct gdb_xsave_layout *out) {
  gdb_xsave_layout_standard(out, false, false);
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
    return;
  uint32_t xcr0_lo, xcr0_hi;
  __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  out->avx = (c & bit_AVX) && (xcr0_lo & 6) == 6;
  if (!out->avx)
    return;
  if (__get_cpuid_count(0xd, 2, &a, &b, &c, &d))
    out->avx_off = b;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX512F) && (xcr0_lo & 0xe0) == 0xe0) {
    out->avx512 = true;
    if (__get_cpuid_count(0xd, 5, &a, &b, &c, &d))
      out->opmask_off = b;
    if (__get_cpuid_count(0xd, 6, &a, &b, &c, &d))
      out->zmm_hi256_off = b;
    if (__get_cpuid_count(0xd, 7, &a, &b, &c, &d))
      out->hi16_zmm_off = b;
  }
}

int gdb_reg_count(const struct gdb_xsave_layout *l) {
  return l->avx512 ? GDB_REG_COUNT_AVX512 : l->avx ? GDB_REG_COUNT_AVX : GDB_REG_COUNT_SSE;
}

size_t gdb_reg_size(const struct gdb_xsave_layout *l, int regno) {
  if (regno < 0 || regno >= gdb_reg_count(l))
    return 0;
  if (regno < GDB_REG_EFLAGS)
    return 8;
  if (regno < GDB_REG_ST0)
    return 4;
  if (regno < GDB_REG_FCTRL)
    return 10;
  if (regno < GDB_REG_XMM0)
    return 4;
  if (regno < GDB_REG_MXCSR)
    return 16;
  if (regno == GDB_REG_MXCSR)
    return 4;
  if (regno < GDB_REG_YMM0H)
    return 8;
  if (regno < GDB_REG_K0)
    return 16;
  if (regno < GDB_REG_ZMM0H)
    return 8;
  return 32;
}

/* The x87 tag of one 80-bit register's contents: 0 valid, 1 zero, 2 special. */
static unsigned x87_tag(const uint8_t *st) {
  unsigned exponent = (st[8] | (unsigned)st[9] << 8) & 0x7fff;
  uint64_t mantissa;
  memcpy(&mantissa, st, 8);
  if (exponent == 0x7fff)
    return 2;
  if (exponent == 0)
    return mantissa == 0 ? 1 : 2;
  return (mantissa >> 63) ? 0 : 2;
}

/* The full 16-bit tag word from FXSAVE's abridged one (a bit per physical register). */
static uint16_t x87_full_tag(const uint8_t *fx) {
  unsigned top = (fx[FX_FSW + 1] >> 3) & 7;
  uint16_t tag = 0;
  for (unsigned phys = 0; phys < 8; phys++) {
    unsigned t = 3; /* empty */
    if (fx[FX_FTW] & (1u << phys))
      t = x87_tag(fx + FX_ST0 + 16 * ((phys - top) & 7));
    tag |= (uint16_t)(t << (2 * phys));
  }
  return tag;
}

static void put_u32(uint8_t *out, uint32_t v) { memcpy(out, &v, 4); }

/* Where component BIT's bytes for this thread are: a pointer into the XSAVE area, INIT
 * (all zeros) when the header says the component is in its initial state, or NULL when
 * the thread's state does not cover it. */
static const uint8_t zeros[64];
static const uint8_t *component(const struct gdb_thread_regs *r, uint64_t bit, size_t off,
                                size_t size) {
  if (r->xsave_len < 512)
    return NULL;
  uint64_t bv = XFEATURE_X87 | XFEATURE_SSE; /* a bare FXSAVE image */
  if (r->xsave_len >= 512 + 64)
    memcpy(&bv, r->xsave + 512, 8);
  if (!(bv & bit))
    return zeros;
  if (off + size > r->xsave_len || off + size > sizeof(r->xsave))
    return NULL;
  return r->xsave + off;
}

static bool read_x87_control(const struct gdb_thread_regs *r, int which, uint8_t *out) {
  const uint8_t *fx = component(r, XFEATURE_X87, 0, 512);
  if (!fx)
    return false;
  if (fx == zeros) { /* initial x87 state: fctrl 0x37f, all registers empty */
    put_u32(out, which == 0 ? 0x37f : which == 2 ? 0xffff : 0);
    return true;
  }
  uint16_t u16;
  uint32_t v = 0;
  switch (which) {
  case 0:
    memcpy(&u16, fx + FX_FCW, 2);
    v = u16;
    break;
  case 1:
    memcpy(&u16, fx + FX_FSW, 2);
    v = u16;
    break;
  case 2: v = x87_full_tag(fx); break;
  case 3: memcpy(&v, fx + FX_FIP + 4, 4); break; /* fiseg: FIP's upper half in 64-bit mode */
  case 4: memcpy(&v, fx + FX_FIP, 4); break;
  case 5: memcpy(&v, fx + FX_FDP + 4, 4); break;
  case 6: memcpy(&v, fx + FX_FDP, 4); break;
  case 7:
    memcpy(&u16, fx + FX_FOP, 2);
    v = u16 & 0x7ff;
    break;
  }
  put_u32(out, v);
  return true;
}

static bool copy_from(const uint8_t *src, size_t len, uint8_t *out) {
  if (!src)
    return false;
  memcpy(out, src, len);
  return true;
}

bool gdb_reg_read(const struct gdb_xsave_layout *l, const struct gdb_thread_regs *r, int regno,
                  uint8_t out[GDB_REG_MAX_SIZE]) {
  size_t size = gdb_reg_size(l, regno);
  if (size == 0)
    return false;
  memset(out, 0, GDB_REG_MAX_SIZE);
  const uint8_t *gpr = (const uint8_t *)&r->gpr;
  if (regno < 16) {
    memcpy(out, gpr + gpr_offsets[regno], 8);
    return true;
  }
  if (regno == GDB_REG_RIP) {
    memcpy(out, &r->gpr.rip, 8);
    return true;
  }
  if (regno == GDB_REG_EFLAGS) {
    put_u32(out, (uint32_t)r->gpr.eflags);
    return true;
  }
  if (regno < GDB_REG_ST0) {
    uint64_t v;
    memcpy(&v, gpr + seg_offsets[regno - GDB_REG_CS], 8);
    put_u32(out, (uint32_t)v);
    return true;
  }
  if (regno < GDB_REG_FCTRL)
    return copy_from(component(r, XFEATURE_X87, FX_ST0 + 16 * (regno - GDB_REG_ST0), 10), 10, out);
  if (regno < GDB_REG_XMM0)
    return read_x87_control(r, regno - GDB_REG_FCTRL, out);
  if (regno < GDB_REG_MXCSR)
    return copy_from(component(r, XFEATURE_SSE, FX_XMM0 + 16 * (regno - GDB_REG_XMM0), 16), 16,
                     out);
  if (regno == GDB_REG_MXCSR) /* XSAVE stores MXCSR whenever SSE or AVX state is saved */
    return r->xsave_len >= 512 ? copy_from(r->xsave + FX_MXCSR, 4, out) : false;
  if (regno == GDB_REG_ORIG_RAX) {
    memcpy(out, &r->gpr.orig_rax, 8);
    return true;
  }
  if (regno == GDB_REG_FS_BASE) {
    memcpy(out, &r->gpr.fs_base, 8);
    return true;
  }
  if (regno == GDB_REG_GS_BASE) {
    memcpy(out, &r->gpr.gs_base, 8);
    return true;
  }
  if (regno < GDB_REG_XMM16)
    return copy_from(component(r, XFEATURE_AVX, l->avx_off + 16 * (regno - GDB_REG_YMM0H), 16), 16,
                     out);
  if (regno < GDB_REG_YMM16H)
    return copy_from(
        component(r, XFEATURE_HI16_ZMM, l->hi16_zmm_off + 64 * (regno - GDB_REG_XMM16), 16), 16,
        out);
  if (regno < GDB_REG_K0)
    return copy_from(
        component(r, XFEATURE_HI16_ZMM, l->hi16_zmm_off + 64 * (regno - GDB_REG_YMM16H) + 16, 16),
        16, out);
  if (regno < GDB_REG_ZMM0H)
    return copy_from(component(r, XFEATURE_OPMASK, l->opmask_off + 8 * (regno - GDB_REG_K0), 8), 8,
                     out);
  int z = regno - GDB_REG_ZMM0H;
  if (z < 16)
    return copy_from(component(r, XFEATURE_ZMM_HI256, l->zmm_hi256_off + 32 * z, 32), 32, out);
  return copy_from(component(r, XFEATURE_HI16_ZMM, l->hi16_zmm_off + 64 * (z - 16) + 32, 32), 32,
                   out);
}

/* Where to write OFF..OFF+SIZE of component BIT (BASE..BASE+LEN in the XSAVE area): the
 * component is brought out of its initial state (zeroed, its XSTATE_BV bit set) first.
 * NULL when the state lacks it. */
static uint8_t *component_for_write(struct gdb_thread_regs *r, uint64_t bit, size_t base,
                                    size_t len, size_t off, size_t size) {
  if (r->xsave_len < 512 + 64 || base + len > r->xsave_len || base + len > sizeof(r->xsave) ||
      off + size > base + len)
    return NULL;
  uint64_t bv;
  memcpy(&bv, r->xsave + 512, 8);
  if (!(bv & bit)) {
    memset(r->xsave + base, 0, len);
    bv |= bit;
    memcpy(r->xsave + 512, &bv, 8);
  }
  return r->xsave + off;
}

bool gdb_reg_write(const struct gdb_xsave_layout *l, struct gdb_thread_regs *r, int regno,
                   const uint8_t *val) {
  uint8_t *gpr = (uint8_t *)&r->gpr;
  uint64_t v64 = 0;
  uint32_t v32 = 0;
  memcpy(&v64, val, 8);
  memcpy(&v32, val, 4);
  if (regno < 16) {
    memcpy(gpr + gpr_offsets[regno], &v64, 8);
    return true;
  }
  switch (regno) {
  case GDB_REG_RIP: r->gpr.rip = v64; return true;
  case GDB_REG_EFLAGS: r->gpr.eflags = v32; return true;
  case GDB_REG_ORIG_RAX: r->gpr.orig_rax = v64; return true;
  case GDB_REG_FS_BASE: r->gpr.fs_base = v64; return true;
  case GDB_REG_GS_BASE: r->gpr.gs_base = v64; return true;
  default: break;
  }
  if (regno >= GDB_REG_CS && regno < GDB_REG_ST0) {
    uint64_t seg = v32;
    memcpy(gpr + seg_offsets[regno - GDB_REG_CS], &seg, 8);
    return true;
  }
  uint8_t *dst = NULL;
  size_t size = 16;
  if (regno >= GDB_REG_XMM0 && regno < GDB_REG_MXCSR)
    dst = component_for_write(r, XFEATURE_SSE, FX_XMM0, 256, FX_XMM0 + 16 * (regno - GDB_REG_XMM0),
                              16);
  else if (regno == GDB_REG_MXCSR && r->xsave_len >= 512) /* stored whatever XSTATE_BV says */
    dst = r->xsave + FX_MXCSR, size = 4;
  else if (l->avx && regno >= GDB_REG_YMM0H && regno < GDB_REG_XMM16)
    dst = component_for_write(r, XFEATURE_AVX, l->avx_off, 256,
                              l->avx_off + 16 * (regno - GDB_REG_YMM0H), 16);
  if (!dst)
    return false;
  memcpy(dst, val, size);
  return true;
}

/* ---- target description ---- */

static void xml_reg(struct gdb_strbuf *x, const char *name, int bits, const char *type, int regnum,
                    const char *group) {
  gdb_strbuf_addf(x, "  <reg name=\"%s\" bitsize=\"%d\" type=\"%s\" regnum=\"%d\"%s%s%s/>\n", name,
                  bits, type, regnum, group ? " group=\"" : "", group ? group : "",
                  group ? "\"" : "");
}

static void xml_flags(struct gdb_strbuf *x, const char *id, const char *const *names,
                      const int *bits, int n) {
  gdb_strbuf_addf(x, "  <flags id=\"%s\" size=\"4\">\n", id);
  for (int i = 0; i < n; i++)
    gdb_strbuf_addf(x, "    <field name=\"%s\" start=\"%d\" end=\"%d\"/>\n", names[i], bits[i],
                    bits[i]);
  gdb_strbuf_adds(x, "  </flags>\n");
}

/* The vec128 union gdb shows for xmm registers; each feature needs its own copy. */
static void xml_vec128(struct gdb_strbuf *x) {
  gdb_strbuf_adds(x, "  <vector id=\"v4f\" type=\"ieee_single\" count=\"4\"/>\n"
                     "  <vector id=\"v2d\" type=\"ieee_double\" count=\"2\"/>\n"
                     "  <vector id=\"v16i8\" type=\"int8\" count=\"16\"/>\n"
                     "  <vector id=\"v8i16\" type=\"int16\" count=\"8\"/>\n"
                     "  <vector id=\"v4i32\" type=\"int32\" count=\"4\"/>\n"
                     "  <vector id=\"v2i64\" type=\"int64\" count=\"2\"/>\n"
                     "  <union id=\"vec128\">\n"
                     "    <field name=\"v4_float\" type=\"v4f\"/>\n"
                     "    <field name=\"v2_double\" type=\"v2d\"/>\n"
                     "    <field name=\"v16_int8\" type=\"v16i8\"/>\n"
                     "    <field name=\"v8_int16\" type=\"v8i16\"/>\n"
                     "    <field name=\"v4_int32\" type=\"v4i32\"/>\n"
                     "    <field name=\"v2_int64\" type=\"v2i64\"/>\n"
                     "    <field name=\"uint128\" type=\"uint128\"/>\n"
                     "  </union>\n");
}

static void xml_core(struct gdb_strbuf *x) {
  static const char *const eflags_names[] = {"CF", "",   "PF", "AF", "ZF", "SF",  "TF",  "IF", "DF",
                                             "OF", "NT", "RF", "VM", "AC", "VIF", "VIP", "ID"};
  static const int eflags_bits[] = {0, 1, 2, 4, 6, 7, 8, 9, 10, 11, 14, 16, 17, 18, 19, 20, 21};
  char name[8];
  gdb_strbuf_adds(x, "<feature name=\"org.gnu.gdb.i386.core\">\n");
  xml_flags(x, "i386_eflags", eflags_names, eflags_bits, 17);
  for (int i = 0; i < 16; i++)
    xml_reg(x, gpr_names[i], 64, i == 6 || i == 7 ? "data_ptr" : "int64", i, NULL);
  xml_reg(x, "rip", 64, "code_ptr", GDB_REG_RIP, NULL);
  xml_reg(x, "eflags", 32, "i386_eflags", GDB_REG_EFLAGS, NULL);
  for (int i = 0; i < 6; i++)
    xml_reg(x, seg_names[i], 32, "int32", GDB_REG_CS + i, NULL);
  for (int i = 0; i < 8; i++) {
    snprintf(name, sizeof(name), "st%d", i);
    xml_reg(x, name, 80, "i387_ext", GDB_REG_ST0 + i, NULL);
  }
  for (int i = 0; i < 8; i++)
    xml_reg(x, x87_ctl_names[i], 32, "int", GDB_REG_FCTRL + i, "float");
  gdb_strbuf_adds(x, "</feature>\n");
}

static void xml_sse(struct gdb_strbuf *x) {
  static const char *const mxcsr_names[] = {"IE", "DE", "ZE", "OE", "UE", "PE", "DAZ",
                                            "IM", "DM", "ZM", "OM", "UM", "PM", "FZ"};
  static const int mxcsr_bits[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 15};
  char name[8];
  gdb_strbuf_adds(x, "<feature name=\"org.gnu.gdb.i386.sse\">\n");
  xml_vec128(x);
  xml_flags(x, "i386_mxcsr", mxcsr_names, mxcsr_bits, 14);
  for (int i = 0; i < 16; i++) {
    snprintf(name, sizeof(name), "xmm%d", i);
    xml_reg(x, name, 128, "vec128", GDB_REG_XMM0 + i, NULL);
  }
  xml_reg(x, "mxcsr", 32, "i386_mxcsr", GDB_REG_MXCSR, "vector");
  gdb_strbuf_adds(x, "</feature>\n");
}

static void xml_avx(struct gdb_strbuf *x) {
  char name[8];
  gdb_strbuf_adds(x, "<feature name=\"org.gnu.gdb.i386.avx\">\n");
  for (int i = 0; i < 16; i++) {
    snprintf(name, sizeof(name), "ymm%dh", i);
    xml_reg(x, name, 128, "uint128", GDB_REG_YMM0H + i, NULL);
  }
  gdb_strbuf_adds(x, "</feature>\n");
}

static void xml_avx512(struct gdb_strbuf *x) {
  char name[8];
  gdb_strbuf_adds(x, "<feature name=\"org.gnu.gdb.i386.avx512\">\n");
  xml_vec128(x);
  gdb_strbuf_adds(x, "  <vector id=\"v2ui128\" type=\"uint128\" count=\"2\"/>\n");
  for (int i = 16; i < 32; i++) {
    snprintf(name, sizeof(name), "xmm%d", i);
    xml_reg(x, name, 128, "vec128", GDB_REG_XMM16 + i - 16, NULL);
  }
  for (int i = 16; i < 32; i++) {
    snprintf(name, sizeof(name), "ymm%dh", i);
    xml_reg(x, name, 128, "uint128", GDB_REG_YMM16H + i - 16, NULL);
  }
  for (int i = 0; i < 8; i++) {
    snprintf(name, sizeof(name), "k%d", i);
    xml_reg(x, name, 64, "uint64", GDB_REG_K0 + i, NULL);
  }
  for (int i = 0; i < 32; i++) {
    snprintf(name, sizeof(name), "zmm%dh", i);
    xml_reg(x, name, 256, "v2ui128", GDB_REG_ZMM0H + i, NULL);
  }
  gdb_strbuf_adds(x, "</feature>\n");
}

char *gdb_target_xml(const struct gdb_xsave_layout *l) {
  struct gdb_strbuf x;
  gdb_strbuf_init(&x);
  gdb_strbuf_adds(&x, "<?xml version=\"1.0\"?>\n"
                      "<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
                      "<target version=\"1.0\">\n"
                      "<architecture>i386:x86-64</architecture>\n"
                      "<osabi>GNU/Linux</osabi>\n");
  xml_core(&x);
  xml_sse(&x);
  gdb_strbuf_adds(&x, "<feature name=\"org.gnu.gdb.i386.linux\">\n");
  xml_reg(&x, "orig_rax", 64, "int", GDB_REG_ORIG_RAX, NULL);
  gdb_strbuf_adds(&x, "</feature>\n<feature name=\"org.gnu.gdb.i386.segments\">\n");
  xml_reg(&x, "fs_base", 64, "int", GDB_REG_FS_BASE, NULL);
  xml_reg(&x, "gs_base", 64, "int", GDB_REG_GS_BASE, NULL);
  gdb_strbuf_adds(&x, "</feature>\n");
  if (l->avx)
    xml_avx(&x);
  if (l->avx512)
    xml_avx512(&x);
  gdb_strbuf_adds(&x, "</target>\n");
  return x.data;
}
