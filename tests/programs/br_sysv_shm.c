/* SysV shared memory shared between processes: the parent creates a segment, a forked
   child attaches it and writes random numbers, the parent reads them after waitpid.
   Also IPC_STAT, a second attach at another address, shmdt and IPC_RMID. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/random.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

int main(void) {
  int id = shmget(IPC_PRIVATE, 3 * 4096 + 100, IPC_CREAT | 0600);
  CHECK(id >= 0);
  unsigned *p = shmat(id, NULL, 0);
  CHECK(p != (void *)-1);
  p[0] = 1234;
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    unsigned *c = shmat(id, NULL, 0);
    CHECK(c != (void *)-1);
    CHECK(c[0] == 1234);
    CHECK(getrandom(&c[1], 4 * sizeof(unsigned), 0) == 4 * sizeof(unsigned));
    c[3 * 1024 + 10] = c[1] ^ c[2];
    CHECK(shmdt(c) == 0);
    _exit(0);
  }
  int status;
  CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  printf("child wrote: %08x %08x %08x %08x\n", p[1], p[2], p[3], p[4]);
  printf("last page: %s\n", p[3 * 1024 + 10] == (p[1] ^ p[2]) ? "matches" : "differs");
  struct shmid_ds ds;
  CHECK(shmctl(id, IPC_STAT, &ds) == 0);
  printf("segment size %zu, attached %lu\n", ds.shm_segsz, (unsigned long)ds.shm_nattch);
  const unsigned *ro = shmat(id, NULL, SHM_RDONLY);
  CHECK(ro != (void *)-1);
  printf("read-only view agrees: %s\n", ro[1] == p[1] ? "yes" : "no");
  p[1] = 7;
  printf("writes show through: %u\n", ro[1]);
  CHECK(shmdt(ro) == 0);
  CHECK(shmdt(p) == 0);
  CHECK(shmctl(id, IPC_RMID, NULL) == 0);
  printf("done\n");
  return 0;
}
