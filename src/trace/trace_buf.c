/* Growable byte buffer for building records, and a bounds-checked cursor for parsing them. */
#include "trace/trace_buf.h"
#include "common/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void out_of_memory(size_t wanted) {
  deja_msg("out of memory (could not allocate %zu bytes for a trace record)", wanted);
  abort();
}

void tbuf_init(struct tbuf *b) {
  b->data = NULL;
  b->len = 0;
  b->cap = 0;
}

void tbuf_free(struct tbuf *b) {
  free(b->data);
  tbuf_init(b);
}

void tbuf_reset(struct tbuf *b) { b->len = 0; }

uint8_t *tbuf_grow(struct tbuf *b, size_t n) {
  if (n > SIZE_MAX - b->len)
    out_of_memory(SIZE_MAX);
  size_t need = b->len + n;
  if (need > b->cap) {
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
      cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    uint8_t *data = realloc(b->data, cap);
    if (!data)
      out_of_memory(cap);
    b->data = data;
    b->cap = cap;
  }
  if (!b->data) /* nothing allocated and nothing asked: NULL + 0 is undefined */
    return NULL;
  uint8_t *at = b->data + b->len;
  b->len = need;
  return at;
}

void tbuf_put_u8(struct tbuf *b, uint8_t v) { *tbuf_grow(b, 1) = v; }

void tbuf_put_u32(struct tbuf *b, uint32_t v) {
  uint8_t *p = tbuf_grow(b, 4);
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

void tbuf_put_u64(struct tbuf *b, uint64_t v) {
  uint8_t *p = tbuf_grow(b, 8);
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

void tbuf_put_bytes(struct tbuf *b, const void *p, size_t n) {
  if (n == 0)
    return;
  memcpy(tbuf_grow(b, n), p, n);
}

void tbuf_put_blob(struct tbuf *b, const void *p, uint32_t n) {
  tbuf_put_u32(b, n);
  tbuf_put_bytes(b, p, n);
}

void tbuf_put_str(struct tbuf *b, const char *s) {
  size_t n = strlen(s);
  if (n > UINT32_MAX) {
    deja_msg("internal error: string of %zu bytes is too long for a trace record", n);
    abort();
  }
  tbuf_put_blob(b, s, (uint32_t)n);
}

void tcur_init(struct tcur *c, const void *data, size_t len) {
  c->ok = true;
  if (!data) { /* avoids arithmetic on a null pointer */
    c->p = c->end = NULL;
    return;
  }
  c->p = data;
  c->end = c->p + len;
}

size_t tcur_left(const struct tcur *c) { return (size_t)(c->end - c->p); }

/* Points *AT at the next N bytes and advances; false (and ok=false) when fewer remain.
 * Once a read has failed every later read fails too. */
static bool take(struct tcur *c, size_t n, const uint8_t **at) {
  *at = NULL;
  if (!c->ok || tcur_left(c) < n) {
    c->ok = false;
    return false;
  }
  *at = c->p;
  if (n)
    c->p += n;
  return true;
}

uint8_t tcur_u8(struct tcur *c) {
  const uint8_t *p;
  return take(c, 1, &p) ? p[0] : 0;
}

uint32_t tcur_u32(struct tcur *c) {
  const uint8_t *p;
  if (!take(c, 4, &p))
    return 0;
  uint32_t v = 0;
  for (int i = 0; i < 4; i++)
    v |= (uint32_t)p[i] << (8 * i);
  return v;
}

uint64_t tcur_u64(struct tcur *c) {
  const uint8_t *p;
  if (!take(c, 8, &p))
    return 0;
  uint64_t v = 0;
  for (int i = 0; i < 8; i++)
    v |= (uint64_t)p[i] << (8 * i);
  return v;
}

bool tcur_bytes(struct tcur *c, void *out, size_t n) {
  const uint8_t *p;
  if (!take(c, n, &p)) {
    if (n)
      memset(out, 0, n);
    return false;
  }
  if (n)
    memcpy(out, p, n);
  return true;
}

const uint8_t *tcur_blob(struct tcur *c, uint32_t *n) {
  uint32_t len = tcur_u32(c);
  const uint8_t *p;
  if (!take(c, len, &p)) {
    *n = 0;
    return NULL;
  }
  *n = len;
  /* An empty blob still succeeds: hand back a non-null pointer even at a null cursor. */
  return p ? p : (const uint8_t *)"";
}

char *tcur_str(struct tcur *c) {
  uint32_t n;
  const uint8_t *p = tcur_blob(c, &n);
  if (!p)
    return NULL;
  char *s = malloc((size_t)n + 1);
  if (!s)
    out_of_memory((size_t)n + 1);
  if (n)
    memcpy(s, p, n);
  s[n] = '\0';
  return s;
}
