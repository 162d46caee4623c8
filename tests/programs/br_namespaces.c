/* Namespaces, as sandboxes and containers use them: a new user namespace with new UTS and
   PID namespaces; the first child is pid 1 there and sees its own hostname. setns back
   into the parent's UTS namespace fails without privileges there. The child's own child
   is pid 2, as fork and waitpid tell it. Prints the child's
   random number so recordings differ. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

int main(void) {
  int uts = open("/proc/self/ns/uts", O_RDONLY);
  CHECK(uts >= 0);
  if (unshare(CLONE_NEWUSER | CLONE_NEWUTS | CLONE_NEWPID) < 0) {
    printf("unshare failed: %s\n", strerror(errno));
    return 0;
  }
  pid_t c = fork();
  CHECK(c >= 0);
  if (c == 0) {
    CHECK(sethostname("deja-sandbox", 12) == 0);
    struct utsname u;
    CHECK(uname(&u) == 0);
    unsigned v;
    CHECK(getrandom(&v, sizeof v, 0) == sizeof v);
    printf("child: pid %d, hostname %s, random %08x\n", getpid(), u.nodename, v);
    fflush(stdout);
    pid_t g = fork(); /* inside the new PID namespace: pid 2 */
    CHECK(g >= 0);
    if (g == 0) {
      printf("grandchild: pid %d, parent %d\n", getpid(), getppid());
      fflush(stdout);
      _exit(0);
    }
    CHECK(waitpid(g, NULL, 0) == g);
    printf("child: forked pid %d\n", g);
    fflush(stdout);
    _exit(3);
  }
  int status;
  CHECK(waitpid(c, &status, 0) == c);
  printf("parent: child pid %s, exited %d\n", c > 1 ? "from the outer namespace" : "1",
         WEXITSTATUS(status));
  errno = 0;
  int r = setns(uts, CLONE_NEWUTS);
  printf("setns back: %d (%s)\n", r, r < 0 ? strerror(errno) : "ok");
  return 0;
}
