/* Positions as text and back (see timeline_text.h). */
#include "replay/timeline/timeline_text.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool has_text(const struct tl_pos *p) {
  return (!p->steps || p->step_tid > 0) && !p->back_pc && !p->base && p->event + 1 > 0 &&
         (p->kind == TL_BOUNDARY || p->kind == TL_ARRIVAL ||
          ((p->kind == TL_TRIGGER || p->kind == TL_BEFORE) && p->type == 2));
}

bool tl_pos_format(const struct tl_pos *p, char *buf, size_t len) {
  if (!has_text(p) || len < TL_POS_TEXT_MAX)
    return false;
  uint64_t e = p->event + 1;
  int n;
  switch (p->kind) {
  case TL_BOUNDARY: n = snprintf(buf, len, "%" PRIu64 "/b", e); break;
  case TL_ARRIVAL:
    n = snprintf(buf, len, "%" PRIu64 "/a/%d/%" PRIx64 "/%" PRIu64, e, (int)p->tid, p->addr, p->n);
    break;
  default:
    n = snprintf(buf, len, "%" PRIu64 "/%c/%d/%" PRIx64 "/%d/%" PRIu64, e,
                 p->kind == TL_BEFORE ? 'w' : 't', (int)p->tid, p->addr, p->len, p->n);
    for (int i = 0; p->kind == TL_BEFORE && i < p->nwriters && n > 0 && (size_t)n < len; i++)
      n += snprintf(buf + n, len - (size_t)n, "%c%" PRIx64, i ? ',' : '/', p->writers[i]);
  }
  if (p->steps && n > 0 && (size_t)n < len)
    n += snprintf(buf + n, len - (size_t)n, "+%" PRIu64 "@%d", p->steps, (int)p->step_tid);
  return n > 0 && (size_t)n < len;
}

/* The number at *S in BASE, moved past it; false when there is none. */
static bool number(const char **s, int base, uint64_t *v) {
  char *end;
  if (**s < '0' || **s > 'f')
    return false;
  *v = strtoull(*s, &end, base);
  if (end == *s)
    return false;
  *s = end;
  return true;
}

/* "/NUMBER" at *S. */
static bool field(const char **s, int base, uint64_t *v) {
  if (**s != '/')
    return false;
  (*s)++;
  return number(s, base, v);
}

static bool parse_writers(const char **s, struct tl_pos *p) {
  if (**s != '/')
    return false;
  do {
    (*s)++;
    uint64_t w;
    if (p->nwriters == DEBUG_MAX_WPS || !number(s, 16, &w))
      return false;
    p->writers[p->nwriters++] = w;
  } while (**s == ',');
  return true;
}

/* "+STEPS@TID" at *S, if there is one. */
static bool parse_steps(const char **s, struct tl_pos *p) {
  uint64_t tid;
  if (**s != '+')
    return true;
  (*s)++;
  if (!number(s, 10, &p->steps) || **s != '@')
    return false;
  (*s)++;
  if (!number(s, 10, &tid) || !p->steps || !tid || tid >= (1u << 30))
    return false;
  p->step_tid = (pid_t)tid;
  return true;
}

bool tl_pos_parse(const char *text, struct tl_pos *p) {
  const char *s = text;
  uint64_t e, tid = 0, len = 0;
  *p = (struct tl_pos){0};
  if (!number(&s, 10, &e) || e == 0 || s[0] != '/' || !s[1])
    return false;
  char kind = s[1];
  s += 2;
  p->event = e - 1;
  switch (kind) {
  case 'b': p->kind = TL_BOUNDARY; return parse_steps(&s, p) && !*s;
  case 'a':
    p->kind = TL_ARRIVAL;
    if (!field(&s, 10, &tid) || !field(&s, 16, &p->addr) || !field(&s, 10, &p->n))
      return false;
    break;
  case 't':
  case 'w':
    p->kind = kind == 'w' ? TL_BEFORE : TL_TRIGGER;
    p->type = 2;
    if (!field(&s, 10, &tid) || !field(&s, 16, &p->addr) || !field(&s, 10, &len) ||
        !field(&s, 10, &p->n) || !(len == 1 || len == 2 || len == 4 || len == 8))
      return false;
    p->len = (int)len;
    if (kind == 'w' && !parse_writers(&s, p))
      return false;
    break;
  default: return false;
  }
  p->tid = (pid_t)tid;
  return parse_steps(&s, p) && !*s && p->n > 0 && tid > 0 && tid < (1u << 30);
}
