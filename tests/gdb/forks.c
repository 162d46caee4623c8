/* gdb_forks: a fork, a vfork, then an exec of itself; gdb's catch fork, vfork and exec
 * stop at each. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "again")) {
    printf("exec'd\n");
    return 0;
  }
  pid_t child = fork();
  if (child == 0)
    _exit(3);
  waitpid(child, NULL, 0);
  child = vfork();
  if (child == 0)
    _exit(4);
  waitpid(child, NULL, 0);
  printf("forked\n");
  fflush(stdout);
  execl("/proc/self/exe", argv[0], "again", (char *)NULL);
  return 1;
}
