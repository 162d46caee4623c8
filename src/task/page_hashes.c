#include "task/page_hashes.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "common/kernel_abi.h"
#include "common/log.h"

#define PAGE PAGE_BYTES
#define PM_PRESENT (1ull << 63)

/* Open addressing, linear probing; key 0 is free, key 1 a tombstone (page addresses are
 * page-aligned, so neither is a real key). */
struct slot {
  uint64_t page, hash, tag;
};

struct page_hashes {
  struct slot *slots;
  size_t cap, used; /* used counts live entries and tombstones */
};

struct page_hashes *page_hashes_new(void) {
  struct page_hashes *h = xcalloc(1, sizeof *h);
  h->cap = 1024;
  h->slots = xcalloc(h->cap, sizeof *h->slots);
  return h;
}

void page_hashes_free(struct page_hashes *h) {
  if (!h)
    return;
  free(h->slots);
  free(h);
}

struct page_hashes *page_hashes_copy(const struct page_hashes *h) {
  struct page_hashes *c = xcalloc(1, sizeof *c);
  *c = *h;
  c->slots = xmalloc(h->cap * sizeof *h->slots);
  memcpy(c->slots, h->slots, h->cap * sizeof *h->slots);
  return c;
}

void page_hashes_clear(struct page_hashes *h) {
  memset(h->slots, 0, h->cap * sizeof *h->slots);
  h->used = 0;
}

static size_t slot_of(const struct page_hashes *h, uint64_t page) {
  return (size_t)((page >> 12) * 0x9E3779B97F4A7C15ull) & (h->cap - 1);
}

static struct slot *lookup(struct page_hashes *h, uint64_t page) {
  for (size_t i = slot_of(h, page);; i = (i + 1) & (h->cap - 1)) {
    if (h->slots[i].page == page)
      return &h->slots[i];
    if (h->slots[i].page == 0)
      return NULL;
  }
}

static void insert(struct page_hashes *h, uint64_t page, uint64_t hash, uint64_t tag);

static void grow(struct page_hashes *h) {
  struct slot *old = h->slots;
  size_t oldcap = h->cap;
  h->cap *= 2;
  h->slots = xcalloc(h->cap, sizeof *h->slots);
  h->used = 0;
  for (size_t i = 0; i < oldcap; i++)
    if (old[i].page > 1)
      insert(h, old[i].page, old[i].hash, old[i].tag);
  free(old);
}

static void insert(struct page_hashes *h, uint64_t page, uint64_t hash, uint64_t tag) {
  struct slot *s = lookup(h, page);
  if (s) {
    s->hash = hash;
    s->tag = tag;
    return;
  }
  if ((h->used + 1) * 2 > h->cap)
    grow(h);
  size_t i = slot_of(h, page);
  while (h->slots[i].page > 1)
    i = (i + 1) & (h->cap - 1);
  if (h->slots[i].page == 0)
    h->used++;
  h->slots[i] = (struct slot){page, hash, tag};
}

void page_hashes_forget(struct page_hashes *h, uint64_t addr, uint64_t len) {
  uint64_t end = addr + len;
  if (end < addr)
    end = UINT64_MAX;
  uint64_t first = addr & ~(PAGE - 1);
  if ((end - first) / PAGE > h->cap) {
    /* A large range: walk the table instead of the range. */
    for (size_t i = 0; i < h->cap; i++)
      if (h->slots[i].page > 1 && h->slots[i].page >= first && h->slots[i].page < end)
        h->slots[i].page = 1;
    return;
  }
  for (uint64_t p = first; p < end; p += PAGE) {
    struct slot *s = lookup(h, p);
    if (s)
      s->page = 1;
  }
}

bool page_hashes_get(struct page_hashes *h, uint64_t page, uint64_t *hash, uint64_t *tag) {
  struct slot *s = lookup(h, page);
  if (!s)
    return false;
  *hash = s->hash;
  *tag = s->tag;
  return true;
}

void page_hashes_set(struct page_hashes *h, uint64_t page, uint64_t hash, uint64_t tag) {
  insert(h, page, hash, tag);
}

uint64_t page_hash(const uint8_t *page) { return XXH3_64bits(page, PAGE); }

bool page_hash_is_zero(uint64_t hash) {
  static uint64_t zero_hash;
  static bool known;
  if (!known) {
    static const uint8_t zero[PAGE];
    zero_hash = XXH3_64bits(zero, PAGE);
    known = true;
  }
  return hash == zero_hash;
}

void page_digest_add(uint64_t *digest, uint64_t addr, uint64_t hash) {
  if (!page_hash_is_zero(hash))
    *digest += XXH3_64bits_withSeed(&hash, sizeof hash, addr);
}

#define BATCH_PAGES 256 /* present pages read with one pread */

int page_scan(pid_t tid, int mem_fd, page_scan_fn fn, void *ctx) {
  char path[64], line[768];
  snprintf(path, sizeof path, "/proc/%d/maps", tid);
  FILE *maps = fopen(path, "re");
  snprintf(path, sizeof path, "/proc/%d/pagemap", tid);
  int pm = open(path, O_RDONLY | O_CLOEXEC);
  if (!maps || pm < 0) {
    int e = errno;
    if (maps)
      fclose(maps);
    if (pm >= 0)
      close(pm);
    errno = e;
    return -1;
  }
  int rc = 0;
  uint64_t *flags = NULL;
  size_t flags_cap = 0;
  uint8_t *buf = xmalloc(BATCH_PAGES * PAGE);
  while (rc == 0 && fgets(line, sizeof line, maps)) {
    uint64_t lo, hi;
    char perms[8];
    if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s", &lo, &hi, perms) != 3 || perms[1] != 'w')
      continue;
    if (strstr(line, "[vsyscall]"))
      continue;
    size_t n = (hi - lo) / PAGE;
    if (n > flags_cap) {
      flags_cap = n;
      flags = xrealloc(flags, n * sizeof *flags);
    }
    if (pread(pm, flags, n * sizeof *flags, (off_t)(lo / PAGE * sizeof *flags)) !=
        (ssize_t)(n * sizeof *flags))
      continue;
    for (size_t i = 0; i < n && rc == 0;) {
      if (!(flags[i] & PM_PRESENT)) {
        i++;
        continue;
      }
      size_t run = 1; /* consecutive present pages, read at once */
      while (run < BATCH_PAGES && i + run < n && (flags[i + run] & PM_PRESENT))
        run++;
      uint64_t a = lo + i * PAGE;
      ssize_t got = pread(mem_fd, buf, run * PAGE, (off_t)a);
      size_t pages = got > 0 ? (size_t)got / PAGE : 0;
      for (size_t k = 0; k < pages && rc == 0; k++)
        rc = fn(ctx, a + k * PAGE, buf + k * PAGE, page_hash(buf + k * PAGE));
      i += pages < run ? pages + 1 : run; /* an unreadable page is skipped */
    }
  }
  int e = errno;
  free(buf);
  free(flags);
  close(pm);
  fclose(maps);
  errno = e;
  return rc;
}

struct changed_ctx {
  struct page_hashes *h;
  page_emit_fn emit;
  void *ctx;
  long changed;
  uint64_t digest;
};

static int changed_page(void *ctx, uint64_t addr, const uint8_t *page, uint64_t hash) {
  struct changed_ctx *c = ctx;
  page_digest_add(&c->digest, addr, hash);
  struct slot *s = lookup(c->h, addr);
  if (s && s->hash == hash)
    return 0;
  insert(c->h, addr, hash, 0);
  if (c->emit(c->ctx, addr, page) < 0)
    return -1;
  c->changed++;
  return 0;
}

long page_hashes_changed(struct page_hashes *h, pid_t tid, int mem_fd, page_emit_fn emit, void *ctx,
                         uint64_t *digest) {
  struct changed_ctx c = {h, emit, ctx, 0, 0};
  if (page_scan(tid, mem_fd, changed_page, &c) < 0)
    return -1;
  if (digest)
    *digest = c.digest;
  return c.changed;
}
