/* What this machine's processor and kernel let deja use, probed once per process on a
 * forked child: some hypervisors (PVM) accept debug register writes and perf breakpoint
 * events but never fire them, and accept PR_SET_TSC without trapping rdtsc.
 * DEJA_NO_DEBUG_REGISTERS and DEJA_NO_PERF_BREAKPOINTS in the environment make deja
 * behave as on such a machine (to try those paths on one that has them). */
#ifndef DEJA_TASK_HW_CAPS_H
#define DEJA_TASK_HW_CAPS_H

#include <stdbool.h>
#include <stdio.h>

/* A write watchpoint in DR0/DR7 (set with PTRACE_POKEUSER) stops the child that writes. */
bool hw_debug_registers_work(void);
/* Watchpoints in a replay: the debug registers, or where they do not work, data
 * breakpoints emulated by page protection (src/replay/page_watch.h), which every Linux
 * x86-64 machine has. */
bool hw_watchpoints_work(void);
bool hw_watchpoints_emulated(void);
/* A perf PERF_TYPE_BREAKPOINT event counts a child's executions of a function exactly. */
bool hw_perf_breakpoints_count(void);
/* The kernel refused a perf breakpoint event (not for want of a free debug register):
 * it will again, so hw_perf_breakpoints_count says no from now on. */
void hw_perf_breakpoints_refused(void);
/* prctl(PR_SET_TSC, PR_TSC_SIGSEGV) makes rdtsc fault (tsc_patch_kernel_traps). */
bool hw_rdtsc_traps(void);
/* The kernel gives software perf events (the system call buffer's context-switch
 * event); a default container refuses perf_event_open. */
bool hw_context_switch_events(void);
/* personality(ADDR_NO_RANDOMIZE) is allowed: recordings get the same layout each run. */
bool hw_aslr_can_be_off(void);
/* deja itself runs under a seccomp filter (a container's). */
bool hw_outer_seccomp_filter(void);
/* One "name: yes|no" line per capability (`deja caps`), then a "# " line for each one
 * missing: what deja does instead and what it costs. */
void hw_caps_print(FILE *f);

#endif
