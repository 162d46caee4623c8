/* deja's own messages: one line each on stderr, prefixed "deja: ". */
#ifndef DEJA_COMMON_LOG_H
#define DEJA_COMMON_LOG_H

#include <stddef.h>

void deja_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* While FN is set, every message line ("deja: ...", no newline) goes to it instead of
 * stderr (to gdb's console while gdb runs the replay). NULL: stderr again. */
void deja_msg_tee(void (*fn)(void *arg, const char *line), void *arg);
/* Writes into ERR (size ERRLEN) like snprintf; returns -1 so callers can `return seterr(...)`. */
int seterr(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* malloc/realloc/strdup that abort with a message when memory runs out. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
