#include "task/cpu_pin.h"

int cpu_pin_self(cpu_set_t *old) {
  CPU_ZERO(old);
  if (sched_getaffinity(0, sizeof *old, old) < 0)
    return -1;
  int cpu = sched_getcpu();
  if (cpu < 0 || !CPU_ISSET(cpu, old)) {
    for (cpu = 0; cpu < CPU_SETSIZE && !CPU_ISSET(cpu, old); cpu++) {
    }
    if (cpu == CPU_SETSIZE)
      return -1;
  }
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  return sched_setaffinity(0, sizeof one, &one) < 0 ? -1 : cpu;
}
