/* gdb_watch_sort_local: a watched local of unoptimised code that calls qsort and sin in a
 * loop shares its stack page with their frames: libc's merge sort calls the comparison
 * through a register, sin and the comparison store SSE registers. Where watchpoints are
 * by page protection the store hooks take those stores (and deja makes the ones it cannot
 * hook itself); the one write of `marker` must still stop, forwards and backwards. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define ROUNDS 120

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(void)
{
    double acc = 0, v[64];
    long marker = 0;
    getpid();
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < 64; i++)
            v[i] = sin(r * 0.1 + i);
        qsort(v, 64, sizeof v[0], cmp);
        acc += v[0];
        if (r == ROUNDS / 2)
            marker = r;
    }
    getpid();
    printf("marker %ld acc %.3f\n", marker, acc);
    return 0;
}
