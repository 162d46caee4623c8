/* gdb_writes_refused: a global whose recorded value gdb must keep showing. */
#include <stdio.h>

int recorded_value = 42;

int main(void)
{
    recorded_value += 1;
    printf("%d\n", recorded_value);
    return 0;
}
