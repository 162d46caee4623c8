/* File-mapping workload: maps a large temporary file and a few system libraries,
 * touches every page, and sums bytes. Measures the cost of recording mappings. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define TEMP_FILE_SIZE (64UL << 20)
#define PAGE 4096UL

static const char *const libraries[] = {
    "/usr/lib/x86_64-linux-gnu/libc.so.6",
    "/usr/lib/x86_64-linux-gnu/libm.so.6",
    "/usr/lib/x86_64-linux-gnu/libzstd.so.1",
    "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
};

/* Maps PATH read-only and sums its bytes; skips libraries this machine lacks. */
static uint64_t sum_library(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 0;
    struct stat st;
    if (fstat(fd, &st) < 0 || st.st_size == 0) {
        close(fd);
        return 0;
    }
    const unsigned char *bytes = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (bytes == MAP_FAILED) {
        perror("mmap: mmap library");
        exit(1);
    }
    uint64_t sum = 0;
    for (off_t i = 0; i < st.st_size; i++)
        sum += bytes[i];
    munmap((void *)bytes, st.st_size);
    return sum;
}

/* Creates a temporary file, maps it shared, writes every page, reads it back. */
static uint64_t touch_temp_file(void)
{
    char path[] = "/tmp/deja-bench-mmap-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("mmap: mkstemp in /tmp");
        exit(1);
    }
    unlink(path);
    if (ftruncate(fd, TEMP_FILE_SIZE) < 0) {
        perror("mmap: ftruncate temp file");
        exit(1);
    }
    unsigned char *bytes = mmap(NULL, TEMP_FILE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (bytes == MAP_FAILED) {
        perror("mmap: mmap temp file");
        exit(1);
    }
    for (unsigned long off = 0; off < TEMP_FILE_SIZE; off += PAGE)
        bytes[off] = (unsigned char)(off / PAGE);
    uint64_t sum = 0;
    for (unsigned long off = 0; off < TEMP_FILE_SIZE; off += PAGE)
        sum += bytes[off];
    munmap(bytes, TEMP_FILE_SIZE);
    return sum;
}

int main(void)
{
    uint64_t total = touch_temp_file();
    for (size_t i = 0; i < sizeof libraries / sizeof libraries[0]; i++)
        total += sum_library(libraries[i]);
    printf("mmap: sum=%llu\n", (unsigned long long)total);
    return 0;
}
