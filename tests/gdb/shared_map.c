/* gdb_checkpoints_shared_map: a file mapped MAP_SHARED read-only changes (the program
 * writes it) after a checkpoint; going back to the checkpoint shows the earlier content. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

volatile int seen;

static void mark(int v)
{
    seen = v;
}

int main(void)
{
    char path[] = "/tmp/deja-shared-map-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, "A", 1) != 1)
        return 1;
    const char *m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED)
        return 1;
    mark(m[0]);
    if (pwrite(fd, "B", 1, 0) != 1)
        return 1;
    mark(m[0]);
    printf("%c\n", m[0]);
    unlink(path);
    return 0;
}
