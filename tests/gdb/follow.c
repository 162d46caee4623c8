/* gdb_follow_child, gdb_follow_both: a parent and its forked child each write and
 * compute in their own function, for gdb's `set follow-fork-mode child` and `set
 * detach-on-fork off`. The child sleeps first, so that the parent reaches its function
 * before the child reaches its own, in the recording too. */
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int value = 1;

int child_work(int n)
{
    value = n * 10;
    return value + 1;
}

int parent_work(int n)
{
    value = n * 100;
    return value + 2;
}

int main(void)
{
    pid_t child = fork();
    if (child == 0) {
        struct timespec nap = {0, 300 * 1000 * 1000};
        nanosleep(&nap, NULL);
        int r = child_work(7);
        printf("child %d\n", r);
        return 3;
    }
    int r = parent_work(5);
    int status = 0;
    waitpid(child, &status, 0);
    printf("parent %d %d\n", r, WEXITSTATUS(status));
    return 0;
}
