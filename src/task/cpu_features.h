/* The instruction set a trace was recorded with (the note `features` beside its events),
 * checked when it is replayed: a program that saw AVX-512 (through cpuid, native or
 * recorded) uses it, and a CPU without it cannot replay that. */
#ifndef DEJA_TASK_CPU_FEATURES_H
#define DEJA_TASK_CPU_FEATURES_H

/* Notes this CPU's features in TRACE_DIR; 0 or -1 (reported). */
int cpu_features_note(const char *trace_dir);
/* Compares the noted features with this CPU's: a warning naming each one the trace's
 * CPU had and this one lacks (and the vendor, when it differs). The number missing. */
int cpu_features_check(const char *trace_dir);

#endif
