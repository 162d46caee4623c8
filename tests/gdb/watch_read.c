/* gdb_watch_read: a global written and read in turn, for read watchpoints forwards and
 * backwards (a write is not a read). */
#include <stdio.h>
#include <unistd.h>

volatile int g = 1;
int sink;

int main(void)
{
    getpid();
    g = 2;
    sink = g;
    g = 3;
    sink += g;
    g = 4;
    getpid();
    printf("%d %d\n", g, sink);
    return 0;
}
