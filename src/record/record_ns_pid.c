/* Task ids across PID namespaces. The trace names tasks by their ids in deja's namespace,
 * but a program inside a PID namespace sees other ids (its first child is 1): the
 * NSpid line of /proc/TID/status lists a task's id in each namespace, outermost first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/recorder_internal.h"

/* Reads TID's NSpid list into IDS (at most MAX); returns how many, 0 on failure. */
static int ns_pids(pid_t tid, pid_t *ids, int max) {
  char path[64], line[512];
  snprintf(path, sizeof path, "/proc/%d/status", tid);
  FILE *f = fopen(path, "re");
  int n = 0;
  while (f && fgets(line, sizeof line, f)) {
    if (strncmp(line, "NSpid:", 6) != 0)
      continue;
    for (char *p = line + 6, *end; n < max; p = end) {
      long v = strtol(p, &end, 10);
      if (end == p)
        break;
      ids[n++] = (pid_t)v;
    }
    break;
  }
  if (f)
    fclose(f);
  return n;
}

pid_t record_pid_seen_by(pid_t viewer, pid_t tid) {
  pid_t v[32], t[32];
  int nv = ns_pids(viewer, v, 32), nt = ns_pids(tid, t, 32);
  if (nv == 0 || nt < nv)
    return -1;
  return t[nv - 1];
}
