/* gdb_watch_middle: a global written five times in one stretch of user code (no system
 * call between the writes), for watchpoints set in the middle of that stretch, after some
 * of its writes: reverse-continue must land on each write in turn. */
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

int main(void)
{
    unsigned long sum = 0;
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
    printf("v %d sum %lu\n", v, sum);
    return 0;
}
