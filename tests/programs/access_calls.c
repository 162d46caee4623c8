/* access and faccessat on existing, missing and forbidden paths. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "check.h"

static void try_access(const char *path, int mode) {
  int result = access(path, mode);
  printf("access(%s, %d) = %d errno %d\n", path, mode, result, result ? errno : 0);
}

int main(void) {
  try_access("/", R_OK | X_OK);
  try_access("/etc/passwd", R_OK);
  try_access("/etc/passwd", F_OK);
  try_access("/bin/true", X_OK);
  try_access("/nonexistent", F_OK);
  try_access("/proc/self/exe", F_OK);
  int dirfd = open("/usr", O_RDONLY | O_DIRECTORY);
  CHECK(dirfd >= 0);
  int result = faccessat(dirfd, "bin", X_OK, 0);
  printf("faccessat(/usr, bin, X_OK) = %d\n", result);
  result = faccessat(dirfd, "no-such-entry", F_OK, 0);
  printf("faccessat(/usr, no-such-entry) = %d errno %d\n", result, errno);
  result = faccessat(AT_FDCWD, "/etc/hostname", R_OK, AT_EACCESS);
  printf("faccessat(AT_FDCWD, /etc/hostname, AT_EACCESS) = %d\n", result);
  close(dirfd);
  return 0;
}
