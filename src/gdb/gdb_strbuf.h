/* A growable byte string for building replies and XML documents. */
#ifndef DEJA_GDB_STRBUF_H
#define DEJA_GDB_STRBUF_H

#include <stddef.h>

struct gdb_strbuf {
  char *data; /* always NUL-terminated once anything was added */
  size_t len, cap;
};

void gdb_strbuf_init(struct gdb_strbuf *s);
void gdb_strbuf_free(struct gdb_strbuf *s);
void gdb_strbuf_clear(struct gdb_strbuf *s);
void gdb_strbuf_add(struct gdb_strbuf *s, const void *data, size_t len);
void gdb_strbuf_adds(struct gdb_strbuf *s, const char *str);
void gdb_strbuf_addf(struct gdb_strbuf *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Appends STR with XML's special characters (& < > " ') as entities, control bytes
 * left out. */
void gdb_xml_escape(struct gdb_strbuf *s, const char *str);
/* Appends LEN bytes as lowercase hex. */
void gdb_strbuf_add_hex(struct gdb_strbuf *s, const void *data, size_t len);

#endif
