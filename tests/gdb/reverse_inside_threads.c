/* gdb_reverse_inside_threads: gdb_reverse_inside's long loop (one stretch of user code)
 * in the second thread of a two-thread process, `mark` written now and then deep inside
 * it, `after` right after it. Before the loop the thread computes between system calls
 * for a while, so the timeline has checkpoints at boundaries of the two-thread process to
 * start from. The reverse moves start from checkpoints it takes inside the loop's stretch
 * (forks of both threads); the values must be those seen going forwards. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

volatile long mark, after;
volatile unsigned long work;

static void *loop(void *arg)
{
    long left = 10000000;
    (void)arg;
    for (long k = 0; k < 60; k++) {
        for (long j = 0; j < 300000; j++)
            work = work * 31 + (unsigned long)j;
        getpid();
    }
    for (long i = 0; i < 30000000; i++) {
        work = work * 31 + (unsigned long)i;
        if (--left == 0) {
            mark = i;
            left = 10000000;
        }
    }
    after = 1;
    getpid();
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, loop, NULL);
    pthread_join(t, NULL);
    printf("mark %ld after %ld work %lu\n", mark, after, work);
    return 0;
}
