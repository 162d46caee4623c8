/* Building and parsing records: a growable byte buffer and a bounds-checked cursor.
 * Little-endian fixed-width integers; byte strings are u32 length + bytes. */
#ifndef DEJA_TRACE_BUF_H
#define DEJA_TRACE_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

struct tbuf {
  uint8_t *data;
  size_t len, cap;
};

void tbuf_init(struct tbuf *b);
void tbuf_free(struct tbuf *b);
void tbuf_reset(struct tbuf *b); /* len = 0, keeps the allocation */
void tbuf_put_u8(struct tbuf *b, uint8_t v);
void tbuf_put_u32(struct tbuf *b, uint32_t v);
void tbuf_put_u64(struct tbuf *b, uint64_t v);
void tbuf_put_bytes(struct tbuf *b, const void *p, size_t n);  /* raw, no length */
void tbuf_put_blob(struct tbuf *b, const void *p, uint32_t n); /* u32 length + bytes */
void tbuf_put_str(struct tbuf *b, const char *s);              /* blob without NUL */
/* Reserves N bytes at the end and returns a pointer to them (valid until the next put). */
uint8_t *tbuf_grow(struct tbuf *b, size_t n);

/* A cursor never reads past its end: a short read sets ok=false and returns zeros/NULL,
 * so a parser checks cur.ok once at the end. */
struct tcur {
  const uint8_t *p, *end;
  bool ok;
};

void tcur_init(struct tcur *c, const void *data, size_t len);
uint8_t tcur_u8(struct tcur *c);
uint32_t tcur_u32(struct tcur *c);
uint64_t tcur_u64(struct tcur *c);
bool tcur_bytes(struct tcur *c, void *out, size_t n);
/* Returns a pointer into the record and sets *n; NULL (ok=false) when short. */
const uint8_t *tcur_blob(struct tcur *c, uint32_t *n);
/* Returns a malloc'ed NUL-terminated copy of a str blob, NULL (ok=false) when short. */
char *tcur_str(struct tcur *c);
size_t tcur_left(const struct tcur *c);

#endif
