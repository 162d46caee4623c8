/* The recorder's run (declared in recorder.h): runs the program's tasks under ptrace,
 * one at a time in user code, and writes what crossed into them as events. Threads
 * switch at system calls; a task that runs user code past its time slice while another
 * could run (or a signal waits) is interrupted and a state point recorded. Here a
 * recording is set up, run (record_start.c, record_loop.c) and finished; signals sent to
 * deja go on to the program (record_interrupt.c). */
#include "record/recorder.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/inherited_signals.h"
#include "common/line_file.h"
#include "common/log.h"
#include "record/recorder_internal.h"
#include "record/syscallbuf_record.h"
#include "task/cpu_features.h"
#include "task/cpu_pin.h"
#include "task/proc_status.h"

/* deja's own peak resident memory (VmHWM), for DEJA_STATS. */
static long peak_rss_kb(void) {
  long kb;
  return proc_status_number(0, "VmHWM", &kb) == 0 ? kb : -1;
}

/* What DEJA_STATS asks for: the recording's counts, costs and chaos mode's choices. */
static void print_stats(const struct recorder *r, uint64_t seed) {
  if (!getenv("DEJA_STATS"))
    return;
  deja_msg("stats: %" PRIu64 " events, %" PRIu64
           " state points (%.3f s, %.1f MB saved), deja's peak memory %ld kB",
           r->events, r->state_points, r->state_point_ns / 1e9, r->state_point_bytes / 1e6,
           peak_rss_kb());
  if (r->nslots > 1)
    deja_msg("stats: %d CPUs; tasks of different processes ran at once for %.3f s", r->nslots,
             r->parallel_ns / 1e9);
  if (r->tsc_patch)
    deja_msg("stats: this machine does not trap rdtsc: %" PRIu64 " rdtsc/rdtscp sites patched "
             "into traps",
             r->tsc_sites);
  if (r->o->chaos)
    deja_msg("chaos: seed %#" PRIx64 ", %d CPUs, %" PRIu64 " high-priority-only intervals (%" PRIu64
             " at scheduling events, %.3f s), pauses of %" PRId64 " ms, %.3f s waiting for "
             "woken tasks",
             seed, r->cpus.count, r->chaos.intervals, r->chaos.anchored, r->chaos.spent / 1e9,
             r->chaos.pause_ns / 1000000, r->settle_ns / 1e9);
}

/* Where a recording's time went, for DEJA_STATS: MARKS are the times at its start, once
 * the probes and the trace were set up, once the program was running traced (its first
 * exec done), at the end of its run, and once the trace was written out. */
enum { MARK_START, MARK_SET_UP, MARK_TRACED, MARK_RAN, MARK_CLOSED, MARKS };
static void print_times(const struct timespec marks[MARKS]) {
  if (!getenv("DEJA_STATS"))
    return;
  double ms[MARKS] = {0};
  for (int i = 1; i < MARKS; i++)
    ms[i] = ((marks[i].tv_sec - marks[i - 1].tv_sec) * 1e9 +
             (marks[i].tv_nsec - marks[i - 1].tv_nsec)) /
            1e6;
  deja_msg("stats: %.2f ms setting up (probes, trace files), %.2f ms starting the program, "
           "%.2f ms recording it, %.2f ms finishing the trace",
           ms[MARK_SET_UP], ms[MARK_TRACED], ms[MARK_RAN], ms[MARK_CLOSED]);
}

/* Chaos mode's seed: DEJA_CHAOS_SEED, or a random one. */
static uint64_t chaos_seed(void) {
  uint64_t seed = 0;
  const char *seed_env = getenv("DEJA_CHAOS_SEED");
  if (seed_env)
    seed = strtoull(seed_env, NULL, 0);
  else if (getrandom(&seed, sizeof seed, 0) != sizeof seed)
    seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
  return seed;
}

/* What the recorder holds, freed at the end of the recording (tasks left included). */
static void free_recorder(struct recorder *r) {
  while (r->ntasks)
    record_task_gone(r, r->tasks[0]);
  free(r->tasks);
  free(r->zombies);
  record_cpus_free(r);
  tbuf_free(&r->rec);
  tbuf_free(&r->data);
  tbuf_free(&r->addrs);
  trace_files_free(r->files);
}

/* A seccomp filter deja runs under (a default container's) refuses some calls before
 * deja sees them: which, kept in the trace so that replay refuses them too. */
static void record_probe_refusals(struct recorder *r) {
  env_refusals_probe(&r->refusals);
  char list[512];
  if (env_refusals_filtered(&r->refusals) && env_refusals_describe(&r->refusals, list, sizeof list))
    deja_msg("recording under a seccomp filter (a container?); the replay refuses what it "
             "refuses (%s) the same way",
             list);
}

int record_run(const struct record_options *o) {
  char *path = record_find_program(o->argv[0]);
  if (!path) {
    deja_msg("cannot find program `%s'%s", o->argv[0],
             strchr(o->argv[0], '/') ? " (no such executable file)" : " in PATH");
    return 127;
  }
  struct timespec marks[MARKS] = {0};
  clock_gettime(CLOCK_MONOTONIC, &marks[MARK_START]);
  struct record_options with_buffer = *o;
  /* Chaos mode keeps the buffer: its decisions apply at traced stops, interrupts and
   * flushes (src/record/README.md). */
  char **env = syscallbuf_record_start(o->syscall_buffer, o->env);
  if (env)
    with_buffer.env = env;
  o = &with_buffer;
  struct recorder r = {.o = o, .slice_ns = 20000000L, .root_status = 0};
  uint64_t seed = chaos_seed();
  chaos_init(&r.chaos, seed, chaos_now());
  if (o->chaos && o->hunt)
    chaos_plan_pauses(&r.chaos, o->hunt->run, o->hunt->active_ns);
  tbuf_init(&r.rec);
  tbuf_init(&r.data);
  tbuf_init(&r.addrs);
  for (int i = 1; i <= 2; i++)
    r.out_ok[i] = fstat(i, &r.out_st[i]) == 0;
  clock_gettime(CLOCK_MONOTONIC, &r.last_flush);
  char err[512];
  char *files = xasprintf("%s/files", o->trace_dir);
  char *events = xasprintf("%s/events", o->trace_dir);
  int status = RECORD_DEJA_FAILED;
  cpu_set_t cpus;
  int cpu = cpu_pin_self(&cpus); /* the program inherits it */
  record_slots_init(&r, &cpus, cpu, o->cpus);
  cpu_set_t slot_cpus;
  record_slots_cpus(&r, &slot_cpus);
  /* As many CPUs as deja records on, or 1-8 at random under --chaos, the same for the
   * whole recording. */
  record_cpus_init(&r, &slot_cpus, cpu, o->chaos ? 1 + (int)chaos_below(&r.chaos, 8) : r.nslots);
  sigset_t chld, old;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigaddset(&chld, syscallbuf_desched_signal());
  /* Waited for while blocked; dropped, not fatal, wherever deja does not block it. */
  signal(syscallbuf_desched_signal(), SIG_IGN);
  r.chld = chld;
  sigprocmask(SIG_BLOCK, &chld, &old);
  if (mkdir(files, 0700) < 0) {
    deja_msg("cannot create %s: %s", files, strerror(errno));
    goto out;
  }
  /* What the program inherits ignored and blocked, for the replayed one. */
  char inherited[96];
  inherited_signals_text(inherited, sizeof inherited);
  if (line_file_write(o->trace_dir, INHERITED_SIGNALS_NOTE, inherited) < 0)
    goto out;
  /* Asked before any thread starts (the probes fork). */
  record_probe_refusals(&r);
  if (cpu_features_note(o->trace_dir) < 0)
    goto out;
  r.tsc_patch = tsc_patch_wanted();
  if (r.tsc_patch && tsc_patch_note(o->trace_dir) < 0)
    goto out;
  r.files = trace_files_new(o->trace_dir);
  r.w = trace_writer_open(events, 1, DEJA_VERSION, err, sizeof err);
  if (!r.w) {
    deja_msg("%s", err);
    goto out;
  }
  /* Compression (zstd) runs beside the recording, on another CPU when there is one. */
  cpu_set_t others = cpus;
  if (cpu >= 0)
    CPU_CLR(cpu, &others);
  trace_writer_background(r.w, cpu < 0 ? NULL : &cpus);
  clock_gettime(CLOCK_MONOTONIC, &marks[MARK_SET_UP]);
  pid_t pid = record_spawn(o, path, &old);
  if (pid < 0) {
    deja_msg("cannot fork: %s", strerror(errno));
    goto out;
  }
  record_forward_signals(pid);
  status = record_start_tracing(&r, pid);
  clock_gettime(CLOCK_MONOTONIC, &marks[MARK_TRACED]);
  if (status == 0 && r.ntasks) {
    status = record_loop(&r);
    if (status == 0)
      status = record_exit_status(r.root_status);
  }
  if (r.warned_cpuid && cpu >= 0 && cpu_bind_note(o->trace_dir, cpu) < 0)
    status = RECORD_DEJA_FAILED; /* cpuid ran natively: replay must run on this CPU */
  print_stats(&r, seed);
  clock_gettime(CLOCK_MONOTONIC, &marks[MARK_RAN]);
  if (o->hunt)
    o->hunt->active_ns = chaos_active_ns(&r.chaos, chaos_now());
out:
  record_forward_signals(0);
  if (r.w && trace_writer_close(r.w) < 0) {
    deja_msg("cannot finish the trace %s", events);
    status = RECORD_DEJA_FAILED;
  }
  free_recorder(&r);
  clock_gettime(CLOCK_MONOTONIC, &marks[MARK_CLOSED]);
  if (marks[MARK_RAN].tv_sec)
    print_times(marks);
  sigprocmask(SIG_SETMASK, &old, NULL);
  sched_setaffinity(0, sizeof cpus, &cpus);
  free(files);
  free(events);
  free(path);
  free(env);
  syscallbuf_record_end();
  return status;
}
