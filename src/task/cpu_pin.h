/* Running deja and every traced task on one CPU. Only one task runs at a time anyway,
 * and a ptrace stop handed between CPUs costs cross-CPU wakeups: pinned, recording a
 * system-call-heavy program is about 2.5 times faster here. */
#ifndef DEJA_TASK_CPU_PIN_H
#define DEJA_TASK_CPU_PIN_H

#include <sched.h>
#include <stdbool.h>

/* Pins the calling process to one CPU of its current set; the set it had is saved in
 * *OLD (for children, such as gdb, that should not be pinned). Returns the CPU, or -1
 * (then nothing changed). */
int cpu_pin_self(cpu_set_t *old);

/* cpu_bind.c: notes in TRACE_DIR that the trace must replay on CPU (cpuid ran natively);
 * 0 or -1 (reported). */
int cpu_bind_note(const char *trace_dir, int cpu);
/* Pins deja for replaying TRACE_DIR: to the CPU the trace names if it does (warning when
 * that CPU cannot be used), else as cpu_pin_self. Returns the CPU or -1. */
int cpu_bind_replay(const char *trace_dir, cpu_set_t *old);
/* True when the trace cpu_bind_replay read was recorded with cpuid running natively:
 * replay does not fault cpuid either. */
bool cpu_bind_cpuid_native(void);

#endif
