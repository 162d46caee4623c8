/* The auxiliary vector: AT_RANDOM bytes (new every run) and other entries. */
#include <stdio.h>
#include <sys/auxv.h>
#include "check.h"

int main(void) {
  const unsigned char *random_bytes = (const unsigned char *)getauxval(AT_RANDOM);
  CHECK(random_bytes != NULL);
  print_hex("AT_RANDOM", random_bytes, 16);
  printf("AT_PAGESZ %lu\n", getauxval(AT_PAGESZ));
  printf("AT_HWCAP %lx\n", getauxval(AT_HWCAP));
  printf("AT_SYSINFO_EHDR %lx\n", getauxval(AT_SYSINFO_EHDR));
  printf("AT_ENTRY %lx\n", getauxval(AT_ENTRY));
  printf("AT_SECURE %lu\n", getauxval(AT_SECURE));
  const char *platform = (const char *)getauxval(AT_PLATFORM);
  printf("AT_PLATFORM %s\n", platform ? platform : "(none)");
  return 0;
}
