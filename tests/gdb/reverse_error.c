/* gdb_reverse_error: a reverse-stepi that cannot find the instruction before the stop.
 * `done' is reached by an indirect jump (not a call: no return address names where from)
 * a hundred thousand loop iterations after the stretch began, and the test limits the
 * single step search to 1000 steps. `other' is written after a loop, as in
 * gdb_reverse_stepi, for the commands after the error. */
#include <stdio.h>
#include <unistd.h>

volatile long other = 1;
volatile unsigned long work;

void done(void)
{
    work++;
}

int main(void)
{
    getpid();
    for (long j = 0; j < 150000; j++)
        work += (unsigned long)j;
    other = 2;
    getpid();
    for (long k = 0; k < 100000; k++)
        work += (unsigned long)k;
    /* into done() by a jump, returning to 1: */
    __asm__ volatile("lea 1f(%%rip), %%rax\n\tpush %%rax\n\tjmp *%0\n1:"
                     : : "r"(done) : "rax", "memory");
    printf("other %ld work %lu\n", other, work);
    return 0;
}
