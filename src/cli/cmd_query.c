/* deja query [OPTIONS] [TRACE] writes EXPR | calls FUNCTION | output TEXT */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/trace_dir.h"
#include "common/log.h"
#include "query/query.h"
#include "replay/timeline/timeline_text.h"

/* A whole positive number, or -1. */
static long long positive(const char *s, long long max) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  return (errno || end == s || *end || v < 1 || v > max) ? -1 : v;
}

/* POS as `deja query' prints it, or an event number (the position right before it). */
static bool parse_pos(const char *s, struct tl_pos *p) {
  long long e = positive(s, 1ll << 62);
  if (e > 0) {
    *p = (struct tl_pos){.event = (uint64_t)e - 1, .kind = TL_BOUNDARY};
    return true;
  }
  return tl_pos_parse(s, p);
}

static bool parse_kind(const char *s, enum query_kind *k) {
  if (!strcmp(s, "writes"))
    *k = QUERY_WRITES;
  else if (!strcmp(s, "calls"))
    *k = QUERY_CALLS;
  else if (!strcmp(s, "output"))
    *k = QUERY_OUTPUT;
  else
    return false;
  return true;
}

/* The options into O; optind after them. 0, or 1 (said). */
static int parse_options(int argc, char **argv, struct query_opts *o) {
  static const struct option longopts[] = {
      {"json", no_argument, NULL, 'j'},        {"pid", required_argument, NULL, 'p'},
      {"limit", required_argument, NULL, 'l'}, {"from", required_argument, NULL, 'f'},
      {"to", required_argument, NULL, 't'},    {NULL, 0, NULL, 0},
  };
  int c;
  long long v;
  optind = 1;
  opterr = 0;
  /* options anywhere, as in `deja query TRACE calls f --limit 3' (a TEXT that starts
   * with `-' follows `--') */
  while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
    switch (c) {
    case 'j': o->json = true; break;
    case 'p':
      if ((v = positive(optarg, 1 << 30)) < 0)
        goto bad;
      o->pid = (pid_t)v;
      break;
    case 'l':
      if ((v = positive(optarg, 1ll << 62)) < 0)
        goto bad;
      o->limit = (uint64_t)v;
      break;
    case 'f':
    case 't':
      if (!parse_pos(optarg, c == 'f' ? &o->from : &o->to))
        goto bad;
      *(c == 'f' ? &o->have_from : &o->have_to) = true;
      break;
    default:
      deja_msg("query: unknown or incomplete option `%s'; see `deja help query'", argv[optind - 1]);
      return 1;
    }
  }
  return 0;
bad:
  deja_msg("query: option %s needs %s, got `%s'", argv[optind - 1],
           c == 'f' || c == 't' ? "a position as deja query prints it (or an event number)"
                                : "a positive number",
           optarg);
  return 1;
}

int cmd_query(int argc, char **argv) {
  struct query_opts o = {.progress = isatty(2) || getenv("DEJA_QUERY_PROGRESS")};
  if (parse_options(argc, argv, &o))
    return 1;
  int left = argc - optind;
  const char *trace = left == 3 ? argv[optind++] : NULL;
  if ((left != 2 && left != 3) || !parse_kind(argv[optind], &o.kind)) {
    deja_msg("query: expected [TRACE] writes EXPR, calls FUNCTION or output TEXT; see `deja "
             "help query'");
    return 1;
  }
  o.expr = argv[optind + 1];
  if (!o.expr[0]) {
    deja_msg("query: the %s is empty", o.kind == QUERY_OUTPUT ? "text" : "expression");
    return 2;
  }
  char err[512];
  char *dir = trace_dir_resolve(trace, err, sizeof err);
  if (!dir) {
    deja_msg("%s", err);
    return 1;
  }
  o.trace_dir = dir;
  int rc = query_run(&o, stdout);
  free(dir);
  return rc;
}
