/* gdb_reverse_far: a watched write right after a long loop (no system call in it), so the
 * instruction before the write (the loop's branch) is far from the stretch's start: a
 * reverse-stepi from the write counts the branch's executions in the kernel (the test
 * limits single steps to fewer than the loop takes). */
#include <stdio.h>
#include <unistd.h>

volatile long value = 1;
volatile unsigned long work;

int main(void)
{
    getpid();
    for (long i = 0; i < 100000; i++)
        work += (unsigned long)i;
    value = 2;
    getpid();
    printf("value %ld work %lu\n", value, work);
    return 0;
}
