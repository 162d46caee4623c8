/* CPU-bound workload: pure computation, no system calls until the final print.
 * Measures the recorder's overhead when the program never enters the kernel. */
#include <stdint.h>
#include <stdio.h>

#define ROUNDS 540000000ULL

static uint64_t xorshift64(uint64_t state)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

int main(void)
{
    uint64_t state = 0x9e3779b97f4a7c15ULL;
    uint64_t hash = 1469598103934665603ULL;   /* FNV-1a offset basis */

    for (uint64_t i = 0; i < ROUNDS; i++) {
        state = xorshift64(state);
        hash = (hash ^ (state & 0xff)) * 1099511628211ULL;
    }
    printf("cpu: hash=%016llx\n", (unsigned long long)hash);
    return 0;
}
