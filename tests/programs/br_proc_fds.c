/* Listings of open descriptors (/proc/self/fd, fdinfo, a thread's, a child's) show only
   the program's own: deja's (its threads' context-switch events, 900 and up) are left out.
   The program opens none that high, so it fails on one. Prints the pid and a nanosecond
   count. */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

/* The descriptors directory DIR lists, each checked to be below 900; how many. */
static int count(const char *dir) {
  DIR *d = opendir(dir);
  CHECK(d != NULL);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    if (atoi(e->d_name) >= 900)
      fprintf(stderr, "%s lists descriptor %s, which the program never opened\n", dir, e->d_name);
    CHECK(atoi(e->d_name) < 900);
    n++;
  }
  CHECK(closedir(d) == 0);
  return n;
}

static void *thread_lists(void *arg) {
  (void)arg;
  char dir[64];
  snprintf(dir, sizeof dir, "/proc/self/task/%ld/fd", (long)syscall(SYS_gettid));
  int *n = malloc(sizeof *n);
  CHECK(n != NULL);
  *n = count(dir);
  return n;
}

int main(void) {
  int self = count("/proc/self/fd");
  CHECK(count("/proc/self/fdinfo") == self);
  pthread_t t;
  void *got;
  CHECK(pthread_create(&t, NULL, thread_lists, NULL) == 0 && pthread_join(t, &got) == 0);
  printf("the thread sees the same: %d\n", *(int *)got == self);
  free(got);
  int p[2];
  CHECK(pipe(p) == 0);
  pid_t c = fork();
  CHECK(c >= 0);
  if (c == 0) { /* waits until the parent listed its descriptors */
    char b;
    close(p[1]);
    _exit(read(p[0], &b, 1) == 0 ? 0 : 1);
  }
  close(p[0]);
  char dir[64];
  snprintf(dir, sizeof dir, "/proc/%d/fd", c);
  int child = count(dir);
  close(p[1]);
  int st;
  CHECK(waitpid(c, &st, 0) == c && st == 0);
  printf("descriptors: the program's %d, the child's %d\n", self, child);
  struct timespec ts;
  CHECK(clock_gettime(CLOCK_MONOTONIC, &ts) == 0);
  printf("pid %d at %ld ns\n", getpid(), ts.tv_nsec);
  return 0;
}
