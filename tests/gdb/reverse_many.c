/* gdb_reverse_many: a value written before and after a thread makes thousands of system
 * calls (traced ones, an event each, and buffered ones), and twice by the thread halfway
 * through them, so that reverse-continues cross thousands of events and many checkpoints,
 * some windows between them with writes and most without. */
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

volatile long value;

static void *calls(void *arg __attribute__((unused)))
{
    long n = 0;
    for (int i = 0; i < 3000; i++) {
        n += getppid(); /* traced: an event */
        n += syscall(SYS_gettid); /* buffered */
        if (i == 1500)
            value = 3;
        if (i == 1501)
            value = 1;
    }
    return (void *)n;
}

int main(void)
{
    pthread_t t;
    value = 1;
    pthread_create(&t, NULL, calls, NULL);
    pthread_join(t, NULL);
    printf("calls done\n");
    fflush(stdout);
    value = 2;
    getpid();
    printf("value %ld\n", value);
    return 0;
}
