/* gdb_threads: two worker threads that each sum a range. */
#include <pthread.h>
#include <stdio.h>

static long sums[2];

void *worker(void *arg)
{
    long index = (long)arg;
    long sum = 0;
    for (long i = 0; i < 100000; i++)
        sum += i * (index + 1);
    sums[index] = sum;
    return NULL;
}

int main(void)
{
    pthread_t threads[2];
    for (long i = 0; i < 2; i++)
        if (pthread_create(&threads[i], NULL, worker, (void *)i) != 0)
            return 1;
    for (int i = 0; i < 2; i++)
        pthread_join(threads[i], NULL);
    printf("%ld %ld\n", sums[0], sums[1]);
    return 0;
}
