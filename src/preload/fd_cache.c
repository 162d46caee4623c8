/* The library's memory of which descriptors are files (preload.h): a read or write of a
 * descriptor found seekable (and, for a write, not deja's stdout or stderr) asks lseek
 * and fstat once, not at each call. A descriptor is forgotten at the library's own close
 * and whenever it is handed out again (open, fcntl's dups); all of them when deja gives
 * the page a new generation (at traced calls: a raw close, dup2, close_range or exec) or
 * turns the memory off (SBUF_FD_NOCACHE_OFF). Used while recording only: a replay follows
 * the record's SBUF_REC_FD_* flags. */
#include "preload/preload.h"

#define FD_CACHE_MAX 1024

static uint64_t g_seekable[FD_CACHE_MAX / 64], g_plain[FD_CACHE_MAX / 64];
static uint32_t g_gen; /* the page's generation the sets are of */

static uint32_t page_word(unsigned off) {
  return *(volatile const uint32_t *)(SBUF_PAGE_ADDR + off);
}

static void clear(uint64_t *set) {
  for (int i = 0; i < FD_CACHE_MAX / 64; i++)
    __atomic_store_n(&set[i], 0, __ATOMIC_RELAXED);
}

/* Whether the sets may be used now: emptied first when deja changed the generation. */
static bool usable(long fd) {
  if (fd < 0 || fd >= FD_CACHE_MAX || page_word(SBUF_FD_NOCACHE_OFF))
    return false;
  uint32_t gen = page_word(SBUF_FD_GEN_OFF);
  if (gen != __atomic_load_n(&g_gen, __ATOMIC_RELAXED)) {
    clear(g_seekable);
    clear(g_plain);
    __atomic_store_n(&g_gen, gen, __ATOMIC_RELAXED);
  }
  return true;
}

static bool in(const uint64_t *set, long fd) {
  return __atomic_load_n(&set[fd / 64], __ATOMIC_RELAXED) >> (fd % 64) & 1;
}

bool preload_fd_seekable(long fd) { return usable(fd) && in(g_seekable, fd); }

bool preload_fd_plain(long fd) { return usable(fd) && in(g_plain, fd); }

void preload_fd_note(long fd, bool plain) {
  if (!usable(fd))
    return;
  uint64_t bit = 1ull << (fd % 64);
  __atomic_fetch_or(&g_seekable[fd / 64], bit, __ATOMIC_RELAXED);
  if (plain)
    __atomic_fetch_or(&g_plain[fd / 64], bit, __ATOMIC_RELAXED);
}

void preload_fd_forget(long fd) {
  if (fd < 0 || fd >= FD_CACHE_MAX)
    return;
  uint64_t keep = ~(1ull << (fd % 64));
  __atomic_fetch_and(&g_seekable[fd / 64], keep, __ATOMIC_RELAXED);
  __atomic_fetch_and(&g_plain[fd / 64], keep, __ATOMIC_RELAXED);
}
