/* System-call-heavy workload: many small writes, reads and clock reads.
 * clock_gettime is a real system call under deja (the vDSO is hidden). */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_ITERATIONS 20000
#define CHUNK 64

/* argv[1], when given, overrides the iteration count. */
int main(int argc, char **argv)
{
    int iterations = argc > 1 ? atoi(argv[1]) : DEFAULT_ITERATIONS;
    if (iterations <= 0) {
        fprintf(stderr, "syscalls: iteration count must be a positive number, got '%s'\n", argv[1]);
        return 2;
    }
    int sink = open("/dev/null", O_WRONLY);
    int source = open("/proc/self/exe", O_RDONLY);
    if (sink < 0 || source < 0) {
        perror("syscalls: open /dev/null or /proc/self/exe");
        return 1;
    }

    char buf[CHUNK] = "deja syscall benchmark payload, sixty-four bytes long........\n";
    uint64_t checksum = 0;
    for (int i = 0; i < iterations; i++) {
        if (write(sink, buf, CHUNK) != CHUNK) {
            perror("syscalls: write /dev/null");
            return 1;
        }
        ssize_t got = pread(source, buf, CHUNK, (off_t)(i % 64) * CHUNK);
        if (got < 0) {
            perror("syscalls: pread /proc/self/exe");
            return 1;
        }
        for (ssize_t j = 0; j < got; j++)
            checksum = checksum * 31 + (unsigned char)buf[j];
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        checksum += (uint64_t)now.tv_sec;   /* keeps the call from being optimised away */
    }
    close(sink);
    close(source);
    printf("syscalls: %d iterations, checksum=%016llx\n", iterations,
           (unsigned long long)checksum);
    return 0;
}
