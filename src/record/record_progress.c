/* Noticing a recording that can no longer make progress: deja waits for a stop while
 * every task of the program sits in a ptrace stop of deja's (or is gone), so nothing will
 * ever come. A task held in a group stop (SIGSTOP & co.) waits for a SIGCONT from
 * outside instead, which is the program's business. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "record/recorder_internal.h"

/* 't' (tracing stop), or 0 when the task is gone. */
static char task_state(pid_t tid) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%d/stat", tid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return 0;
  buf[n] = 0;
  const char *paren = strrchr(buf, ')');
  return paren && paren[1] == ' ' ? paren[2] : 0;
}

bool record_stuck(struct recorder *r) {
  for (int i = 0; i < r->ntasks; i++) {
    struct rtask *x = r->tasks[i];
    if (x->state == T_STOPPED)
      return false;
    char s = task_state(x->t.tid);
    if (s != 0 && s != 't' && s != 'Z' && s != 'X')
      return false;
  }
  return r->ntasks > 0;
}
