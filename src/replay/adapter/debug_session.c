/* `deja replay` under a debugger: replays to where the session starts, starts gdb
 * connected through a socket only deja's user can reach (or waits for one with -s), and
 * serves it the replay through the gdb adapter. */
#include "replay/adapter/replay_debug.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "common/private_umask.h"
#include "gdb/gdb_listen.h"
#include "replay/adapter/gdb_adapter.h"
#include "task/hw_caps.h"

/* gdb commands deja replay gives gdb (and `deja gdbinit' prints): checkpoints as rr has
 * them, through monitor commands, and `restart N' as a restart of the replay from
 * checkpoint N. `checkpoint' tells deja gdb's FILE:LINE (rr's Where column) through
 * gdb's Python where gdb has it; the Python block comes last, so that a gdb without
 * it still gets everything before it. */
static const char gdb_commands[] =
    "set confirm off\n" /* redefining gdb's own commands */
    "set $deja_python = 0\n"
    "define checkpoint\n"
    "  if $deja_python\n"
    "    python deja_checkpoint()\n"
    "  else\n"
    "    monitor checkpoint\n"
    "  end\n"
    "end\n"
    "define restart\n"
    "  set confirm off\n"
    "  starti c$arg0\n"
    /* (a later `run` starts from the start again) */
    "  set args\n"
    "  set confirm on\n"
    "end\n"
    /* rr's, which scripts use without `monitor' */
    "define when\n"
    "  monitor when\n"
    "end\n"
    "define when-tid\n"
    "  monitor when-tid\n"
    "end\n"
    "define when-ticks\n"
    "  monitor when-ticks\n"
    "end\n"
    "define elapsed-time\n"
    "  monitor elapsed-time\n"
    "end\n"
    "define info recording\n"
    "  monitor recording\n"
    "end\n"
    "define info checkpoints\n"
    "  monitor info-checkpoints\n"
    "end\n"
    "define delete checkpoint\n"
    "  monitor delete-checkpoint $arg0\n"
    "end\n"
    /* `monitor goto POS' moved the replay: gdb reads
                                    * the registers and frames again */
    "define hookpost-monitor\n"
    "  maintenance flush register-cache\n"
    "end\n"
    "set confirm on\n"
    "python\n"
    "def deja_checkpoint():\n"
    "    where = ''\n"
    "    try:\n"
    "        sal = gdb.selected_frame().find_sal()\n"
    "        if sal.symtab:\n"
    "            where = '%s:%d' % (sal.symtab.fullname(), sal.line)\n"
    "    except gdb.error:\n"
    "        pass\n"
    "    gdb.execute(('monitor checkpoint ' + where).strip())\n"
    "gdb.set_convenience_variable('deja_python', 1)\n"
    "end\n";

const char *replay_debug_gdb_commands(void) { return gdb_commands; }

/* Where deja has no watchpoints (hw_caps.h), gdb's `watch' makes software watchpoints
 * (gdb single-steps and compares) instead of hardware ones deja would have to refuse. */
static const char gdb_soft_watch[] = "set can-use-hw-watchpoints 0\n";

/* Where the debugger connects, and what to remove when the session ends. */
struct debugger_channel {
  int lfd;        /* the listening socket */
  int port;       /* -s PORT: the port (the chosen one for 0) */
  char *socket;   /* the unix socket's path, NULL for TCP */
  char *dir;      /* deja's own directory for the gdb it starts, NULL with -s */
  char *commands; /* gdb's commands file in DIR, NULL when none */
};

/* Writes gdb_commands to a new file in DIR; returns its malloc'ed path, or NULL
 * (reported). */
static char *write_gdb_commands(const char *dir) {
  char *path = xasprintf("%s/commands.gdb", dir);
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
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

/* A socket path gdb can be given: one that fits a unix socket address, without the `:'
 * that makes gdb read HOST:PORT. */
static bool socket_path_fits(const char *path) {
  return strlen(path) < sizeof(((struct sockaddr_un *)0)->sun_path) && !strchr(path, ':');
}

/* Makes a directory of deja's own for the gdb it starts (mkdtemp: mode 0700, so no other
 * user can reach the socket in it) in $TMPDIR, or /tmp where that does not fit a socket
 * path. Returns its malloc'ed path, or NULL (reported). */
static char *make_private_dir(void) {
  const char *tmp = getenv("TMPDIR");
  const char *bases[] = {tmp && *tmp ? tmp : "/tmp", "/tmp"};
  for (int i = 0; i < 2; i++) {
    char *dir = xasprintf("%s/deja-gdb-XXXXXX", bases[i]);
    if (strlen(dir) + sizeof "/commands.gdb" <= sizeof(((struct sockaddr_un *)0)->sun_path) &&
        socket_path_fits(dir) && mkdtemp(dir))
      return dir;
    if (i == 1)
      deja_msg("cannot make a directory for gdb's socket in /tmp: %s", strerror(errno));
    free(dir);
  }
  return NULL;
}

/* -s unix:PATH as gdb is to be given it: absolute (gdb may run elsewhere). NULL
 * (reported) when gdb could not use it. */
static char *server_socket_path(const char *path) {
  char cwd[4096];
  char *abs = path[0] == '/' || !getcwd(cwd, sizeof cwd) ? xasprintf("%s", path)
                                                         : xasprintf("%s/%s", cwd, path);
  if (socket_path_fits(abs))
    return abs;
  deja_msg("cannot listen for gdb on unix:%s: gdb needs a path of under %zu bytes without "
           "`:' (which it reads as HOST:PORT)",
           abs, sizeof(((struct sockaddr_un *)0)->sun_path));
  free(abs);
  return NULL;
}

/* Opens where the debugger connects: -s unix:PATH, -s PORT, or (for the gdb deja starts)
 * a unix socket in a directory of deja's own. 0, or -1 (reported). */
static int open_channel(struct debugger_channel *c, const struct debug_options *o) {
  *c = (struct debugger_channel){.lfd = -1, .port = o->port < 0 ? 0 : o->port};
  if (o->unix_path)
    c->socket = server_socket_path(o->unix_path);
  else if (o->port >= 0)
    return (c->lfd = gdb_listen(&c->port)) < 0 ? -1 : 0;
  else if ((c->dir = make_private_dir()))
    c->socket = xasprintf("%s/gdb.sock", c->dir);
  if (c->socket && (c->lfd = gdb_listen_unix(c->socket)) < 0) {
    free(c->socket);
    c->socket = NULL;
  }
  return c->lfd < 0 ? -1 : 0;
}

/* Closes the listening socket and removes its file, gdb's commands and deja's directory:
 * once gdb is connected (it read the commands before it connected) or gone, no one else
 * is to connect, and a deja killed during the session leaves nothing behind. */
static void close_channel(struct debugger_channel *c) {
  if (c->lfd >= 0)
    close(c->lfd);
  if (c->socket)
    unlink(c->socket);
  if (c->commands)
    unlink(c->commands);
  if (c->dir)
    rmdir(c->dir);
  free(c->socket);
  free(c->commands);
  free(c->dir);
  *c = (struct debugger_channel){.lfd = -1};
}

/* Whether the debugger to start is LLDB (`--debugger lldb-22'), by its name. */
static bool debugger_is_lldb(const char *debugger) {
  const char *base = strrchr(debugger, '/');
  return strncmp(base ? base + 1 : debugger, "lldb", 4) == 0;
}

/* Starts gdb (or LLDB) connected to the socket at SOCKET (gdb with COMMANDS, a file of
 * commands, unless NULL); returns its pid. */
static pid_t start_gdb(const struct debug_options *o, const char *exe, const char *socket,
                       const cpu_set_t *cpus, const char *commands) {
  pid_t deja = getpid();
  pid_t pid = fork();
  if (pid != 0)
    return pid;
  /* A deja killed (even with SIGKILL) takes its gdb along: SIGTERM lets gdb put the
   * terminal back. A deja gone before this line: at once. */
  prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
  if (getppid() != deja)
    _exit(1);
  sched_setaffinity(0, sizeof *cpus, cpus); /* gdb need not share deja's one CPU */
  private_umask_restore();
  bool lldb = debugger_is_lldb(o->debugger);
  char *target = lldb ? xasprintf("process connect --plugin gdb-remote unix-connect://%s", socket)
                      : xasprintf("target extended-remote %s", socket);
  char **argv = xcalloc((size_t)o->ndebugger_args + 10, sizeof *argv);
  int n = 0;
  argv[n++] = (char *)o->debugger;
  if (!lldb)
    argv[n++] = "-q";
  argv[n++] = (char *)exe;
  if (commands && !lldb) {
    argv[n++] = "-x";
    argv[n++] = (char *)commands;
  }
  argv[n++] = lldb ? "-o" : "-ex";
  argv[n++] = target;
  for (int i = 0; i < o->ndebugger_args; i++)
    argv[n++] = o->debugger_args[i];
  execvp(o->debugger, argv);
  deja_msg("cannot start the debugger `%s': %s; use --debugger PATH, or -s PORT to connect one "
           "yourself",
           o->debugger, strerror(errno));
  _exit(127);
}

/* With -s: says where deja listens and the gdb command that connects. */
static void announce_channel(const struct debugger_channel *c, const char *exe) {
  if (c->socket) {
    deja_msg("listening for gdb on unix:%s; connect with:", c->socket);
    deja_msg("  gdb %s -ex 'target extended-remote %s'", exe, c->socket);
    deja_msg("  lldb %s -o 'process connect --plugin gdb-remote unix-connect://%s'", exe,
             c->socket);
  } else {
    deja_msg("listening for gdb on 127.0.0.1:%d; connect with:", c->port);
    deja_msg("  gdb %s -ex 'target extended-remote 127.0.0.1:%d'", exe, c->port);
    deja_msg("  lldb %s -o 'gdb-remote 127.0.0.1:%d'", exe, c->port);
  }
}

/* Waits for gdb to connect: for a connection from deja's own user (gdb_accept_owner
 * refuses others, and deja waits on). Gives up when the gdb deja started has exited (it
 * could not run, or the user quit before it connected). Returns the connection, or -1. */
static int accept_debugger(int lfd, pid_t gdb) {
  fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK); /* a refused peer gone: no wait */
  struct gdb_refusals refusals = {0};
  for (;;) {
    struct pollfd p = {.fd = lfd, .events = POLLIN};
    int n = poll(&p, 1, 200);
    gdb_refusals_flush(&refusals);
    if (n > 0) {
      int fd = gdb_accept_owner(lfd, &refusals);
      if (fd >= 0 || (errno != EACCES && errno != EAGAIN && errno != EWOULDBLOCK &&
                      errno != EINTR && errno != ECONNABORTED && errno != EPROTO))
        return fd;
    }
    if (n < 0 && errno != EINTR)
      return -1;
    if (gdb > 0 && waitpid(gdb, NULL, WNOHANG) == gdb) {
      errno = ECHILD;
      return -1;
    }
  }
}

/* A terminal's Ctrl-C (si_code SI_KERNEL) is gdb's: it interrupts the replay through the
 * protocol. A SIGINT sent to deja by kill ends it like SIGTERM (the replayed tasks die
 * with it, PTRACE_O_EXITKILL; gdb by its parent-death signal). */
static void on_sigint(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  if (si->si_code == SI_KERNEL)
    return;
  signal(sig, SIG_DFL);
  raise(sig); /* delivered once this handler returns */
}

static void catch_sigint(void) {
  struct sigaction sa = {.sa_sigaction = on_sigint, .sa_flags = SA_SIGINFO | SA_RESTART};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
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

/* Serves the debuggers that connect to C: one, or with KEEP (-k, rr's --keep-listening)
 * one after the other until deja is ended, each from where the last left the replay.
 * GDB: the gdb deja started, or -1. Returns deja replay's status so far. */
static int serve_debuggers(struct debugger_channel *c, struct gdb_adapter *a,
                           const struct gdb_target *t, bool keep, pid_t gdb) {
  for (int rc = 0;;) {
    int fd = accept_debugger(c->lfd, gdb);
    if (!keep)
      close_channel(c);
    if (fd < 0) {
      deja_msg("no debugger connected%s", errno == ECHILD ? ": the debugger exited first" : "");
      rc = 1;
    } else if (gdb_serve(fd, t) < 0) {
      rc = 1;
    }
    if (fd >= 0)
      close(fd);
    if (!keep || rc || a->failed) {
      close_channel(c);
      return rc;
    }
    gdb_adapter_next_client(a);
    deja_msg("gdb left; listening for the next one (-k), where the replay is now");
  }
}

int replay_debug_session(const struct replay_options *ro, const struct debug_options *o) {
  struct replay_session s;
  int rc = replay_open(&s, ro, NULL);
  /* -g alone: the timeline replays there, taking its checkpoints on the way (a
   * reverse-continue then starts from them, not from the beginning) */
  bool timeline_goes = (o->goto_event > 1 || o->have_goto_pos) && !o->onprocess;
  if (rc == 0 && !timeline_goes)
    rc = replay_to_start(&s, o);
  struct rptask *first =
      rc == 0 ? (o->onprocess ? engine_task(&s.e, o->onprocess) : s.e.tasks[0]) : NULL;
  struct gdb_adapter *a = xcalloc(1, sizeof *a);
  struct gdb_target t;
  if (rc == 0) {
    gdb_adapter_init(a, &s, ro, first, &t);
    a->query = o->query;
    char err[512];
    if (o->have_goto_pos && gdb_adapter_go_to_pos(a, &o->goto_pos, err, sizeof err) < 0) {
      deja_msg("cannot start the session at that position: %s", err);
      rc = 1;
    } else if (timeline_goes && !o->have_goto_pos && gdb_adapter_run_to(a, o->goto_event - 1) < 0) {
      rc = 1;
    }
  }
  struct debugger_channel c = {.lfd = -1};
  if (rc == 0 && open_channel(&c, o) < 0)
    rc = 1;
  if (rc) {
    close_channel(&c);
    if (first)
      gdb_adapter_detach(a);
    replay_close(&s);
    free(a);
    return rc;
  }
  first = engine_task(&s.e, a->last.tid);
  catch_sigint();
  pid_t gdb = -1;
  if (c.dir) {
    c.commands = write_gdb_commands(c.dir);
    gdb = start_gdb(o, first->exe, c.socket, &s.cpus, c.commands);
  } else {
    announce_channel(&c, first->exe);
  }
  rc = serve_debuggers(&c, a, &t, o->keep_listening, gdb);
  if (gdb > 0)
    waitpid(gdb, NULL, 0);
  if (rc == 0 && a->failed)
    rc = a->failed; /* a divergence under gdb fails `deja replay` too */
  gdb_adapter_detach(a);
  replay_close(&s); /* after the timeline's restarts and checkpoints, which share its tables */
  free(a);
  return rc;
}
