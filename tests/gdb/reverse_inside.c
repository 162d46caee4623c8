/* gdb_reverse_inside: a long loop without system calls (one stretch of user code),
 * writing `mark` now and then deep inside it and `after` right after it. The reverse
 * moves land in the middle of the stretch, starting from the checkpoints the timeline
 * takes inside it; the values and pcs must be those seen going forwards. */
#include <stdio.h>
#include <unistd.h>

volatile long mark, after;
volatile unsigned long work;

int main(void)
{
    long left = 10000000;
    getpid();
    for (long i = 0; i < 30000000; i++) {
        work = work * 31 + (unsigned long)i;
        if (--left == 0) {
            mark = i;
            left = 10000000;
        }
    }
    after = 1;
    getpid();
    printf("mark %ld after %ld work %lu\n", mark, after, work);
    return 0;
}
