/* A growable byte string (see gdb_strbuf.h). */
#include "gdb/gdb_strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"

void gdb_strbuf_init(struct gdb_strbuf *s) {
  s->data = NULL;
  s->len = s->cap = 0;
}

void gdb_strbuf_free(struct gdb_strbuf *s) {
  free(s->data);
  gdb_strbuf_init(s);
}

void gdb_strbuf_clear(struct gdb_strbuf *s) {
  s->len = 0;
  if (s->data)
    s->data[0] = '\0';
}

static void reserve(struct gdb_strbuf *s, size_t more) {
  if (s->len + more + 1 <= s->cap)
    return;
  size_t cap = s->cap ? s->cap : 256;
  while (cap < s->len + more + 1)
    cap *= 2;
  s->data = xrealloc(s->data, cap);
  s->cap = cap;
}

void gdb_strbuf_add(struct gdb_strbuf *s, const void *data, size_t len) {
  reserve(s, len);
  memcpy(s->data + s->len, data, len);
  s->len += len;
  s->data[s->len] = '\0';
}

void gdb_strbuf_adds(struct gdb_strbuf *s, const char *str) { gdb_strbuf_add(s, str, strlen(str)); }

void gdb_strbuf_addf(struct gdb_strbuf *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char small[256];
  int n = vsnprintf(small, sizeof(small), fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
  if ((size_t)n < sizeof(small)) {
    gdb_strbuf_add(s, small, (size_t)n);
    return;
  }
  reserve(s, (size_t)n);
  va_start(ap, fmt);
  vsnprintf(s->data + s->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  s->len += (size_t)n;
}

void gdb_strbuf_add_hex(struct gdb_strbuf *s, const void *data, size_t len) {
  static const char hex[] = "0123456789abcdef";
  const unsigned char *p = data;
  reserve(s, 2 * len);
  for (size_t i = 0; i < len; i++) {
    s->data[s->len++] = hex[p[i] >> 4];
    s->data[s->len++] = hex[p[i] & 15];
  }
  s->data[s->len] = '\0';
}

void gdb_xml_escape(struct gdb_strbuf *s, const char *str) {
  for (; *str; str++) {
    switch (*str) {
    case '&': gdb_strbuf_adds(s, "&amp;"); break;
    case '<': gdb_strbuf_adds(s, "&lt;"); break;
    case '>': gdb_strbuf_adds(s, "&gt;"); break;
    case '"': gdb_strbuf_adds(s, "&quot;"); break;
    case '\'': gdb_strbuf_adds(s, "&apos;"); break;
    default:
      if ((unsigned char)*str >= 0x20)
        gdb_strbuf_add(s, str, 1);
    }
  }
}
