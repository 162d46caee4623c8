/* gdb_reverse_indirect_call: calls that run millions of instructions without a system
 * call, reached through a function pointer and through a tail call (tail(), built -O2,
 * ends in a jmp to spin()), for reverse-next and reverse-stepi over them: the
 * instruction before the call's return is the ret of the function the pointer or the
 * tail call went to. */
#include <stdio.h>
#include <unistd.h>

static volatile long total;

__attribute__((noinline)) void spin(long n)
{
    for (long i = 0; i < n; i++)
        total += i;
}

__attribute__((optimize("O2"), noinline)) static void tail(long n)
{
    total += 1;
    spin(n);
}

static void (*volatile through)(long) = spin;

int main(void)
{
    getppid();
    through(300000);
    total += 1;
    tail(200000);
    total += 1;
    printf("%ld\n", total);
    return 0;
}
