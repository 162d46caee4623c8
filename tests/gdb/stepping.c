/* gdb_stepping: straight-line code, a call to step into and a loop to run `until` past.
   The tests name line numbers: keep the lines where they are. */
#include <stdio.h>

static int square(int x)
{
    int result = x * x;
    return result;
}

int main(void)
{
    int a = 3;
    int b = 4;
    int c = a + b;
    int d = square(c);
    for (int i = 0; i < 3; i++)
        d += i;
    printf("%d\n", d);
    return 0;
}
