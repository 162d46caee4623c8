/* One child starts a new session with setsid() and reports whether it leads its session
   and process group; the parent moves another child into a new process group with
   setpgid and checks it from both sides. Only booleans are printed (pids vary). */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  int results[2];
  CHECK(pipe(results) == 0);
  pid_t leader = fork();
  CHECK(leader >= 0);
  if (leader == 0) {
    pid_t session = setsid();
    char answers[2] = {
        (char)('0' + (session == getpid() && getsid(0) == getpid())),
        (char)('0' + (getpgrp() == getpid())),
    };
    CHECK(write(results[1], answers, 2) == 2);
    _exit(0);
  }
  char answers[2];
  CHECK(read(results[0], answers, 2) == 2);
  int status;
  CHECK(waitpid(leader, &status, 0) == leader);
  printf("setsid child: getsid(0)==getpid() %c getpgrp()==getpid() %c\n", answers[0], answers[1]);
  printf("parent still in its own session: %d\n", getsid(0) != leader);

  int go[2];
  CHECK(pipe(go) == 0);
  pid_t member = fork();
  CHECK(member >= 0);
  if (member == 0) {
    char byte;
    close(go[1]);
    CHECK(read(go[0], &byte, 1) == 1); /* wait until the parent moved us */
    _exit(getpgrp() == getpid() ? 0 : 1);
  }
  close(go[0]);
  CHECK(setpgid(member, member) == 0);
  printf("setpgid child: getpgid(child)==child %d\n", getpgid(member) == member);
  printf("parent group unchanged: %d\n", getpgrp() != member);
  CHECK(write(go[1], "x", 1) == 1);
  CHECK(waitpid(member, &status, 0) == member);
  printf("child saw itself as group leader: %d\n", WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return 0;
}
