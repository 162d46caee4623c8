/* Small read-only private mappings of data files (not ELF objects) that replay maps as
 * anonymous memory holding the file's bytes (EVF_FILE_AS_ANON): replay then needs no
 * descriptor of the preserved file in the program (an injected open and close, four
 * ptrace stops per mmap; git maps every object it reads). Such memory differs from the
 * file mapping only where the kernel refills pages from the file: madvise(MADV_DONTNEED)
 * of them. The recorder remembers the ranges per process and records their content after
 * such a madvise as memory the call wrote, which replay writes back. */
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "common/log.h"
#include "record/recorder_internal.h"

#define ANON_FILE_MAX_LEN (1u << 20) /* larger ones are file mappings in replay too */
#define ANON_FILE_MAX_RANGES 4096
#define PAGE 4096ull
#ifndef MADV_DONTNEED_LOCKED
#define MADV_DONTNEED_LOCKED 24
#endif

bool record_file_as_anon(struct rtask *x, const struct user_regs_struct *e, uint64_t addr,
                         uint64_t file_size, bool elf) {
  struct rproc *p = x->proc;
  uint64_t len = e->rsi, off = e->r9;
  uint64_t pages = (len + PAGE - 1) / PAGE;
  /* Every page must hold file bytes: a page wholly past the end faults (SIGBUS). */
  if (elf || e->rdx != PROT_READ || !len || len > ANON_FILE_MAX_LEN || off >= file_size ||
      (pages - 1) * PAGE >= file_size - off || p->nanon == ANON_FILE_MAX_RANGES)
    return false;
  return record_anon_files_add(p, addr, len);
}

bool record_anon_files_add(struct rproc *p, uint64_t addr, uint64_t len) {
  if (p->nanon == ANON_FILE_MAX_RANGES)
    return false;
  if (p->nanon == p->cap_anon) {
    p->cap_anon = p->cap_anon ? p->cap_anon * 2 : 16;
    p->anon = xrealloc(p->anon, (size_t)p->cap_anon * sizeof *p->anon);
  }
  p->anon[p->nanon++] = (struct mem_region){addr, (len + PAGE - 1) & ~(PAGE - 1)};
  return true;
}

void record_anon_files_unmapped(struct rproc *p, uint64_t addr, uint64_t len) {
  len = (len + PAGE - 1) & ~(PAGE - 1);
  for (int i = 0; i < p->nanon;)
    if (p->anon[i].addr >= addr && p->anon[i].addr + p->anon[i].len <= addr + len)
      p->anon[i] = p->anon[--p->nanon];
    else
      i++;
}

void record_anon_files_moved(struct rproc *p, uint64_t old, uint64_t old_len, uint64_t to,
                             uint64_t new_len) {
  for (int i = 0; i < p->nanon; i++) {
    struct mem_region *a = &p->anon[i];
    if (a->addr < old || a->addr >= old + old_len)
      continue;
    uint64_t at = a->addr - old;
    if (at >= new_len) {
      a->len = 0; /* cut off: never covers anything */
      continue;
    }
    a->addr = to + at;
    if (a->len > new_len - at)
      a->len = new_len - at;
  }
}

int record_anon_files_discarded(const struct rtask *x, struct mem_region *out, int room) {
  const struct user_regs_struct *e = &x->entry;
  const struct rproc *p = x->proc;
  if (e->orig_rax != SYS_madvise || (e->rdx != MADV_DONTNEED && e->rdx != MADV_DONTNEED_LOCKED))
    return 0;
  int n = 0;
  for (int i = 0; i < p->nanon && n < room; i++) {
    uint64_t lo = p->anon[i].addr > e->rdi ? p->anon[i].addr : e->rdi;
    uint64_t end = p->anon[i].addr + p->anon[i].len, mend = e->rdi + e->rsi;
    uint64_t hi = end < mend ? end : mend;
    if (lo < hi)
      out[n++] = (struct mem_region){lo, hi - lo};
  }
  return n;
}

void record_anon_files_copy(struct rproc *to, const struct rproc *from) {
  free(to->anon);
  to->anon = NULL;
  to->nanon = to->cap_anon = 0;
  if (!from->nanon)
    return;
  to->anon = xmalloc((size_t)from->nanon * sizeof *to->anon);
  for (int i = 0; i < from->nanon; i++)
    to->anon[i] = from->anon[i];
  to->nanon = to->cap_anon = from->nanon;
}
