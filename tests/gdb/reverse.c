/* gdb_reverse: a value written before and after some work and a system call, for
 * reverse-continue onto breakpoints and watchpoints and reverse-stepi. */
#include <stdio.h>
#include <unistd.h>

volatile int value = 1;
volatile unsigned long work;

static void mark(int v)
{
    value = v;
}

int main(void)
{
    mark(10);
    for (int i = 0; i < 100000; i++)
        work += (unsigned long)i;
    getpid();
    mark(20);
    for (int i = 0; i < 1000; i++)
        work += (unsigned long)i;
    printf("value %d work %lu\n", value, work);
    return 0;
}
