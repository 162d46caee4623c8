/* getcwd and chdir/fchdir, with relative opens after changing directory. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  char cwd[4096];
  CHECK(getcwd(cwd, sizeof cwd) != NULL);
  printf("start cwd: %s\n", cwd);
  CHECK(chdir("/usr") == 0);
  CHECK(getcwd(cwd, sizeof cwd) != NULL);
  printf("after chdir: %s\n", cwd);
  printf("relative access bin: %d\n", access("bin", F_OK));
  int tmpfd = open("/tmp", O_RDONLY | O_DIRECTORY);
  CHECK(tmpfd >= 0);
  CHECK(fchdir(tmpfd) == 0);
  CHECK(getcwd(cwd, sizeof cwd) != NULL);
  printf("after fchdir: %s\n", cwd);
  close(tmpfd);
  SHOW_CALL("chdir to missing", chdir("/nonexistent-dir"));
  char small[2];
  SHOW_CALL("getcwd small buffer", getcwd(small, sizeof small));
  return 0;
}
