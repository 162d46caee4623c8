/* gdb_watch_stack: `watch -l` on a local variable whose stack page the function's own
 * calls, pushes and other locals use all the time (page-protection watchpoints fault on
 * every one of those accesses and must pass over them), forwards and backwards. */
#include <stdio.h>
#include <unistd.h>

static __attribute__((noinline)) int twice(int v)
{
    return 2 * v;
}

int main(void)
{
    volatile int counter = 0;
    volatile int scratch[16];
    int sum = 0;
    getpid(); /* the stretch with the writes starts here */
    counter = 1;
    for (int i = 0; i < 1000; i++) {
        sum += twice(i);
        scratch[i % 16] = sum;
    }
    counter = 2;
    for (int i = 0; i < 1000; i++) {
        sum -= twice(i);
        scratch[i % 16] = sum;
    }
    counter = 3;
    printf("counter %d sum %d scratch %d\n", counter, sum, scratch[3]);
    return 0;
}
