/* gdb_libc_breaks: breakpoints in libc functions whose system call sites the preload
 * library patches at every process start (getpid's site is its first bytes, dup's
 * follows its first instruction), set before the program runs. */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
    pid_t pid = getpid();
    int fd = dup(1);
    if (fd >= 0)
        close(fd);
    printf("pid seen %d dup %d\n", pid > 0, fd > 2);
    return 0;
}
