/* A program that assumes its machine: it keeps per-CPU counters in a table sized for the
 * 4 CPUs of the machine it was written on, and fails (exit 1) on a machine with more.
 * First it checks that every way of counting CPUs agrees (exit 2 otherwise: the recorder
 * told different stories). Prints one line. */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>

enum { MAX_CPUS = 4 };

static int count_lines(const char *path, const char *prefix) {
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  char line[512];
  int n = 0;
  while (fgets(line, sizeof line, f))
    n += !strncmp(line, prefix, strlen(prefix));
  fclose(f);
  return n;
}

int main(void) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    return 2;
  int online = (int)sysconf(_SC_NPROCESSORS_ONLN);
  int conf = (int)sysconf(_SC_NPROCESSORS_CONF);
  int affinity = CPU_COUNT(&set);
  int cpuinfo = count_lines("/proc/cpuinfo", "processor");
  if (online != conf || online != affinity || online != get_nprocs() || online != cpuinfo) {
    printf("FAIL: CPU counts disagree: online %d configured %d affinity %d cpuinfo %d\n", online,
           conf, affinity, cpuinfo);
    return 2;
  }
  if (online > MAX_CPUS) {
    printf("FAIL: %d CPUs, but the per-CPU table has room for %d\n", online, MAX_CPUS);
    return 1;
  }
  printf("%d CPUs, the per-CPU table fits\n", online);
  return 0;
}
