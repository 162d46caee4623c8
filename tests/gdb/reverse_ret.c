/* gdb_reverse_ret: reverse-next and reverse-step back over calls whose callee ends in a
 * long rep-prefixed string instruction (`rep stosb', 300 000 iterations: the instruction
 * before the line after the call is the callee's `ret'); a breakpoint on it and stepi
 * over it; reverse-continue onto a watched byte written in the middle of a 1 MiB one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SMALL 300000
#define BIG (1 << 20)

/* rep stosb whatever libc's memset would choose */
static __attribute__((noinline)) void fill(char *p, unsigned long n, int c)
{
    __asm__ volatile(".globl fill_rep\nfill_rep: rep stosb" : "+D"(p), "+c"(n) : "a"(c) : "memory");
}

int main(void)
{
    char *small = malloc(SMALL), *big = malloc(BIG);
    getpid();
    fill(small, SMALL, 7);
    memset(small, 8, SMALL);
    getpid();
    fill(big, BIG, 9);
    printf("%d %d\n", small[1000], big[500000]);
    return 0;
}
