/* mt_fork_threads: sixteen threads at once each fork a child that exits 50 and poll for
 * it. glibc's fork holds its atfork lock; the threads waiting for it mark it contended,
 * and a child copied after such a mark wakes a waiter in its atfork handlers (a futex
 * call) where one copied before does not: replay must give each child the memory the
 * recording's child got (Python's test_reinit_tls_after_fork forks this way). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define THREADS 16
#define ROUNDS 6

static void *forker(void *arg) {
  (void)arg;
  pid_t pid = fork();
  if (pid == 0)
    _exit(50);
  if (pid < 0) {
    perror("fork");
    exit(1);
  }
  struct timespec pause = {0, 1000000};
  for (;;) {
    int st;
    pid_t got = waitpid(pid, &st, WNOHANG);
    if (got == pid) {
      if (!WIFEXITED(st) || WEXITSTATUS(st) != 50)
        printf("child %d: status 0x%x\n", (int)pid, st);
      return NULL;
    }
    if (got < 0) {
      perror("waitpid");
      exit(1);
    }
    nanosleep(&pause, NULL);
  }
}

int main(void) {
  for (int round = 0; round < ROUNDS; round++) {
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
      pthread_create(&t[i], NULL, forker, NULL);
    for (int i = 0; i < THREADS; i++)
      pthread_join(t[i], NULL);
  }
  printf("%d children exited with 50\n", THREADS * ROUNDS);
  return 0;
}
