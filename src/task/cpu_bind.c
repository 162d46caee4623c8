/* The CPU a trace must replay on. When the CPU cannot fault cpuid, the program ran cpuid
 * natively and its answers (the APIC id, for one) depend on the CPU: the recorder notes
 * the CPU in the trace directory (file `cpu`), and replay runs there, whatever deja's
 * own affinity. */
#include "task/cpu_pin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/line_file.h"
#include "common/log.h"

int cpu_bind_note(const char *trace_dir, int cpu) {
  char text[16];
  snprintf(text, sizeof text, "%d\n", cpu);
  return line_file_write(trace_dir, "cpu", text);
}

static bool cpuid_native;

bool cpu_bind_cpuid_native(void) { return cpuid_native; }

int cpu_bind_replay(const char *trace_dir, cpu_set_t *old) {
  char text[16];
  int cpu = -1;
  if (line_file_read(trace_dir, "cpu", text, sizeof text) &&
      (sscanf(text, "%d", &cpu) != 1 || cpu < 0 || cpu >= CPU_SETSIZE))
    cpu = -1;
  cpuid_native = cpu >= 0;
  if (cpu < 0)
    return cpu_pin_self(old);
  CPU_ZERO(old);
  sched_getaffinity(0, sizeof *old, old);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (sched_setaffinity(0, sizeof one, &one) == 0)
    return cpu;
  deja_msg("warning: %s was recorded on CPU %d, which deja cannot use here (%s); cpuid answers "
           "differ between CPUs, so the replay may diverge where the program used them",
           trace_dir, cpu, strerror(errno));
  return cpu_pin_self(old);
}
