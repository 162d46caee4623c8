/* Running deja and every traced task on one CPU. Only one task runs at a time anyway,
 * and a ptrace stop handed between CPUs costs cross-CPU wakeups: pinned, recording a
 * system-call-heavy program is about 2.5 times faster here. */
#ifndef DEJA_TASK_CPU_PIN_H
#define DEJA_TASK_CPU_PIN_H

#include <sched.h>

/* Pins the calling process to one CPU of its current set; the set it had is saved in
 * *OLD (for children, such as gdb, that should not be pinned). Returns the CPU, or -1
 * (then nothing changed). */
int cpu_pin_self(cpu_set_t *old);

#endif
