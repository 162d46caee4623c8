/* A program that looks for the vDSO: getauxval(AT_SYSINFO_EHDR) must give a valid ELF
   image, dl_iterate_phdr must list it, and the time functions (through the C library,
   which uses the vDSO) must still give live values, recorded like system calls. */
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/time.h>
#include <time.h>

#include "check.h"

static int found_vdso;

static int each(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  if ((unsigned long)info->dlpi_addr == (unsigned long)data ||
      strstr(info->dlpi_name, "vdso") != NULL)
    found_vdso = 1;
  return 0;
}

int main(void) {
  unsigned long base = getauxval(AT_SYSINFO_EHDR);
  CHECK(base != 0);
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
  printf("vDSO is an ELF image: %s, type %s\n",
         memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 ? "yes" : "no",
         eh->e_type == ET_DYN ? "shared object" : "other");
  dl_iterate_phdr(each, (void *)base);
  printf("dl_iterate_phdr lists it: %s\n", found_vdso ? "yes" : "no");
  struct timespec ts;
  CHECK(clock_gettime(CLOCK_REALTIME, &ts) == 0);
  struct timeval tv;
  CHECK(gettimeofday(&tv, NULL) == 0);
  time_t t = time(NULL);
  printf("clock_gettime %lld.%09ld, gettimeofday %lld.%06ld, time %lld\n", (long long)ts.tv_sec,
         ts.tv_nsec, (long long)tv.tv_sec, (long)tv.tv_usec, (long long)t);
  CHECK(ts.tv_sec > 1600000000 && tv.tv_sec >= ts.tv_sec && t >= ts.tv_sec);
  return 0;
}
