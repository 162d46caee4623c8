/* Sparse reading, hashing and copying of preserved files (see file_content.h). */
#include "trace/file_content.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include <xxhash.h>

#include "common/log.h"

#define PAGE 4096u
#define BLOCK (1u << 20) /* read unit */

static bool all_zero(const uint8_t *p, size_t n) {
  static const uint8_t zero[PAGE];
  return memcmp(p, zero, n) == 0;
}

static void put_le64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

/* The next data region at or after POS below HI: [*start, *end). False when none. A file
 * system without SEEK_DATA support is read as one data region. */
static bool next_data(int fd, uint64_t pos, uint64_t hi, uint64_t *start, uint64_t *end) {
  if (pos >= hi)
    return false;
  off_t d = lseek(fd, (off_t)pos, SEEK_DATA);
  if (d < 0) {
    if (errno == ENXIO)
      return false; /* only a hole up to the end of the file */
    *start = pos;
    *end = hi;
    return true;
  }
  if ((uint64_t)d >= hi)
    return false;
  off_t h = lseek(fd, d, SEEK_HOLE);
  *start = (uint64_t)d;
  *end = h < 0 || (uint64_t)h > hi ? hi : (uint64_t)h;
  return true;
}

static ssize_t pread_full(int fd, uint8_t *buf, size_t n, uint64_t off) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = pread(fd, buf + got, n - got, (off_t)(off + got));
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return -1;
    if (r == 0)
      break;
    got += (size_t)r;
  }
  return (ssize_t)got;
}

static int pwrite_full(int fd, const uint8_t *buf, size_t n, uint64_t off) {
  while (n > 0) {
    ssize_t w = pwrite(fd, buf, n, (off_t)off);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      if (w == 0)
        errno = EIO;
      return -1;
    }
    buf += w;
    off += (uint64_t)w;
    n -= (size_t)w;
  }
  return 0;
}

/* Walks the non-zero pages of [LO, HI) of IN, hashing them, and writes them to OUT when
 * OUT >= 0. */
static int walk(int in, int out, uint64_t lo, uint64_t hi, uint64_t size, char *hex) {
  if (hi > size)
    hi = size;
  lo &= ~(uint64_t)(PAGE - 1);
  XXH3_state_t st;
  XXH3_128bits_reset(&st);
  uint8_t le[8];
  put_le64(le, size);
  XXH3_128bits_update(&st, le, 8);
  uint8_t *buf = xmalloc(BLOCK);
  int rc = 0;
  uint64_t pos = lo, start, end;
  while (rc == 0 && next_data(in, pos, hi, &start, &end)) {
    start &= ~(uint64_t)(PAGE - 1);
    if (start < pos)
      start = pos; /* never hash a page twice */
    for (uint64_t at = start; at < end && rc == 0; at += BLOCK) {
      size_t want = end - at < BLOCK ? (size_t)(end - at) : BLOCK;
      ssize_t got = pread_full(in, buf, want, at);
      if (got < 0) {
        rc = -1;
        break;
      }
      for (size_t p = 0; p < (size_t)got && rc == 0; p += PAGE) {
        size_t n = (size_t)got - p < PAGE ? (size_t)got - p : PAGE;
        if (all_zero(buf + p, n))
          continue;
        put_le64(le, at + p);
        XXH3_128bits_update(&st, le, 8);
        XXH3_128bits_update(&st, buf + p, n);
        if (out >= 0 && pwrite_full(out, buf + p, n, at + p) < 0)
          rc = -1;
      }
      if ((size_t)got < want)
        end = at + (uint64_t)got; /* the file shrank under us: stop here */
    }
    pos = end;
  }
  free(buf);
  if (rc == 0 && out >= 0 && ftruncate(out, (off_t)size) < 0)
    rc = -1;
  if (rc == 0) {
    XXH128_hash_t h = XXH3_128bits_digest(&st);
    snprintf(hex, FILE_HASH_HEX_LEN + 1, "%016llx%016llx", (unsigned long long)h.high64,
             (unsigned long long)h.low64);
  }
  return rc;
}

int file_content_hash(int fd, uint64_t lo, uint64_t hi, uint64_t size, char *hex) {
  return walk(fd, -1, lo, hi, size, hex);
}

int file_content_copy(int in, int out, uint64_t lo, uint64_t hi, uint64_t size, char *hex) {
  return walk(in, out, lo, hi, size, hex);
}

int file_content_clone(int in, int out, uint64_t size) {
  uint64_t pos = 0, start, end;
  while (next_data(in, pos, size, &start, &end)) {
    loff_t from = (loff_t)start, to = (loff_t)start;
    while ((uint64_t)from < end) {
      ssize_t n = copy_file_range(in, &from, out, &to, (size_t)(end - (uint64_t)from), 0);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) { /* not supported between these files: copy in user space */
        char hex[FILE_HASH_HEX_LEN + 1];
        return ftruncate(out, 0) < 0 ? -1 : file_content_copy(in, out, 0, size, size, hex);
      }
    }
    pos = end;
  }
  return ftruncate(out, (off_t)size);
}

const char *file_content_hash_of_name(const char *name) {
  size_t n = strlen(name);
  if (n < FILE_HASH_HEX_LEN + 1 || name[n - FILE_HASH_HEX_LEN - 1] != '-')
    return NULL;
  const char *h = name + n - FILE_HASH_HEX_LEN;
  for (const char *p = h; *p; p++)
    if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
      return NULL;
  return h;
}
