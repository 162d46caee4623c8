/* gdb_watch_middle_threads: watch_middle's writes made by a second thread while the
 * first one waits for it. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

volatile int v;

static unsigned long spin(int n)
{
    volatile unsigned long w = 0; /* on the stack: not beside v */
    for (int i = 0; i < n; i++)
        w += (unsigned long)i;
    return w;
}

static void *writer(void *arg)
{
    unsigned long sum = 0;
    (void)arg;
    getpid();
    v = 1;
    sum += spin(1000);
    v = 2;
    sum += spin(1000);
    v = 3;
    sum += spin(1000);
    v = 4;
    sum += spin(1000);
    v = 5;
    getpid();
    return (void *)sum;
}

int main(void)
{
    pthread_t t;
    void *sum;
    pthread_create(&t, NULL, writer, NULL);
    pthread_join(t, &sum);
    printf("v %d sum %lu\n", v, (unsigned long)sum);
    return 0;
}
