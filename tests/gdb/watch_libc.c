/* gdb_watch_libc: a struct member written by libc's memset and memcpy (their vector
 * stores: SSE, AVX or AVX-512 moves), for watchpoints forwards and backwards. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct s {
    int a[64];
    int b;
} st;
volatile size_t size = sizeof(struct s); /* not known when compiled: libc's calls */

int main(void)
{
    struct s tmp;
    for (int i = 0; i < 64; i++)
        tmp.a[i] = i;
    tmp.b = 5;
    getpid();
    memset(&st, 1, size);
    memcpy(&st, &tmp, size);
    memset(st.a, 0, size);
    st.a[30] = 7;
    getpid();
    printf("%d\n", st.a[30]);
    return 0;
}
