/* uname fields and gethostname. */
#include <stdio.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  struct utsname names;
  CHECK(uname(&names) == 0);
  printf("sysname: %s\nnodename: %s\nrelease: %s\nversion: %s\nmachine: %s\n", names.sysname,
         names.nodename, names.release, names.version, names.machine);
  char host[256];
  CHECK(gethostname(host, sizeof host) == 0);
  printf("hostname: %s (matches nodename: %d)\n", host, strcmp(host, names.nodename) == 0);
  return 0;
}
