#include "common/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void (*tee_fn)(void *arg, const char *line);
static void *tee_arg;

void deja_msg_tee(void (*fn)(void *arg, const char *line), void *arg) {
  tee_fn = fn;
  tee_arg = arg;
}

void deja_msg(const char *fmt, ...) {
  char line[4096];
  va_list ap;
  va_start(ap, fmt);
  int n = snprintf(line, sizeof line, "deja: ");
  vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
  va_end(ap);
  if (tee_fn)
    tee_fn(tee_arg, line);
  else
    fprintf(stderr, "%s\n", line);
}

int seterr(char *err, size_t errlen, const char *fmt, ...) {
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return -1;
}

static void *check(void *p) {
  if (!p) {
    fputs("deja: out of memory\n", stderr);
    abort();
  }
  return p;
}

void *xmalloc(size_t n) { return check(malloc(n ? n : 1)); }
void *xcalloc(size_t n, size_t m) { return check(calloc(n ? n : 1, m ? m : 1)); }
void *xrealloc(void *p, size_t n) { return check(realloc(p, n ? n : 1)); }
char *xstrdup(const char *s) { return check(strdup(s)); }

char *xasprintf(const char *fmt, ...) {
  char *s = NULL;
  va_list ap;
  va_start(ap, fmt);
  int n = vasprintf(&s, fmt, ap);
  va_end(ap);
  if (n < 0)
    check(NULL);
  return s;
}
