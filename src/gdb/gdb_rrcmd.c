/* rr's qRRCmd packet: rr's command names and arguments turned into monitor commands. */
#include "gdb/gdb_rrcmd.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "gdb/gdb_packet.h"

#define RRCMD_OUT_MAX 16384
#define RRCMD_FIELD_MAX 512

/* rr's names for deja's monitor commands, where they differ. */
static const char *const rr_names[][2] = {
    {"info checkpoints", "info-checkpoints"},
    {"delete checkpoint", "delete-checkpoint"},
    {"info recording", "recording"},
};

/* The field of P up to the next ':' into BUF as it is (HEX false) or hex-decoded;
 * returns the end of the field, or NULL when it does not fit or is no hex. */
static const char *take_field(const char *p, bool hex, char *buf, size_t len) {
  size_t n = strcspn(p, ":");
  if (!hex) {
    if (n >= len)
      return NULL;
    memcpy(buf, p, n);
    buf[n] = 0;
    return p + n;
  }
  if (n % 2 || n / 2 >= len || gdb_hex_decode(p, buf, len - 1) != n / 2)
    return NULL;
  buf[n / 2] = 0;
  return p + n;
}

/* Whether field P (up to ':') is a hex-encoded name: printable text once decoded. */
static bool hex_name(const char *p) {
  char buf[RRCMD_FIELD_MAX];
  if (!take_field(p, true, buf, sizeof buf) || !buf[0])
    return false;
  for (const char *c = buf; *c; c++)
    if (!isprint((unsigned char)*c))
      return false;
  return true;
}

/* A thread id field: decimal, -1 for none. */
static bool tid_field(const char *p) {
  if (*p == '-')
    p++;
  size_t n = strspn(p, "0123456789");
  return n > 0 && (p[n] == ':' || !p[n]);
}

/* The monitor command for ARGS into CMD: the name (rr's, translated) and its decoded
 * arguments, separated by spaces. false when ARGS cannot be read. */
static bool monitor_command(const char *args, char *cmd, size_t len) {
  bool hex = hex_name(args);
  char field[RRCMD_FIELD_MAX];
  const char *p = take_field(args, hex, field, sizeof field);
  if (!p)
    return false;
  const char *name = field;
  for (size_t i = 0; i < sizeof rr_names / sizeof *rr_names; i++)
    if (!strcmp(field, rr_names[i][0]))
      name = rr_names[i][1];
  size_t n = (size_t)snprintf(cmd, len, "%s", name);
  if (!hex && *p == ':' && tid_field(p + 1))
    p += 1 + strcspn(p + 1, ":"); /* the thread gdb selected: deja answers for the stop's */
  while (*p == ':' && n < len) {
    if (!(p = take_field(p + 1, true, field, sizeof field)))
      return false;
    n += (size_t)snprintf(cmd + n, len - n, " %s", field);
  }
  return !*p && n < len;
}

void gdb_rrcmd(const struct gdb_target *t, const char *args, struct gdb_strbuf *out) {
  char cmd[1024];
  char *text = xcalloc(1, RRCMD_OUT_MAX);
  if (!monitor_command(args, cmd, sizeof cmd))
    snprintf(text, RRCMD_OUT_MAX, "deja: cannot read the qRRCmd packet `%.200s'\n", args);
  else if (!t->monitor || t->monitor(t->ctx, cmd, text, RRCMD_OUT_MAX) != 0)
    snprintf(text, RRCMD_OUT_MAX, "Command '%s' not found.\n", cmd);
  text[RRCMD_OUT_MAX - 1] = 0;
  size_t n = strlen(text);
  if (!n || text[n - 1] != '\n')
    text[n < RRCMD_OUT_MAX - 1 ? n++ : n - 1] = '\n'; /* rr ends every answer so */
  gdb_strbuf_add_hex(out, text, n);
  free(text);
}
