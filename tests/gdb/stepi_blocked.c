/* gdb_stepi_blocked: a thread blocked in read() on a pipe while the main thread stops at
 * mark(), before the write that wakes it; stepi of the blocked thread completes the
 * call. The write is a bare `syscall` (traced, never buffered), so the reader's call
 * ends after the main thread's stop in the trace too. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int fds[2];
static char got;
static volatile pid_t reader_tid;

static void *reader(void *arg)
{
    (void)arg;
    reader_tid = (pid_t)syscall(SYS_gettid);
    ssize_t n = read(fds[0], &got, 1);
    return (void *)n;
}

/* Whether thread TID is blocked in read() (its /proc syscall line starts with 0). */
static int blocked_in_read(pid_t tid)
{
    char path[64], line[64] = "";
    snprintf(path, sizeof path, "/proc/self/task/%d/syscall", tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    if (!fgets(line, sizeof line, f))
        line[0] = 0;
    fclose(f);
    return strncmp(line, "0 ", 2) == 0;
}

static long raw_write(int fd, const void *buf, long len)
{
    long ret;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "0"((long)SYS_write), "D"((long)fd), "S"(buf), "d"(len)
                     : "rcx", "r11", "memory");
    return ret;
}

void mark(void)
{
}

int main(void)
{
    pthread_t t;
    if (pipe(fds) < 0)
        return 1;
    pthread_create(&t, NULL, reader, NULL);
    while (!reader_tid || !blocked_in_read(reader_tid))
        usleep(1000);
    usleep(50000); /* settled in the kernel (a buffered read is restarted traced) */
    mark();
    raw_write(fds[1], "x", 1);
    pthread_join(t, NULL);
    printf("%c\n", got);
    return 0;
}
