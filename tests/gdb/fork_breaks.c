/* gdb_fork_breaks: a parent and its forked child call the same function, each with its
 * own arguments, in turns (a pipe passes the turn), and the child then runs another
 * program: a breakpoint in one process must not stop the other. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int total;

int work(int n) {
  total += n;
  return total;
}

int main(int argc, char **argv) {
  if (argc > 1) /* the program the child runs */
    return work(1000) == 1000 ? 4 : 5;
  int to_child[2], to_parent[2];
  char c = 0;
  if (pipe(to_child) < 0 || pipe(to_parent) < 0)
    return 1;
  pid_t child = fork();
  if (child == 0) {
    for (int i = 1; i <= 2; i++) {
      if (read(to_child[0], &c, 1) != 1)
        return 1;
      work(i); /* the child's: 1, 2 */
      if (write(to_parent[1], &c, 1) != 1)
        return 1;
    }
    execl(argv[0], argv[0], "exec", (char *)NULL);
    return 2;
  }
  for (int i = 1; i <= 2; i++) {
    work(i * 100); /* the parent's: 100, 200 */
    if (write(to_child[1], &c, 1) != 1 || read(to_parent[0], &c, 1) != 1)
      return 1;
  }
  int status = 0;
  waitpid(child, &status, 0);
  printf("parent %d, child exited %d\n", total, WEXITSTATUS(status));
  return 0;
}
