/* SysV semaphores and message queues between a parent and a forked child: the child
   waits on a semaphore the parent posts, sends random numbers back as messages; the
   parent reads the semaphore set and queue state (semctl GETALL/IPC_STAT, msgctl). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/random.h>
#include <sys/sem.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

struct message {
  long type;
  unsigned value[2];
};

int main(void) {
  int sem = semget(IPC_PRIVATE, 3, IPC_CREAT | 0600);
  int q = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
  CHECK(sem >= 0 && q >= 0);
  unsigned short init[3] = {0, 5, 9};
  CHECK(semctl(sem, 0, SETALL, init) == 0);
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    struct sembuf wait_op = {0, -1, 0};
    CHECK(semop(sem, &wait_op, 1) == 0); /* blocks until the parent posts */
    for (long t = 1; t <= 3; t++) {
      struct message m = {t, {0, 0}};
      CHECK(getrandom(m.value, sizeof m.value, 0) == sizeof m.value);
      CHECK(msgsnd(q, &m, sizeof m.value, 0) == 0);
    }
    _exit(0);
  }
  usleep(20000); /* the child is blocked in semop by now */
  struct sembuf post = {0, 1, 0};
  CHECK(semop(sem, &post, 1) == 0);
  for (int i = 0; i < 3; i++) {
    struct message m;
    ssize_t n = msgrcv(q, &m, sizeof m.value, 0, 0);
    CHECK(n == sizeof m.value);
    printf("message type %ld: %08x %08x\n", m.type, m.value[0], m.value[1]);
  }
  int status;
  CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  unsigned short vals[3];
  CHECK(semctl(sem, 0, GETALL, vals) == 0);
  printf("semaphores: %u %u %u\n", vals[0], vals[1], vals[2]);
  struct semid_ds sds;
  CHECK(semctl(sem, 0, IPC_STAT, &sds) == 0);
  printf("set of %lu\n", (unsigned long)sds.sem_nsems);
  struct msqid_ds mds;
  CHECK(msgctl(q, IPC_STAT, &mds) == 0);
  printf("queue now holds %lu messages\n", (unsigned long)mds.msg_qnum);
  struct sembuf nowait = {2, -10, IPC_NOWAIT};
  SHOW_CALL("semop would block", semop(sem, &nowait, 1));
  CHECK(semctl(sem, 0, IPC_RMID) == 0);
  CHECK(msgctl(q, IPC_RMID, NULL) == 0);
  return 0;
}
