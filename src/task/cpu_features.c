/* Noting and checking the recording CPU's instruction set (cpu_features.h). */
#include "task/cpu_features.h"

#include <cpuid.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/line_file.h"
#include "common/log.h"

/* The features a compiler or a runtime dispatches on: cpuid leaf, register, bit. */
struct feature {
  const char *name;
  unsigned leaf, reg, bit; /* reg: 0 ebx, 1 ecx, 2 edx */
};
static const struct feature features[] = {
    {"sse3", 1, 1, 0},
    {"ssse3", 1, 1, 9},
    {"fma", 1, 1, 12},
    {"sse4.1", 1, 1, 19},
    {"sse4.2", 1, 1, 20},
    {"movbe", 1, 1, 22},
    {"popcnt", 1, 1, 23},
    {"aes", 1, 1, 25},
    {"xsave", 1, 1, 26},
    {"avx", 1, 1, 28},
    {"f16c", 1, 1, 29},
    {"rdrand", 1, 1, 30},
    {"bmi1", 7, 0, 3},
    {"avx2", 7, 0, 5},
    {"bmi2", 7, 0, 8},
    {"erms", 7, 0, 9},
    {"avx512f", 7, 0, 16},
    {"avx512dq", 7, 0, 17},
    {"rdseed", 7, 0, 18},
    {"adx", 7, 0, 19},
    {"avx512ifma", 7, 0, 21},
    {"clflushopt", 7, 0, 23},
    {"sha", 7, 0, 29},
    {"avx512bw", 7, 0, 30},
    {"avx512vl", 7, 0, 31},
    {"avx512vbmi", 7, 1, 1},
    {"vaes", 7, 1, 9},
    {"vpclmulqdq", 7, 1, 10},
    {"avx512vnni", 7, 1, 11},
    {"gfni", 7, 1, 8},
    {"lzcnt", 0x80000001u, 1, 5},
};
#define NFEATURES (sizeof features / sizeof features[0])

/* This CPU's vendor and feature bits (one per entry of features[]), as a note line. */
static void describe(char *buf, size_t len) {
  unsigned a, b, c, d, regs[3];
  char vendor[13] = "";
  if (__get_cpuid(0, &a, &b, &c, &d)) {
    memcpy(vendor, &b, 4);
    memcpy(vendor + 4, &d, 4);
    memcpy(vendor + 8, &c, 4);
  }
  size_t at = (size_t)snprintf(buf, len, "%s ", vendor[0] ? vendor : "unknown");
  /* each leaf asked once: a cpuid is a VM exit under a hypervisor (1-2 us, 60 of them
   * were a tenth of a millisecond of every recording) */
  unsigned asked = ~0u;
  bool ok = false;
  for (size_t i = 0; i < NFEATURES && at + 1 < len; i++) {
    if (features[i].leaf != asked) {
      asked = features[i].leaf;
      ok = __get_cpuid_count(asked, 0, &a, &regs[0], &regs[1], &regs[2]);
    }
    bool has = ok && (regs[features[i].reg] >> features[i].bit & 1);
    buf[at++] = has ? '1' : '0';
  }
  buf[at] = 0;
}

int cpu_features_note(const char *trace_dir) {
  char text[128];
  describe(text, sizeof text);
  strcat(text, "\n");
  return line_file_write(trace_dir, "features", text);
}

int cpu_features_check(const char *trace_dir) {
  char noted[128], here[128], missing[512] = "";
  if (!line_file_read(trace_dir, "features", noted, sizeof noted))
    return 0; /* older traces */
  describe(here, sizeof here);
  const char *nb = strchr(noted, ' '), *hb = strchr(here, ' ');
  if (!nb || !hb)
    return 0;
  int count = 0;
  for (size_t i = 0; i < NFEATURES && nb[1 + i] && hb[1 + i]; i++)
    if (nb[1 + i] == '1' && hb[1 + i] == '0') {
      size_t at = strlen(missing);
      snprintf(missing + at, sizeof missing - at, "%s%s", count++ ? ", " : "", features[i].name);
    }
  if (count)
    deja_msg("warning: %s was recorded on a CPU with %s, which this one lacks: the replay "
             "diverges (or dies of SIGILL) where the program used them; replay it on a CPU "
             "like the recording's",
             trace_dir, missing);
  else if ((size_t)(nb - noted) != (size_t)(hb - here) ||
           strncmp(noted, here, (size_t)(nb - noted)))
    deja_msg("note: %s was recorded on a %.*s CPU, this one is %.*s", trace_dir, (int)(nb - noted),
             noted, (int)(hb - here), here);
  return count;
}
