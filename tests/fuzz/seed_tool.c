/* Makes seed inputs for the fuzz targets from real traces (tests/fuzz/make_corpus.sh;
 * not part of the build):
 *   seed_tool records EVENTS OUTDIR   each record of EVENTS whose kind and flags are new
 *                                     (and smaller than 16 KiB) as OUTDIR/KIND-FLAGS-N
 *   seed_tool rawblocks EVENTS OUT    EVENTS with every chunk's zstd frame rewritten as
 *                                     raw (stored) blocks, so that a fuzzer changing its
 *                                     bytes changes records, not compressed data
 *   seed_tool split EVENTS N OUT      the first N records of EVENTS in small chunks of raw
 *                                     blocks, every third record split across two chunks,
 *                                     and a record cancelled after its first fragment (as
 *                                     the writer does with records over 8 MiB)
 *   seed_tool store FLAGS NAME FILE OUT  an input of fuzz_trace_store: FILE's bytes
 *                                     preserved as NAME-<their hash> */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#include "common/log.h"
#include "trace/file_content.h"
#include "trace/trace_event.h"
#include "trace/trace_stream.h"

#define RECORD_MAX (16u * 1024u)
#define EXEC_RECORD_MAX (64u * 1024u) /* an exec's record holds its stack */
#define BLOCK_MAX (128u * 1024u)

static uint8_t *slurp(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *data = malloc((size_t)n + 1);
  if (fread(data, 1, (size_t)n, f) != (size_t)n) {
    perror(path);
    exit(1);
  }
  fclose(f);
  *size = (size_t)n;
  return data;
}

static void spill(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
    perror(path);
    exit(1);
  }
}

static int records(const char *events, const char *outdir) {
  char err[512];
  struct trace_reader *rd = trace_reader_open(events, 1, err, sizeof err);
  if (!rd) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  static uint32_t seen[64][16];
  /* named after the trace: .../TRACE/events */
  char trace[256];
  const char *slash = strrchr(events, '/'), *prev = slash;
  while (prev && prev > events && prev[-1] != '/')
    prev--;
  snprintf(trace, sizeof trace, "%.*s", slash && prev ? (int)(slash - prev) : 5,
           slash && prev ? prev : "trace");
  const void *rec;
  size_t len;
  int n = 0;
  while (trace_reader_next(rd, &rec, &len) == 1) {
    struct event ev;
    event_init(&ev);
    if (event_decode(&ev, rec, len, err, sizeof err) == 0 &&
        len <= (ev.kind == EV_EXEC ? EXEC_RECORD_MAX : RECORD_MAX)) {
      uint32_t kind = ev.kind % 64,
               flags = ev.kind == EV_SYSCALL || ev.kind == EV_SBUF ? ev.flags : 0;
      int k = 0;
      while (k < 16 && seen[kind][k] && seen[kind][k] != flags + 1)
        k++;
      if (k < 16 && !seen[kind][k]) {
        seen[kind][k] = flags + 1;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s-%s-%x-%d", outdir, trace, event_kind_name(ev.kind),
                 flags, n++);
        spill(path, rec, len);
      }
    }
    event_free(&ev);
  }
  trace_reader_close(rd);
  return 0;
}

static uint32_t get_u32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_u32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

/* A zstd frame of RAW (N bytes) in raw blocks: magic, a single-segment header with a
 * 4-byte content size, then blocks of at most 128 KiB. Returns its length. */
static size_t raw_frame(const uint8_t *raw, size_t n, uint8_t *out) {
  size_t o = 0;
  put_u32(out, 0xfd2fb528u);
  o += 4;
  out[o++] = 0xa0; /* FCS field 4 bytes, single segment */
  put_u32(out + o, (uint32_t)n);
  o += 4;
  size_t at = 0;
  do {
    size_t b = n - at < BLOCK_MAX ? n - at : BLOCK_MAX;
    uint32_t hdr = (uint32_t)(b << 3) | (at + b == n ? 1u : 0u); /* type 0: raw */
    out[o++] = (uint8_t)hdr;
    out[o++] = (uint8_t)(hdr >> 8);
    out[o++] = (uint8_t)(hdr >> 16);
    memcpy(out + o, raw + at, b);
    o += b;
    at += b;
  } while (at < n);
  return o;
}

static int rawblocks(const char *events, const char *out_path) {
  size_t size;
  uint8_t *f = slurp(events, &size);
  size_t vlen = get_u32(f + 16), at = 20 + vlen + 8 + 16;
  size_t o = at, cap = size + (1u << 20);
  uint8_t *out = malloc(cap);
  memcpy(out, f, at);
  while (at + 24 <= size) {
    uint32_t csize = get_u32(f + at + 4), rsize = get_u32(f + at + 8);
    while (o + 24 + rsize + rsize / 1000 + 64 > cap)
      out = xrealloc(out, cap *= 2);
    uint8_t *hdr = out + o;
    memcpy(hdr, f + at, 24);
    if (rsize) {
      uint8_t *raw = malloc(rsize);
      size_t n = ZSTD_decompress(raw, rsize, f + at + 24, csize);
      if (ZSTD_isError(n) || n != rsize) {
        fprintf(stderr, "%s: cannot decompress the chunk at %zu\n", events, at);
        return 1;
      }
      csize = (uint32_t)raw_frame(raw, rsize, hdr + 24);
      free(raw);
    }
    put_u32(hdr + 4, csize);
    XXH64_state_t *st = XXH64_createState();
    XXH64_reset(st, 0);
    XXH64_update(st, hdr, 16);
    XXH64_update(st, hdr + 24, csize);
    put_u64(hdr + 16, XXH64_digest(st));
    XXH64_freeState(st);
    o += 24 + csize;
    at += 24 + get_u32(f + at + 4);
  }
  uint8_t *seal = out + 20 + vlen + 8;
  put_u64(seal, o);
  put_u64(seal + 8, XXH64(seal, 8, 0x5ea1u));
  spill(out_path, out, o);
  free(out);
  free(f);
  return 0;
}

/* A chunk of raw blocks holding RAW (NREC fragments) at OUT; returns its length. */
static size_t put_chunk(const uint8_t *raw, size_t n, uint32_t nrec, uint8_t *out) {
  size_t csize = n ? raw_frame(raw, n, out + 24) : 0;
  put_u32(out, 0x4b4e4843u);
  put_u32(out + 4, (uint32_t)csize);
  put_u32(out + 8, (uint32_t)n);
  put_u32(out + 12, nrec);
  XXH64_state_t *st = XXH64_createState();
  XXH64_reset(st, 0);
  XXH64_update(st, out, 16);
  XXH64_update(st, out + 24, csize);
  put_u64(out + 16, XXH64_digest(st));
  XXH64_freeState(st);
  return 24 + csize;
}

/* Appends a fragment (header HDR | its length, then N bytes) to the chunk being built. */
static void put_fragment(uint8_t *raw, size_t *len, uint32_t *nrec, uint32_t flags, const void *p,
                         size_t n) {
  put_u32(raw + *len, (uint32_t)n | flags);
  memcpy(raw + *len + 4, p, n);
  *len += 4 + n;
  (*nrec)++;
}

static int split(const char *events, const char *count, const char *out_path) {
  size_t size;
  uint8_t *f = slurp(events, &size);
  size_t head = 20 + get_u32(f + 16) + 8 + 16;
  char err[512];
  struct trace_reader *rd = trace_reader_open(events, 1, err, sizeof err);
  if (!rd) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  uint8_t *out = malloc(size * 4 + 4096), *raw = malloc(size * 4 + 4096);
  size_t o = head, len = 0;
  uint32_t nrec = 0, want = (uint32_t)strtoul(count, NULL, 0);
  memcpy(out, f, head);
  const void *rec;
  size_t rlen;
  for (uint32_t i = 0; i < want && trace_reader_next(rd, &rec, &rlen) == 1; i++) {
    if (i == 1) { /* a record dropped after its first fragment reached the file */
      put_fragment(raw, &len, &nrec, 0x80000000u, "dropped", 7);
      o += put_chunk(raw, len, nrec, out + o);
      len = nrec = 0;
      put_fragment(raw, &len, &nrec, 0x40000000u, "", 0);
    }
    if (i % 3 == 2) { /* split across two chunks */
      put_fragment(raw, &len, &nrec, 0x80000000u, rec, rlen / 2);
      o += put_chunk(raw, len, nrec, out + o);
      len = nrec = 0;
      put_fragment(raw, &len, &nrec, 0, (const uint8_t *)rec + rlen / 2, rlen - rlen / 2);
    } else {
      put_fragment(raw, &len, &nrec, 0, rec, rlen);
    }
  }
  if (nrec)
    o += put_chunk(raw, len, nrec, out + o);
  o += put_chunk(NULL, 0, 0, out + o); /* the end marker */
  uint8_t *seal = out + head - 16;
  put_u64(seal, o);
  put_u64(seal + 8, XXH64(seal, 8, 0x5ea1u));
  spill(out_path, out, o);
  trace_reader_close(rd);
  free(out);
  free(raw);
  free(f);
  return 0;
}

static int store(const char *flags, const char *name, const char *file, const char *out_path) {
  size_t size;
  uint8_t *data = slurp(file, &size);
  int fd = open(file, O_RDONLY);
  char hex[FILE_HASH_HEX_LEN + 1];
  if (fd < 0 || file_content_hash(fd, 0, size, size, hex) != 0) {
    perror(file);
    return 1;
  }
  close(fd);
  size_t n = strlen(name) + 1 + FILE_HASH_HEX_LEN + 1 + FILE_HASH_HEX_LEN + 1;
  uint8_t *in = malloc(1 + n + size);
  in[0] = (uint8_t)strtoul(flags, NULL, 0);
  int len = sprintf((char *)in + 1, "%s-%s", name, hex);
  len += 1 + 1;
  len += sprintf((char *)in + len, "%s", hex) + 1;
  memcpy(in + len, data, size);
  spill(out_path, in, (size_t)len + size);
  free(in);
  free(data);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "records") == 0)
    return records(argv[2], argv[3]);
  if (argc == 4 && strcmp(argv[1], "rawblocks") == 0)
    return rawblocks(argv[2], argv[3]);
  if (argc == 5 && strcmp(argv[1], "split") == 0)
    return split(argv[2], argv[3], argv[4]);
  if (argc == 6 && strcmp(argv[1], "store") == 0)
    return store(argv[2], argv[3], argv[4], argv[5]);
  fprintf(stderr, "usage: seed_tool records EVENTS OUTDIR | rawblocks EVENTS OUT | split EVENTS N "
                  "OUT | store FLAGS NAME FILE OUT\n");
  return 2;
}
