/* gdb_reverse_stepi: reverse-stepi right after reverse-continues that stopped after long
 * loops (no system call in them). `value` is written after three million passes of a
 * loop and an `if`: the instructions before the write are counted from the checkpoint the
 * search took inside the loop's stretch. `other` is written right after the branch of a
 * loop of 150 000 passes, more than are counted from the stretch's start: the branch is
 * found from the write's state, and the instructions before it by counting the branch's
 * executions up to the write (the test limits single steps to fewer than the loop
 * takes). `done' is called through a pointer after a loop (a reverse-stepi from it finds
 * the call: its return address is on the stack). */
#include <stdio.h>
#include <unistd.h>

volatile long value __attribute__((aligned(4096))) = 1, other __attribute__((aligned(4096))) = 1;
volatile unsigned long work __attribute__((aligned(4096))); /* pages of their own */

static void done(void)
{
    work++;
}

/* called through a pointer: no instruction deja decodes jumps to done */
static void (*volatile hook)(void) = done;

int main(int argc, char **argv)
{
    (void)argv;
    getpid();
    for (long i = 0; i < 3000000; i++)
        work += (unsigned long)i;
    if (argc > 0)
        value = 2;
    getpid();
    for (long j = 0; j < 150000; j++)
        work += (unsigned long)j;
    other = 2;
    getpid();
    for (long k = 0; k < 100000; k++)
        work += (unsigned long)k;
    hook();
    printf("value %ld other %ld work %lu\n", value, other, work);
    return 0;
}
