/* deja's descriptors do not answer the program (issue 29): a probe of every descriptor
 * with fstat and fcntl, as Python's subprocess tests make, finds none of deja's
 * context-switch events (perf events at 900 and above), in the main thread and in a
 * second one (which has its own). The listings of /proc are br_proc_fds's. Fails (exit
 * 1) naming any it finds; prints its pid and how many descriptors answered. */
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"

static int perf_events;

/* Whether descriptor FD is a perf event (its /proc link says so). */
static bool perf_event(int fd) {
  char link[64], target[64] = "";
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t len = readlink(link, target, sizeof target - 1);
  target[len > 0 ? len : 0] = '\0';
  return strcmp(target, "anon_inode:[perf_event]") == 0;
}

/* How many descriptors below 1100 fstat or fcntl find open; perf events counted. */
static int probe_fds(void) {
  int n = 0;
  for (int fd = 0; fd < 1100; fd++) {
    struct stat st;
    if (fstat(fd, &st) < 0 && fcntl(fd, F_GETFD) < 0)
      continue;
    if (perf_event(fd)) {
      fprintf(stderr, "descriptor %d answers fstat or fcntl: a perf event\n", fd);
      perf_events++;
    }
    n++;
  }
  return n;
}

static void *thread_probe(void *arg) {
  *(int *)arg = probe_fds();
  return NULL;
}

int main(void) {
  int in_thread = 0;
  pthread_t t;
  CHECK(pthread_create(&t, NULL, thread_probe, &in_thread) == 0);
  CHECK(pthread_join(t, NULL) == 0);
  int in_main = probe_fds();
  printf("pid %d: %d descriptors answer, %d in a thread; perf events %d\n", getpid(), in_main,
         in_thread, perf_events);
  return perf_events ? 1 : 0;
}
