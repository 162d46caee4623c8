/* gdb_reverse_step_threads: main goes through its lines while a worker thread makes
 * system calls and does work between them, for reverse-step and reverse-next in main. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static volatile int stop_worker;
static volatile long worker_work;
static volatile long a;

static void *worker(void *arg)
{
    (void)arg;
    while (!stop_worker) {
        getppid();
        for (int i = 0; i < 2000; i++)
            worker_work += i;
    }
    return NULL;
}

static long twice(long v)
{
    return v * 2;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    getppid();
    a = twice(a + 3);
    usleep(20000);
    getppid();
    a += 1;
    stop_worker = 1;
    pthread_join(t, NULL);
    printf("%ld\n", a);
    return 0;
}
