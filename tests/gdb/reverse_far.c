/* gdb_reverse_far: watched writes right after long loops (no system call in them), so
 * the instruction before each write (the loop's branch) is far from the stretch's start
 * (the test limits single steps to fewer than the loops take). The first loop's branch
 * is counted in the kernel; the second one runs more often than that is done: the jump
 * is found from the write's state. */
#include <stdio.h>
#include <unistd.h>

volatile long value = 1, other = 1;
volatile unsigned long work;

int main(void)
{
    getpid();
    for (long i = 0; i < 50000; i++)
        work += (unsigned long)i;
    value = 2;
    for (long j = 0; j < 150000; j++)
        work += (unsigned long)j;
    other = 2;
    getpid();
    printf("value %ld other %ld work %lu\n", value, other, work);
    return 0;
}
