/* What the writer and the reader of record streams share (trace_stream_writer.c,
 * trace_stream_reader.c): the layout's constants (trace_stream.h describes it) and the
 * little-endian and checksum helpers. */
#ifndef DEJA_TRACE_STREAM_FORMAT_H
#define DEJA_TRACE_STREAM_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#define XXH_STATIC_LINKING_ONLY /* XXH64_state_t on the stack */
#include <xxhash.h>

#define FILE_MAGIC "DEJATRC1"
#define FILE_MAGIC_LEN 8
#define CHUNK_MAGIC 0x4b4e4843u
#define CHUNK_HEADER_LEN 24u                /* 16 described bytes + u64 checksum */
#define CHUNK_MAX_RAW (64u * 1024u * 1024u) /* what a reader accepts */
#define SEAL_LEN 16u /* after the file header: u64 final file length, u64 its hash */
#define SEAL_HASH_SEED 0x5ea1u
#define FRAG_CONTINUES 0x80000000u /* in a record header: continued next chunk */
#define FRAG_CANCELLED 0x40000000u /* the last fragment of a record to drop */
#define FRAG_LEN_MASK 0x3fffffffu
#define WRITER_VERSION_MAX 256u
#define ERR_LEN 512

static inline uint32_t get_u32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t get_u64(const uint8_t *p) {
  return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

static inline void put_u32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

static inline void put_u64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

/* XXH64 (seed 0) of A followed by B. */
static inline uint64_t checksum_two(const void *a, size_t alen, const void *b, size_t blen) {
  XXH64_state_t st;
  XXH64_reset(&st, 0);
  XXH64_update(&st, a, alen);
  if (blen)
    XXH64_update(&st, b, blen);
  return XXH64_digest(&st);
}

#endif
