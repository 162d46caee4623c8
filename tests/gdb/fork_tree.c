/* gdb_checkpoints_fork_tree: a child process lives (blocked reading a pipe) while its
 * parent writes `value`; checkpoints then fork both processes. The test's session
 * starts at the first write() (the "start" line), after the fork. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

volatile int value;

static void mark(int v)
{
    value = v;
}

int main(void)
{
    int p[2];
    if (pipe(p) < 0)
        return 1;
    pid_t child = fork();
    if (child == 0) {
        char c = 0;
        close(p[1]);
        ssize_t n = read(p[0], &c, 1);
        _exit(n == 1 ? c : 99);
    }
    close(p[0]);
    if (write(1, "start\n", 6) != 6)
        return 1;
    mark(1);
    getppid();
    mark(2);
    char c = 7;
    if (write(p[1], &c, 1) != 1)
        return 1;
    int status = 0;
    waitpid(child, &status, 0);
    mark(WEXITSTATUS(status));
    printf("value %d\n", value);
    return 0;
}
