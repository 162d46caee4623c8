/* Process and user identity: pids, uids, gids, groups, process group, session. */
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  printf("pid %d ppid %d tid %d\n", getpid(), getppid(), gettid());
  CHECK(getpid() == gettid());
  printf("uid %d euid %d gid %d egid %d\n", getuid(), geteuid(), getgid(), getegid());
  uid_t r, e, s;
  CHECK(getresuid(&r, &e, &s) == 0);
  printf("resuid %d %d %d\n", r, e, s);
  gid_t groups[64];
  int count = getgroups(64, groups);
  CHECK(count >= 0);
  printf("groups (%d):", count);
  for (int i = 0; i < count; i++)
    printf(" %d", groups[i]);
  printf("\n");
  printf("pgrp %d sid %d getpgid(0) %d\n", getpgrp(), getsid(0), getpgid(0));
  printf("raw syscall getpid %ld\n", syscall(SYS_getpid));
  return 0;
}
