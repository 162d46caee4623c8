/* A parent forks three children; each writes a line into a shared pipe and exits with its
   own status. The parent reaps all of them with waitpid and prints the statuses sorted,
   the lines sorted, and whether its SIGCHLD handler ran. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

enum { CHILDREN = 3 };

static volatile sig_atomic_t sigchld_count;

static void on_sigchld(int signo) {
  (void)signo;
  sigchld_count++;
}

static int compare_ints(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

int main(void) {
  struct sigaction action = {.sa_handler = on_sigchld, .sa_flags = SA_RESTART};
  sigemptyset(&action.sa_mask);
  CHECK(sigaction(SIGCHLD, &action, NULL) == 0);
  int lines[2];
  CHECK(pipe(lines) == 0);

  pid_t children[CHILDREN];
  for (int i = 0; i < CHILDREN; i++) {
    children[i] = fork();
    CHECK(children[i] >= 0);
    if (children[i] == 0) {
      char line[2] = {(char)('a' + i), '\n'};
      CHECK(write(lines[1], line, 2) == 2);
      _exit(10 + i);
    }
  }
  close(lines[1]);

  int statuses[CHILDREN];
  for (int i = 0; i < CHILDREN; i++) {
    int status;
    CHECK(waitpid(children[i], &status, 0) == children[i]);
    CHECK(WIFEXITED(status));
    statuses[i] = WEXITSTATUS(status);
  }
  qsort(statuses, CHILDREN, sizeof statuses[0], compare_ints);
  for (int i = 0; i < CHILDREN; i++)
    printf("child exit status %d\n", statuses[i]);

  char received[16];
  size_t total = 0;
  ssize_t got;
  while ((got = read(lines[0], received + total, sizeof received - total)) > 0)
    total += (size_t)got;
  CHECK(total == 2 * CHILDREN);
  int letters[CHILDREN];
  for (int i = 0; i < CHILDREN; i++)
    letters[i] = received[2 * i];
  qsort(letters, CHILDREN, sizeof letters[0], compare_ints);
  printf("lines from children:");
  for (int i = 0; i < CHILDREN; i++)
    printf(" %c", letters[i]);
  printf("\n");
  printf("sigchld seen: %s\n", sigchld_count >= 1 ? "yes" : "no");
  return 0;
}
