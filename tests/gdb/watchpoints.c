/* gdb_watchpoints: writes and reads of globals at known lines, for watch/rwatch/awatch. */
#include <stdio.h>

int watched = 1;
int read_only = 5;
int accessed = 100;
int sink;

int main(void)
{
    watched = 2;
    watched = 3;
    sink = read_only;
    accessed = 200;
    printf("%d %d %d\n", watched, sink, accessed);
    return 0;
}
