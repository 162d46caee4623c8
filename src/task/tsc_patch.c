/* Patching rdtsc and rdtscp into traps (see tsc_patch.h). */
#include "task/tsc_patch.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <x86intrin.h>

#include "common/line_file.h"
#include "common/log.h"
#include "task/proc_maps.h"

#define PAGE_MASK_LOW 4095ull

bool tsc_patch_kernel_traps(void) {
  static int traps = -1;
  if (traps >= 0)
    return traps;
  pid_t pid = fork();
  if (pid == 0) {
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core); /* the expected SIGSEGV must not dump core */
    signal(SIGSEGV, SIG_DFL);
    prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0);
    (void)__rdtsc();
    _exit(0);
  }
  int status = 0;
  while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  traps = pid > 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV;
  return traps;
}

bool tsc_patch_wanted(void) {
  const char *force = getenv("DEJA_TSC_PATCH");
  if (force && (*force == '0' || *force == '1'))
    return *force == '1';
  return !tsc_patch_kernel_traps();
}

int tsc_patch_note(const char *trace_dir) {
  return line_file_write(trace_dir, TSC_PATCH_NOTE, "patched\n");
}

bool tsc_patch_recorded(const char *trace_dir) {
  char word[16];
  return line_file_read(trace_dir, TSC_PATCH_NOTE, word, sizeof word) &&
         strncmp(word, "patched", 7) == 0;
}

void tsc_table_free(struct tsc_table *t) {
  free(t->s);
  *t = (struct tsc_table){0};
}

void tsc_table_copy(struct tsc_table *to, const struct tsc_table *from) {
  tsc_table_free(to);
  if (!from->n)
    return;
  to->s = xmalloc((size_t)from->n * sizeof *to->s);
  memcpy(to->s, from->s, (size_t)from->n * sizeof *to->s);
  to->n = to->cap = from->n;
}

/* Forgets the sites inside [START, START+LEN). */
static void drop_range(struct tsc_table *t, uint64_t start, uint64_t len) {
  int k = 0;
  for (int i = 0; i < t->n; i++)
    if (t->s[i].addr < start || t->s[i].addr - start >= len)
      t->s[k++] = t->s[i];
  t->n = k;
}

static int by_addr(const void *a, const void *b) {
  const struct tsc_site *x = a, *y = b;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void sort_sites(struct tsc_table *t) {
  if (t->n > 1) /* qsort must not be given the NULL of an empty table */
    qsort(t->s, (size_t)t->n, sizeof *t->s, by_addr);
}

static const struct tsc_site *find(const struct tsc_table *t, uint64_t addr) {
  struct tsc_site key = {.addr = addr};
  return t->n ? bsearch(&key, t->s, (size_t)t->n, sizeof key, by_addr) : NULL;
}

/* Reads what of [START, START+LEN) is readable from the start (a file mapping past its
 * file's end is not); malloc'ed, its length in *GOT. */
static uint8_t *read_code(struct task *t, uint64_t start, uint64_t len, size_t *got) {
  uint8_t *buf = xmalloc(len ? len : 1);
  size_t done = 0;
  while (done < len) {
    ssize_t n = pread(t->mem_fd, buf + done, len - done, (off_t)(start + done));
    if (n <= 0)
      break;
    done += (size_t)n;
  }
  *got = done;
  return buf;
}

/* Scans [START, START+LEN) of T's memory and patches the sites found into TAB. */
static int patch_range(struct task *t, struct tsc_table *tab, uint64_t start, uint64_t len) {
  size_t got;
  uint8_t *code = read_code(t, start, len, &got);
  int first = tab->n;
  int found = x86_tsc_sites_scan(code, got, start, &tab->s, &tab->n, &tab->cap);
  free(code);
  if (found < 0) {
    static bool warned;
    if (!warned)
      deja_msg("warning: capstone is missing: rdtsc cannot be patched and a replay will "
               "diverge where the program reads the time stamp counter");
    warned = true;
    return -1;
  }
  int patched = 0;
  for (int i = first; i < tab->n; i++) {
    struct tsc_site *s = &tab->s[i];
    uint8_t trap[3];
    x86_tsc_trap_bytes(s->len, trap);
    if (task_write_mem(t, s->addr, trap, s->len) < 0) {
      deja_msg("cannot patch the %s at 0x%" PRIx64 " in task %d: %s",
               s->len == 2 ? "rdtsc" : "rdtscp", s->addr, t->tid, strerror(errno));
      tab->n = first;
      return -1;
    }
    patched++;
  }
  sort_sites(tab);
  return patched;
}

struct patch_ctx {
  struct task *t;
  struct tsc_table *tab;
  uint64_t start, end; /* the range of interest */
  bool files_only;
  int patched;
};

static int patch_mapping(const struct proc_mapping *m, void *ctx) {
  struct patch_ctx *c = ctx;
  if (!(m->prot & PROT_EXEC) || !m->priv || (c->files_only && m->name[0] != '/') ||
      m->end <= c->start || m->start >= c->end)
    return 0;
  uint64_t lo = m->start > c->start ? m->start : c->start;
  uint64_t hi = m->end < c->end ? m->end : c->end;
  int n = patch_range(c->t, c->tab, lo, hi - lo);
  if (n < 0)
    return -1;
  c->patched += n;
  return 0;
}

int tsc_patch_image(struct task *t, struct tsc_table *tab) {
  tab->n = 0;
  struct patch_ctx c = {.t = t, .tab = tab, .start = 0, .end = UINT64_MAX, .files_only = true};
  return proc_maps_each(t->tid, patch_mapping, &c) < 0 ? -1 : c.patched;
}

bool tsc_patch_call_matters(const struct user_regs_struct *e, int64_t result) {
  switch ((long)e->orig_rax) {
  case SYS_mmap:
  case SYS_mremap: return (uint64_t)result < -4096ull;
  case SYS_mprotect:
  case SYS_pkey_mprotect: return result == 0 && (e->rdx & PROT_EXEC);
  case SYS_munmap: return result == 0;
  default: return false;
  }
}

static uint64_t page_len(uint64_t len) { return (len + PAGE_MASK_LOW) & ~PAGE_MASK_LOW; }

int tsc_patch_after_call(struct task *t, struct tsc_table *tab, const struct user_regs_struct *e,
                         int64_t result) {
  if (!tsc_patch_call_matters(e, result))
    return 0;
  uint64_t addr = e->rdi, len = page_len(e->rsi);
  switch ((long)e->orig_rax) {
  case SYS_munmap: drop_range(tab, addr, len); return 0;
  case SYS_mremap: { /* the sites move with the pages */
    uint64_t to = (uint64_t)result, new_len = page_len(e->rdx);
    drop_range(tab, to, new_len);
    for (int i = 0; i < tab->n; i++)
      if (tab->s[i].addr >= addr && tab->s[i].addr - addr < len) {
        if (tab->s[i].addr - addr < new_len)
          tab->s[i].addr = tab->s[i].addr - addr + to;
        else
          tab->s[i].addr = 0; /* cut off */
      }
    drop_range(tab, 0, 1);
    sort_sites(tab);
    return 0;
  }
  case SYS_mmap: {
    uint64_t at = (uint64_t)result;
    drop_range(tab, at, len); /* what was mapped there is gone */
    if (!(e->rdx & PROT_EXEC) || (e->r10 & MAP_ANONYMOUS) || (e->r10 & 3) != MAP_PRIVATE)
      return 0;
    struct patch_ctx c = {.t = t, .tab = tab, .start = at, .end = at + len, .files_only = true};
    return proc_maps_each(t->tid, patch_mapping, &c) < 0 ? -1 : c.patched;
  }
  default: { /* mprotect adding PROT_EXEC: sites patched before are in place already */
    struct patch_ctx c = {.t = t, .tab = tab, .start = addr, .end = addr + len};
    return proc_maps_each(t->tid, patch_mapping, &c) < 0 ? -1 : c.patched;
  }
  }
}

const struct tsc_site *tsc_table_trap_site(const struct tsc_table *tab, struct task *t,
                                           uint64_t rip) {
  const struct tsc_site *s = find(tab, rip - 1);
  uint8_t now[3], trap[3];
  if (!s || task_read_mem(t, s->addr, now, s->len) < 0)
    return NULL;
  x86_tsc_trap_bytes(s->len, trap);
  return memcmp(now, trap, s->len) == 0 ? s : NULL;
}

void tsc_table_original(const struct tsc_table *tab, uint64_t addr, uint8_t *buf, size_t len) {
  for (int i = 0; i < tab->n; i++) {
    const struct tsc_site *s = &tab->s[i];
    uint8_t trap[3];
    x86_tsc_trap_bytes(s->len, trap);
    for (unsigned k = 0; k < s->len; k++) {
      uint64_t a = s->addr + k;
      /* only bytes still holding the patch: the program may have changed its code */
      if (a >= addr && a - addr < len && buf[a - addr] == trap[k])
        buf[a - addr] = s->orig[k];
    }
  }
}
