/* Prints the CPU count every way a program can find it: sysconf (online, configured),
 * get_nprocs, sched_getaffinity, /proc/cpuinfo and /sys/devices/system/cpu/online. They
 * must agree (exit 2 otherwise); a replay must print the same. */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>

int main(void) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    return 2;
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f)
    return 2;
  char line[512];
  int cpuinfo = 0;
  while (fgets(line, sizeof line, f))
    cpuinfo += !strncmp(line, "processor", 9);
  fclose(f);
  char online[128] = "";
  f = fopen("/sys/devices/system/cpu/online", "r");
  if (!f || !fgets(online, sizeof online, f))
    return 2;
  fclose(f);
  online[strcspn(online, "\n")] = 0;
  int n = (int)sysconf(_SC_NPROCESSORS_ONLN);
  printf("online %d configured %ld nprocs %d affinity %d cpuinfo %d list %s\n", n,
         sysconf(_SC_NPROCESSORS_CONF), get_nprocs(), CPU_COUNT(&set), cpuinfo, online);
  printf("setaffinity %d\n", sched_setaffinity(0, sizeof set, &set));
  return n == sysconf(_SC_NPROCESSORS_CONF) && n == get_nprocs() && n == CPU_COUNT(&set) &&
                 n == cpuinfo
             ? 0
             : 2;
}
