/* gdb_watch_threads: a watched global written by a second thread while the first one
 * writes a counter on the same page all the time (page-protection watchpoints pass over
 * those writes, in whichever thread), forwards and backwards. */
#include <pthread.h>
#include <stdio.h>

volatile int shared;
volatile long hot;

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 2000; i++)
        hot += 1;
    shared = 42;
    for (int i = 0; i < 2000; i++)
        hot += 1;
    shared = 43;
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    for (int i = 0; i < 5000; i++)
        hot += 2;
    pthread_join(t, NULL);
    printf("shared %d\n", shared);
    return 0;
}
