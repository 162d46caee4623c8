/* gdb_reverse_fork: reverse-continue onto a watchpoint across a fork: the parent writes
 * `value` before it forks and after its child (which writes its own copy) is done. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

volatile long value;

int main(void) {
  value = 1; /* the write before the fork */
  pid_t child = fork();
  if (child == 0) {
    value = 5; /* the child's copy: not the parent's watchpoint */
    _exit(0);
  }
  waitpid(child, NULL, 0);
  value = 2; /* the write after it */
  printf("value %ld\n", value);
  return 0;
}
