/* gdb_breakpoints: func is called with n = 10, 20, 30, 40; the exit status is 7. */
#include <stdio.h>

int calls_total = 0;

int func(int n)
{
    calls_total += n;
    return n * 2;
}

int main(void)
{
    int doubled = 0;
    for (int n = 10; n <= 40; n += 10)
        doubled += func(n);
    printf("doubled %d, total %d\n", doubled, calls_total);
    return 7;
}
