/* sched_getaffinity, sched_getcpu, scheduler policy and sched_yield. */
#include <sched.h>
#include <stdio.h>
#include "check.h"

int main(void) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CHECK(sched_getaffinity(0, sizeof set, &set) == 0);
  printf("cpus in affinity mask: %d, first:", CPU_COUNT(&set));
  for (int cpu = 0, shown = 0; cpu < CPU_SETSIZE && shown < 4; cpu++)
    if (CPU_ISSET(cpu, &set)) {
      printf(" %d", cpu);
      shown++;
    }
  printf("\n");
  printf("running on cpu %d\n", sched_getcpu());
  printf("policy %d priority range %d..%d\n", sched_getscheduler(0),
         sched_get_priority_min(SCHED_OTHER), sched_get_priority_max(SCHED_OTHER));
  for (int i = 0; i < 5; i++)
    CHECK(sched_yield() == 0);
  printf("yielded 5 times\n");
  return 0;
}
