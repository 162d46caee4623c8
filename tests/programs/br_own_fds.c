/* The descriptors a program lists in /proc are its own (issue 29): deja's context-switch
 * events (perf events at 900 and above) must not show in /proc/self/fd, in a thread's
 * /proc/self/task/TID/fd, or in a child's /proc/PID/fd, nor answer fstat or fcntl
 * (a probe of every descriptor). Fails (exit 1) naming any perf event it finds; prints
 * its pid and how many descriptors each listing has. */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

static int perf_events;

/* How many descriptors directory DIR lists; perf events among them counted. */
static int list_fds(const char *dir) {
  DIR *d = opendir(dir);
  CHECK(d != NULL);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    char link[512], target[64] = "";
    snprintf(link, sizeof link, "%s/%s", dir, e->d_name);
    ssize_t len = readlink(link, target, sizeof target - 1);
    target[len > 0 ? len : 0] = '\0';
    if (strcmp(target, "anon_inode:[perf_event]") == 0) {
      fprintf(stderr, "%s lists a perf event\n", link);
      perf_events++;
    }
    n++;
  }
  closedir(d);
  return n - 1; /* the listing's own descriptor */
}

/* How many descriptors below 1100 fstat and fcntl find open; perf events counted. */
static int probe_fds(void) {
  int n = 0;
  for (int fd = 0; fd < 1100; fd++) {
    struct stat st;
    if (fstat(fd, &st) < 0 && fcntl(fd, F_GETFD) < 0)
      continue;
    char link[64], target[64] = "";
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t len = readlink(link, target, sizeof target - 1);
    target[len > 0 ? len : 0] = '\0';
    if (strcmp(target, "anon_inode:[perf_event]") == 0) {
      fprintf(stderr, "descriptor %d answers fstat or fcntl: a perf event\n", fd);
      perf_events++;
    }
    n++;
  }
  return n;
}

static void *thread_listing(void *arg) {
  char dir[64];
  snprintf(dir, sizeof dir, "/proc/self/task/%ld/fd", (long)syscall(SYS_gettid));
  *(int *)arg = list_fds(dir);
  return NULL;
}

int main(void) {
  int in_thread = 0, p[2];
  pthread_t t;
  CHECK(pthread_create(&t, NULL, thread_listing, &in_thread) == 0);
  CHECK(pthread_join(t, NULL) == 0);
  CHECK(pipe(p) == 0);
  pid_t c = fork();
  CHECK(c >= 0);
  if (c == 0) {
    char b;
    CHECK(read(p[0], &b, 1) == 1); /* until the parent has listed our descriptors */
    _exit(0);
  }
  char dir[64];
  snprintf(dir, sizeof dir, "/proc/%d/fd", c);
  usleep(20000); /* the child's thread has opened its event, when deja runs one */
  int in_child = list_fds(dir);
  CHECK(write(p[1], "x", 1) == 1);
  CHECK(waitpid(c, NULL, 0) == c);
  int listed = list_fds("/proc/self/fd");
  printf("pid %d: %d descriptors (%d probed), %d in a thread's listing, %d in a child's; perf "
         "events %d\n",
         getpid(), listed, probe_fds(), in_thread, in_child, perf_events);
  return perf_events ? 1 : 0;
}
