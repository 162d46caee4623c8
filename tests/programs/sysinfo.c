/* sysinfo: waits for the uptime (whole seconds) to tick, so that two runs one after the
   other always print different uptimes. */
#include <stdio.h>
#include <sys/sysinfo.h>
#include "check.h"

int main(void) {
  struct sysinfo first, now;
  CHECK(sysinfo(&first) == 0);
  long calls = 1;
  do {
    CHECK(sysinfo(&now) == 0);
    calls++;
  } while (now.uptime == first.uptime && calls < 50000000);
  printf("uptime ticked from %ld to %ld\n", first.uptime, now.uptime);
  printf("loads: %lu %lu %lu\n", now.loads[0], now.loads[1], now.loads[2]);
  printf("totalram %lu freeram %lu mem_unit %u procs %u\n", now.totalram, now.freeram, now.mem_unit,
         now.procs);
  printf("nprocs %d, conf %d\n", get_nprocs(), get_nprocs_conf());
  return 0;
}
