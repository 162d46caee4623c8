/* deja query's test program: known writes to globals, known calls, known output, in the
 * main thread, a second thread and (with an argument) a child process. add() is called
 * five times by main, then three times by the worker. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

volatile int counter;         /* main: 1 3 6 10 15; worker: 100 101 102; child: 200 */
static volatile double ratio; /* 3 then 9 */
volatile long same;           /* 7, then 7 again */
volatile char big[24];        /* memset once: 24 bytes */
struct pair {
  int lo;
  short hi[3];
};
volatile struct pair pairs; /* hi[1] = 5, then lo = 9 */

__attribute__((noinline)) int add(int a, int b) { return a + b; }
__attribute__((noinline)) double scale(double x, int k) { return x * k; }
__attribute__((noinline)) void touch(const char *s, unsigned long n) { (void)s, (void)n; }

static void *worker(void *arg) {
  for (int i = 0; i < 3; i++)
    counter = add(100, i);
  return arg;
}

int main(int argc, char **argv) {
  (void)argv;
  for (int i = 1; i <= 5; i++)
    counter = add(counter, i);
  ratio = scale(1.5, 2);
  ratio = scale(ratio, 3);
  same = 7;
  same = 7;
  memset((char *)big, 'x', sizeof big);
  pairs.hi[1] = 5;
  pairs.lo = 9;
  touch("hello", 5);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  printf("counter=%d ratio=%g same=%ld\n", counter, ratio, same);
  fflush(stdout);
  if (argc > 1) {
    pid_t child = fork();
    if (child == 0) {
      counter = 200;
      printf("child counter=%d\n", counter);
      fflush(stdout);
      _exit(0);
    }
    waitpid(child, NULL, 0);
  }
  write(2, "query-marker\n", 13);
  return 0;
}
