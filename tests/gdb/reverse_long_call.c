/* gdb_reverse_long_call: calls that run millions of instructions without a system call
 * (a loop in the program, libc's memset through the PLT), for reverse-next and
 * reverse-stepi over them: the instruction before a call's return is the callee's ret. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile long total;
static char buffer[32 << 20];

static void spin(long n)
{
    for (long i = 0; i < n; i++)
        total += i;
}

int main(void)
{
    getppid();
    spin(300000);
    memset(buffer, 1, sizeof buffer);
    total += buffer[12345];
    printf("%ld\n", total);
    return 0;
}
