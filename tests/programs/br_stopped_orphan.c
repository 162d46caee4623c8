/* A child stops itself (SIGSTOP) and its parent, the program's first process, exits
 * without continuing it: natively the caller gets the parent's status (5) at once and
 * the orphan stays stopped. Prints the child's pid (for the test to end it). */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

int main(void) {
  pid_t c = fork();
  CHECK(c >= 0);
  if (c == 0) {
    raise(SIGSTOP);
    _exit(0);
  }
  int st;
  CHECK(waitpid(c, &st, WUNTRACED) == c);
  printf("stopped child %d: %d\n", c, WIFSTOPPED(st));
  return 5;
}
