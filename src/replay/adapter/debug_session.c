/* `deja replay` under a debugger: replays to where the session starts, starts gdb (or
 * waits for one), and serves it the replay through the gdb adapter. */
#include "replay/adapter/replay_debug.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "replay/adapter/gdb_adapter.h"
#include "task/hw_caps.h"

/* gdb commands deja replay gives gdb: checkpoints as rr has them, through monitor
 * commands, and `restart N` as a restart of the replay from checkpoint N. */
static const char gdb_commands[] = "set confirm off\n" /* redefining gdb's own commands */
                                   "define checkpoint\n"
                                   "  monitor checkpoint\n"
                                   "end\n"
                                   "define restart\n"
                                   "  set confirm off\n"
                                   "  starti c$arg0\n"
                                   "  set confirm on\n"
                                   "end\n"
                                   "define info checkpoints\n"
                                   "  monitor checkpoints\n"
                                   "end\n"
                                   "define delete checkpoint\n"
                                   "  monitor delete-checkpoint $arg0\n"
                                   "end\n"
                                   "set confirm on\n";

/* Where deja has no watchpoints (hw_caps.h), gdb's `watch' makes software watchpoints
 * (gdb single-steps and compares) instead of hardware ones deja would have to refuse. */
static const char gdb_soft_watch[] = "set can-use-hw-watchpoints 0\n";

/* Writes gdb_commands to a new file; returns its malloc'ed path, or NULL (reported). */
static char *write_gdb_commands(void) {
  const char *tmp = getenv("TMPDIR");
  char *path = xasprintf("%s/deja-gdb-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  int fd = mkstemp(path);
  bool soft = !hw_watchpoints_work();
  if (soft)
    deja_msg("note: deja has no watchpoints on this machine (`deja caps'): gdb's "
             "watchpoints are software ones (single steps: slow forwards, slower backwards)");
  if (fd < 0 || write(fd, gdb_commands, sizeof gdb_commands - 1) != sizeof gdb_commands - 1 ||
      (soft && write(fd, gdb_soft_watch, sizeof gdb_soft_watch - 1) != sizeof gdb_soft_watch - 1)) {
    deja_msg("cannot write gdb's commands to %s: %s; checkpoint commands are missing", path,
             strerror(errno));
    if (fd >= 0) {
      close(fd);
      unlink(path);
    }
    free(path);
    return NULL;
  }
  close(fd);
  return path;
}

/* Starts gdb connected to PORT (with COMMANDS, a file of commands, unless NULL); returns
 * its pid. */
static pid_t start_gdb(const struct debug_options *o, const char *exe, int port,
                       const cpu_set_t *cpus, const char *commands) {
  pid_t pid = fork();
  if (pid != 0)
    return pid;
  sched_setaffinity(0, sizeof *cpus, cpus); /* gdb need not share deja's one CPU */
  char target[64];
  snprintf(target, sizeof target, "target extended-remote 127.0.0.1:%d", port);
  char **argv = xcalloc((size_t)o->ndebugger_args + 10, sizeof *argv);
  int n = 0;
  argv[n++] = (char *)o->debugger;
  argv[n++] = "-q";
  argv[n++] = (char *)exe;
  if (commands) {
    argv[n++] = "-x";
    argv[n++] = (char *)commands;
  }
  argv[n++] = "-ex";
  argv[n++] = target;
  for (int i = 0; i < o->ndebugger_args; i++)
    argv[n++] = o->debugger_args[i];
  execvp(o->debugger, argv);
  deja_msg("cannot start the debugger `%s': %s; use --debugger PATH, or -s PORT to connect one "
           "yourself",
           o->debugger, strerror(errno));
  _exit(127);
}

/* Waits for gdb to connect; gives up when the gdb deja started has exited (it could not
 * run, or the user quit before it connected). Returns the connection, or -1. */
static int accept_debugger(int lfd, pid_t gdb) {
  for (;;) {
    struct pollfd p = {.fd = lfd, .events = POLLIN};
    int n = poll(&p, 1, 200);
    if (n > 0)
      return accept(lfd, NULL, NULL);
    if (n < 0 && errno != EINTR)
      return -1;
    if (gdb > 0 && waitpid(gdb, NULL, WNOHANG) == gdb) {
      errno = ECHILD;
      return -1;
    }
  }
}

/* Replays to where the session starts: before event GOTO_EVENT (so that gdb sees it
 * happen), or until process ONPROCESS exists. 0, or an exit status (reported). */
static int replay_to_start(struct replay_session *s, const struct debug_options *o) {
  struct replay_result res = {.what = REPLAY_EVENT_DONE};
  while (res.what == REPLAY_EVENT_DONE && (s->e.pos.event + 1 < o->goto_event ||
                                           (o->onprocess && !engine_task(&s->e, o->onprocess))))
    replay_step(s, &res);
  if (res.what == REPLAY_ENDED) {
    deja_msg("the trace ends before %s", o->onprocess ? "that process exists" : "that event");
    return 1;
  }
  return res.what == REPLAY_FAILED ? res.status : 0;
}

int replay_debug_session(const struct replay_options *ro, const struct debug_options *o) {
  struct replay_session s;
  int rc = replay_open(&s, ro, NULL);
  /* -g alone: the timeline replays there, taking its checkpoints on the way (a
   * reverse-continue then starts from them, not from the beginning) */
  bool timeline_goes = o->goto_event > 1 && !o->onprocess;
  if (rc == 0 && !timeline_goes)
    rc = replay_to_start(&s, o);
  struct rptask *first =
      rc == 0 ? (o->onprocess ? engine_task(&s.e, o->onprocess) : s.e.tasks[0]) : NULL;
  struct gdb_adapter *a = xcalloc(1, sizeof *a);
  struct gdb_target t;
  if (rc == 0) {
    gdb_adapter_init(a, &s, ro, first, &t);
    if (timeline_goes && gdb_adapter_run_to(a, o->goto_event - 1) < 0)
      rc = 1;
  }
  int lfd = -1, port = o->port < 0 ? 0 : o->port;
  if (rc == 0 && (lfd = gdb_listen(&port)) < 0)
    rc = 1;
  if (rc) {
    if (first)
      gdb_adapter_detach(a);
    replay_close(&s);
    free(a);
    return rc;
  }
  first = engine_task(&s.e, a->last.tid);
  signal(SIGINT, SIG_IGN); /* Ctrl-C is gdb's: it interrupts the replay through the protocol */
  pid_t gdb = -1;
  char *commands = NULL;
  if (o->port >= 0) {
    deja_msg("listening for gdb on 127.0.0.1:%d; connect with:", port);
    deja_msg("  gdb %s -ex 'target extended-remote 127.0.0.1:%d'", first->exe, port);
  } else {
    commands = write_gdb_commands();
    gdb = start_gdb(o, first->exe, port, &s.cpus, commands);
  }
  int fd = accept_debugger(lfd, gdb);
  close(lfd);
  if (fd < 0) {
    deja_msg("no debugger connected%s", errno == ECHILD ? ": the debugger exited first" : "");
    gdb = -1; /* reaped already, or never started */
    rc = 1;
  } else if (gdb_serve(fd, &t) < 0) {
    rc = 1;
  }
  if (fd >= 0)
    close(fd);
  if (gdb > 0)
    waitpid(gdb, NULL, 0);
  if (commands) {
    unlink(commands);
    free(commands);
  }
  if (rc == 0 && a->failed)
    rc = a->failed; /* a divergence under gdb fails `deja replay` too */
  gdb_adapter_detach(a);
  replay_close(&s); /* after the timeline's restarts and checkpoints, which share its tables */
  free(a);
  return rc;
}
