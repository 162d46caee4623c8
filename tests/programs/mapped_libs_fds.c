/* Maps libraries, lists its descriptors, closes them all (close_range) and dup2s over low
 * ones, then maps the same and other libraries again, in itself and in a fork: replay
 * keeps preserved files open in the replayed process, which the program must never see
 * nor disturb. */
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void list_fds(const char *when) {
  DIR *d = opendir("/proc/self/fd");
  if (!d) {
    perror("opendir /proc/self/fd");
    exit(1);
  }
  printf("%s:", when);
  int own = dirfd(d);
  struct dirent *ent;
  while ((ent = readdir(d)))
    if (ent->d_name[0] != '.' && atoi(ent->d_name) != own)
      printf(" %s", ent->d_name);
  printf("\n");
  closedir(d);
}

static void *load(const char *name) {
  void *h = dlopen(name, RTLD_NOW);
  if (!h) {
    fprintf(stderr, "dlopen %s: %s\n", name, dlerror());
    exit(1);
  }
  return h;
}

static double cosine(void *libm, double x) {
  double (*cosp)(double) = (double (*)(double))dlsym(libm, "cos");
  return cosp ? cosp(x) : -1;
}

int main(void) {
  void *m = load("libm.so.6");
  void *r = load("libresolv.so.2");
  list_fds("after mapping");
  if (close_range(3, ~0u, 0) < 0)
    perror("close_range");
  for (int fd = 3; fd < 16; fd++)
    dup2(2, fd);
  list_fds("after close_range and dup2");
  printf("cos(0) = %.1f\n", cosine(m, 0));
  dlclose(m);
  dlclose(r);
  m = load("libm.so.6");
  load("libresolv.so.2");
  printf("cos(0) again = %.1f\n", cosine(m, 0));
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    dlclose(m);
    void *again = load("libm.so.6");
    load("libanl.so.1");
    printf("child: cos(0) = %.1f\n", cosine(again, 0));
    fflush(stdout);
    _exit(0);
  }
  int status;
  waitpid(child, &status, 0);
  for (int fd = 3; fd < 16; fd++)
    close(fd);
  list_fds("at the end");
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
