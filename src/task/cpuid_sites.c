/* Finding and keeping an interpreter's cpuid sites (see cpuid_sites.h). */
#include "task/cpuid_sites.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch/x86_trap.h"
#include "arch/x86_tsc_sites.h"
#include "common/log.h"

#define KEPT 4
#define CACHE_MAGIC "deja-cpuid-sites-1"

/* Per deja process, the newest first. */
static struct cpuid_sites *kept[KEPT];
static int nkept;

static uint64_t site_lo(const struct cpuid_sites *p, int i) { return p->base + p->site[i].off; }

static uint64_t site_hi(const struct cpuid_sites *p, int i) {
  const struct x86_displaced *a = &p->site[i].after;
  return a->addr + a->off[a->n];
}

/* Whether the moved instructions after a cpuid include one that traps. */
static bool moves_trapped(const struct x86_displaced *a) {
  for (int i = 0; i < a->n; i++) {
    unsigned len;
    if (x86_trapped_insn(a->code + a->off[i], &len) != INSN_NONE)
      return true;
  }
  return false;
}

/* Plans the site at AT (an offset into CODE, past PREV_END): false when it cannot move. */
static bool plan_site(const uint8_t *code, size_t len, uint64_t base, uint64_t at,
                      uint64_t prev_end, struct cpuid_site *s) {
  if (base + at < prev_end || at + 2 >= len)
    return false;
  s->off = at;
  if (!x86_displace_plan_min(code + at + 2, len - at - 2, base + at + 2, X86_JMP_LEN - 2,
                             &s->after) ||
      moves_trapped(&s->after))
    return false;
  uint64_t end = s->after.addr + s->after.off[s->after.n];
  return end <= base + len && !x86_near_branch_may_target(code, len, base, base + at, end);
}

/* The site whose covered bytes (after its first) hold TARGET, or -1 (binary search: the
 * sites are in address order and apart). */
static int site_holding(const struct cpuid_sites *p, uint64_t target) {
  int lo = 0, hi = p->n - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (target <= site_lo(p, mid))
      hi = mid - 1;
    else if (target >= site_hi(p, mid))
      lo = mid + 1;
    else
      return mid;
  }
  return -1;
}

/* Drops the sites a rel32 jmp, jcc or call whose opcode may be at any byte of the code
 * lands inside (one pass; conservative, as x86_far_branch_may_target). */
static void drop_far_targets(struct cpuid_sites *p, const uint8_t *code) {
  bool bad[CPUID_SITES_MAX] = {false};
  for (size_t i = 0; i + 5 <= p->len; i++) {
    int32_t r;
    uint64_t target;
    if (code[i] == 0xe8 || code[i] == 0xe9) {
      memcpy(&r, code + i + 1, 4);
      target = p->base + i + 5 + (uint64_t)(int64_t)r;
    } else if (code[i] == 0x0f && i + 6 <= p->len && code[i + 1] >= 0x80 && code[i + 1] <= 0x8f) {
      memcpy(&r, code + i + 2, 4);
      target = p->base + i + 6 + (uint64_t)(int64_t)r;
    } else {
      continue;
    }
    int s = site_holding(p, target);
    if (s >= 0)
      bad[s] = true;
  }
  int k = 0;
  for (int i = 0; i < p->n; i++)
    if (!bad[i])
      p->site[k++] = p->site[i];
  p->n = k;
}

static struct cpuid_sites *find_sites(const uint8_t *code, size_t len, uint64_t base,
                                      const char *key) {
  uint64_t at[CPUID_SITES_MAX];
  int found = x86_cpuid_sites_scan(code, len, base, at, CPUID_SITES_MAX);
  if (found < 0)
    return NULL;
  struct cpuid_sites *p = xcalloc(1, sizeof *p);
  snprintf(p->key, sizeof p->key, "%s", key);
  p->base = base;
  p->len = len;
  for (int i = 0; i < found; i++) {
    uint64_t prev = p->n ? site_hi(p, p->n - 1) : 0;
    if (plan_site(code, len, base, at[i] - base, prev, &p->site[p->n]))
      p->n++;
  }
  drop_far_targets(p, code);
  return p;
}

struct x86_displaced cpuid_site_after(const struct cpuid_sites *s, int i, uint64_t base) {
  struct x86_displaced a = s->site[i].after;
  uint64_t delta = base - s->base;
  a.addr += delta;
  for (int k = 0; k < a.n; k++)
    if (a.branch[k])
      a.target[k] += delta;
  return a;
}

/* The cache file's path for KEY (malloc'ed; its directory made, private), or NULL. */
static char *cache_path(const char *key) {
  const char *off = getenv("DEJA_CPUID_CACHE");
  if ((off && *off == '0') || strchr(key, '/') || !key[0])
    return NULL;
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  char *top = xdg && xdg[0] == '/'     ? xasprintf("%s", xdg)
              : home && home[0] == '/' ? xasprintf("%s/.cache", home)
                                       : NULL;
  if (!top)
    return NULL;
  char *dir = xasprintf("%s/deja", top);
  mkdir(top, 0700);
  mkdir(dir, 0700);
  struct stat st;
  char *path = NULL;
  if (lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 077))
    path = xasprintf("%s/cpuid-sites-%s", dir, key);
  free(dir);
  free(top);
  return path;
}

/* Whether P's sites match CODE (P read from a file: planned at base 0). */
static bool matches(const struct cpuid_sites *p, const uint8_t *code, size_t len) {
  if (p->len != len || p->n < 0 || p->n > CPUID_SITES_MAX)
    return false;
  for (int i = 0; i < p->n; i++) {
    const struct x86_displaced *a = &p->site[i].after;
    uint64_t off = p->site[i].off;
    if (a->n < 1 || a->n > X86_DISPLACE_MAX || off + 2 + a->off[a->n] > len || a->addr != off + 2 ||
        code[off] != 0x0f || code[off + 1] != 0xa2 ||
        memcmp(code + off + 2, a->code, a->off[a->n]) != 0)
      return false;
  }
  return true;
}

static struct cpuid_sites *cache_load(const char *key, const uint8_t *code, size_t len,
                                      uint64_t base) {
  char *path = cache_path(key);
  FILE *f = path ? fopen(path, "rb") : NULL;
  free(path);
  if (!f)
    return NULL;
  char magic[sizeof CACHE_MAGIC];
  struct cpuid_sites *p = xcalloc(1, sizeof *p);
  bool ok = fread(magic, sizeof magic, 1, f) == 1 &&
            memcmp(magic, CACHE_MAGIC, sizeof magic) == 0 && fread(p, sizeof *p, 1, f) == 1 &&
            matches(p, code, len);
  fclose(f);
  if (!ok) {
    free(p);
    return NULL;
  }
  snprintf(p->key, sizeof p->key, "%s", key);
  p->base = 0; /* as saved */
  for (int i = 0; i < p->n; i++)
    p->site[i].after = cpuid_site_after(p, i, base);
  p->base = base;
  return p;
}

static void cache_save(const struct cpuid_sites *p) {
  char *path = cache_path(p->key);
  if (!path)
    return;
  struct cpuid_sites *z = xcalloc(1, sizeof *z);
  *z = *p;
  z->base = 0;
  for (int i = 0; i < z->n; i++)
    z->site[i].after = cpuid_site_after(p, i, 0);
  char *tmp = xasprintf("%s.%d", path, (int)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  bool ok = fd >= 0 && write(fd, CACHE_MAGIC, sizeof CACHE_MAGIC) == sizeof CACHE_MAGIC &&
            write(fd, z, sizeof *z) == (ssize_t)sizeof *z;
  if (fd >= 0)
    close(fd);
  if (!ok || rename(tmp, path) < 0)
    unlink(tmp);
  free(tmp);
  free(path);
  free(z);
}

static void keep(struct cpuid_sites *p) {
  if (nkept == KEPT)
    free(kept[--nkept]);
  memmove(kept + 1, kept, (size_t)nkept * sizeof kept[0]);
  kept[0] = p;
  nkept++;
}

const struct cpuid_sites *cpuid_sites_of(struct task *t, uint64_t base, uint64_t len,
                                         const char *key) {
  for (int i = 0; i < nkept; i++)
    if (strcmp(kept[i]->key, key) == 0 && kept[i]->len == len)
      return kept[i];
  uint8_t *code = xmalloc(len);
  struct cpuid_sites *p = NULL;
  if (task_read_mem(t, base, code, len) == 0) {
    p = cache_load(key, code, len, base);
    if (!p && (p = find_sites(code, len, base, key)) != NULL)
      cache_save(p);
  }
  free(code);
  if (p)
    keep(p);
  return p;
}
