/* gdb_watch_stack_calls: a watched local shares its stack page with the frames of
 * 40 000 calls (return addresses, pushes, locals: unoptimised code's stores). Where
 * watchpoints are by page protection the store hooks write them through an alias of the
 * page (a call, a push with the prologue's moves, rbp-relative and one-byte stores).
 * The write through a pointer, from another function, must still stop, forwards and
 * backwards, with the values of the program. */
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline)) static unsigned long step(unsigned long x)
{
    volatile unsigned long y = x * 3;
    volatile unsigned char low = (unsigned char)x; /* a one-byte store */
    return y + 1 + low - (unsigned char)x;
}

__attribute__((noinline)) static void corrupt(long *p, unsigned long v)
{
    *p = (long)(v & 0xff);
}

int main(void)
{
    volatile long target = 1;
    unsigned long acc = 0;
    getpid();
    for (unsigned long i = 0; i < 20000; i++)
        acc += step(i);
    corrupt((long *)&target, acc);
    for (unsigned long i = 0; i < 20000; i++)
        acc += step(i);
    getpid();
    printf("target %ld acc %lu\n", target, acc);
    return 0;
}
