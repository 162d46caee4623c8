/* Usage texts (SPEC.md "Commands") and `deja help [COMMAND]`. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "common/log.h"

static const char overview_usage[] =
    "Usage: deja COMMAND [OPTION...] [ARG...]\n"
    "\n"
    "deja records a run of a Linux program (a whole tree of processes and threads) once\n"
    "and replays that exact execution as often as needed, under gdb, forwards and\n"
    "backwards.\n"
    "\n"
    "Commands:\n"
    "  deja record [OPTIONS] [--] PROGRAM [ARG...]    record a run of PROGRAM\n"
    "  deja replay [OPTIONS] [TRACE] [-- DEBUGGER-ARG...]\n"
    "                             replay a trace under gdb (or to the end with -a)\n"
    "  deja query [OPTIONS] [TRACE] writes EXPR | calls FUNCTION | output TEXT\n"
    "                             every write, call or printing system call of the\n"
    "                             whole recording\n"
    "  deja dump [TRACE]          one line per recorded event\n"
    "  deja ps [TRACE]            PID PPID EXIT CMD, one line per recorded process\n"
    "  deja ls [DIR] [-t] [-r]    the traces in the trace directory, newest last\n"
    "  deja rm TRACE              delete a trace\n"
    "  deja pack [TRACE]          make a trace self-contained and movable to another\n"
    "                             machine\n"
    "  deja gdbinit               the gdb commands deja replay gives gdb, for a gdb\n"
    "                             another tool starts\n"
    "  deja caps                  what this machine lets deja use (debug registers,\n"
    "                             perf breakpoints, rdtsc trapping)\n"
    "  deja help [COMMAND]        this text, or the usage and options of COMMAND\n"
    "  deja --version             print the version\n"
    "\n"
    "TRACE is a trace directory path, or a trace name inside the trace directory.\n"
    "Without TRACE a command uses the latest trace.\n"
    "\n"
    "Trace directory: $DEJA_TRACE_DIR, else $XDG_DATA_HOME/deja, else\n"
    "~/.local/share/deja. Each recording gets a directory PROGRAM-N there (N counting\n"
    "up from 0, mode 0700: a trace holds the program's memory and inputs), and the\n"
    "symlink `latest-trace' beside them names the newest.\n"
    "\n"
    "Exit status:\n"
    "  record  the recorded program's exit status, 128+N when it was killed by signal N,\n"
    "          70 when deja itself failed (the trace so far stays replayable)\n"
    "  replay  0 when the replay reached the end faithfully, 3 when it diverged,\n"
    "          1 for usage errors and unreadable or corrupt traces\n"
    "  others  0 on success, 1 for usage errors and unreadable traces\n"
    "\n"
    "deja's own messages go to stderr, prefixed `deja: '.\n"
    "Run `deja help COMMAND` or `deja COMMAND --help` for the options of a command.\n";

static const char record_usage[] =
    "Usage: deja record [OPTIONS] [--] PROGRAM [ARG...]\n"
    "\n"
    "Runs PROGRAM with ARGs and records its execution, and that of every process and\n"
    "thread it starts, into a new trace directory. The program gets deja's stdin,\n"
    "stdout, stderr, environment and working directory.\n"
    "\n"
    "Options:\n"
    "  -o, --output-trace-dir DIR  write the trace exactly at DIR, which must not exist\n"
    "                              (latest-trace is not changed)\n"
    "  -n, --no-syscall-buffer     stop at every system call instead of recording the\n"
    "                              common ones in-process (slower; for diagnosing deja)\n"
    "      --syscall-buffer        record the common ones in-process (the default;\n"
    "                              DEJA_SYSCALL_BUFFER=0 in the environment turns it off)\n"
    "  -j, --cpus N                record on at most N of the CPUs deja may use at once\n"
    "                              (default: all of them; 1 records as rr does); threads\n"
    "                              of one process, and processes sharing writable memory,\n"
    "                              run one at a time\n"
    "  -h, --chaos                 chaos mode: make rare interleavings, starvation and\n"
    "                              timeouts happen while recording (random thread\n"
    "                              priorities and time slices, threads kept off the\n"
    "                              CPU for 1 ms to 2 s, a random CPU count of 1-8,\n"
    "                              random mmap addresses); its traces replay as others\n"
    "      --until-failure[=N]     record again and again, at most N times (default\n"
    "                              1000), until the program fails (non-zero exit or a\n"
    "                              signal); the passing runs' traces are deleted, the\n"
    "                              failing one is kept as the latest; prints how many\n"
    "                              runs it took and exits with the failing status (0 when\n"
    "                              none failed). With -h: how a flaky test becomes a trace\n"
    "      --env NAME=VALUE        set an environment variable for the program\n"
    "      --help                  show this text\n"
    "\n"
    "Signals: Ctrl-C reaches the program as it would without deja; SIGINT, SIGTERM and\n"
    "SIGHUP sent to deja are passed on to the program. A second one within 5 seconds\n"
    "ends the recording: deja kills the recorded processes (daemons included) and exits\n"
    "128+N; a third ends deja at once. Whatever ends the program or the recording, the\n"
    "trace is complete up to that point and replays.\n"
    "With --until-failure they also stop the repetition: the interrupted run's trace is\n"
    "deleted and deja exits with 128+N.\n"
    "\n"
    "Exit status: the program's own exit status; 128+N when it was killed by signal N;\n"
    "70 when deja itself failed (a message names the cause; the trace so far replays).\n";

static const char replay_usage[] =
    "Usage: deja replay [OPTIONS] [TRACE] [-- DEBUGGER-ARG...]\n"
    "\n"
    "Replays TRACE (default: the latest trace) under gdb, stopped at the start of the\n"
    "first process's program. Arguments after `--' go to gdb. What the recorded\n"
    "processes wrote to stdout and stderr is written again, in the same order.\n"
    "\n"
    "Options:\n"
    "  -a, --autopilot        replay to the end without a debugger\n"
    "  -s, --dbgport PORT     serve the gdb remote protocol on 127.0.0.1:PORT and print\n"
    "                         the gdb command that connects to it, instead of starting gdb\n"
    "                         (PORT 0: any free port)\n"
    "  -s, --dbgport unix:PATH  the same on a unix socket at PATH (which must not\n"
    "                         exist; made 0600, removed once gdb has connected): gdb\n"
    "                         connects with `target extended-remote PATH', lldb with\n"
    "                         `process connect --plugin gdb-remote\n"
    "                         unix-connect://PATH'\n"
    "  -g, --goto EVENT       start debugging at event number EVENT (as `deja dump'\n"
    "                         numbers them)\n"
    "  -g, --goto POS         start debugging at a position `deja query' printed (its\n"
    "                         pos): just before a write, at a call's first\n"
    "                         instruction, at a system call's entry\n"
    "  -p, --onprocess PID    debug the process that had PID during recording, from\n"
    "                         the fork that made it\n"
    "  -f, --onfork PID       the same (rr's name)\n"
    "  -h, --dbghost HOST     with -s: the address to serve on, 127.0.0.1 or\n"
    "                         localhost (deja serves this machine only)\n"
    "  -k, --keep-listening   with -s: once gdb leaves, serve the next gdb that\n"
    "                         connects, from where the replay is, until deja is ended\n"
    "  -q, --quiet            do not reproduce the program's output\n"
    "      --debugger PATH    the debugger to start (default: gdb; a name starting\n"
    "                         with lldb, such as lldb-22, starts LLDB connected)\n"
    "      --help             show this text\n"
    "\n"
    "A replay is private to the user who runs deja: the gdb deja starts connects\n"
    "through a unix socket in a directory of deja's own (mode 0700, in $TMPDIR or\n"
    "/tmp, removed once gdb has connected), and with -s only connections from deja's\n"
    "own user are served (the peer's uid: SO_PEERCRED on a unix socket, the owner of\n"
    "the client's socket in /proc/net/tcp or tcp6 on TCP). A connection from another\n"
    "user is closed at once, said so on stderr (its uid and address; after three, at\n"
    "most once a second, with a count), and deja waits on.\n"
    "\n"
    "Signals: Ctrl-C in gdb's terminal is gdb's (it stops the replay). SIGINT sent by\n"
    "kill, SIGTERM, SIGHUP and SIGKILL end deja, the replayed processes and the gdb it\n"
    "started.\n"
    "\n"
    "Exit status: 0 when the replay reached the end of the trace faithfully; 3 when it\n"
    "diverged (a message names the event, the task, what was expected and what was\n"
    "found); 1 for usage errors and unreadable or corrupt traces.\n"
    "\n"
    "Tools made for rr (VS Code's Midas) drive deja as rr: their rr path set to deja,\n"
    "they run `deja ls', `deja ps', `deja gdbinit' and `deja replay -h 127.0.0.1 -s\n"
    "PORT -p PID -k TRACE', and send rr's qRRCmd packets (checkpoint, info\n"
    "checkpoints, delete checkpoint, when, when-ticks, when-tid, elapsed-time).\n";

static const char query_usage[] =
    "Usage: deja query [OPTIONS] [TRACE] writes EXPR\n"
    "       deja query [OPTIONS] [TRACE] calls FUNCTION\n"
    "       deja query [OPTIONS] [TRACE] output TEXT\n"
    "\n"
    "Answers a question about the whole recording TRACE (default: the latest trace) in\n"
    "one forward replay per recorded process, in recording order:\n"
    "  writes EXPR      every write to EXPR's bytes (a write of the value already there\n"
    "                   counts): EXPR is a global or static variable's name, with\n"
    "                   members and constant indexes (s.a[2].b; size and type from\n"
    "                   the debug information), or ADDR[:LEN] (hex address, length in\n"
    "                   bytes, default 8); old and new value\n"
    "  calls FUNCTION   every call of FUNCTION (in the program or a library it loads,\n"
    "                   or at 0xADDR): the caller, the arguments (by name and type with\n"
    "                   debug information, the ABI's registers otherwise), the return\n"
    "  output TEXT      the system calls that wrote TEXT to stdout or stderr, with the\n"
    "                   writing thread's backtrace\n"
    "Each result has a position POS: `deja replay -g POS' (or `monitor goto POS' in\n"
    "gdb) stops there, just before the writing instruction, at the call's first\n"
    "instruction, at the entry of the system call.\n"
    "\n"
    "Options:\n"
    "      --json             one JSON object a line instead of a table\n"
    "      --pid PID          only the process that had PID during recording\n"
    "      --limit N          at most N results\n"
    "      --from POS         only results at or after POS (or event number N)\n"
    "      --to POS           only results at or before POS (or event number N)\n"
    "      --help             show this text\n"
    "Options may follow the question too; a TEXT starting with `-' follows `--'.\n"
    "\n"
    "Progress goes to stderr (when it is a terminal) for queries longer than a second.\n"
    "\n"
    "Exit status: 0 (also with no results); 2 for an unknown symbol or an expression\n"
    "deja cannot type (the message says what to pass instead); 1 for usage errors and\n"
    "unreadable traces. A query never changes the trace.\n";

static const char dump_usage[] =
    "Usage: deja dump [TRACE]\n"
    "\n"
    "Prints one line per recorded event of TRACE (default: the latest trace). The event\n"
    "numbers are the ones `deja replay --goto' takes.\n"
    "\n"
    "Exit status: 0, or 1 for usage errors and unreadable traces.\n";

static const char ps_usage[] =
    "Usage: deja ps [TRACE]\n"
    "\n"
    "Prints the processes recorded in TRACE (default: the latest trace), one per line:\n"
    "PID PPID EXIT CMD. The PIDs are the ones `deja replay --onprocess' takes.\n"
    "\n"
    "Exit status: 0, or 1 for usage errors and unreadable traces.\n";

static const char ls_usage[] =
    "Usage: deja ls [DIR] [-t] [-r]\n"
    "\n"
    "Lists the traces in the trace directory ($DEJA_TRACE_DIR, else\n"
    "$XDG_DATA_HOME/deja, else ~/.local/share/deja), or in DIR, one name per line,\n"
    "newest last. -t lists the newest first, -r the other way round (-t -r: newest\n"
    "last), as rr's ls takes them.\n"
    "\n"
    "Exit status: 0, or 1 for usage errors and an unreadable trace directory.\n";

static const char gdbinit_usage[] =
    "Usage: deja gdbinit\n"
    "\n"
    "Prints the gdb commands deja replay gives the gdb it starts (rr's checkpoint,\n"
    "info checkpoints, delete checkpoint, restart N, when, when-ticks, when-tid,\n"
    "elapsed-time, info recording), for a gdb another tool starts and connects to\n"
    "`deja replay -s PORT' (source it: `gdb -x FILE'). Tools made for rr (VS Code's\n"
    "Midas) run it as `rr gdbinit'.\n"
    "\n"
    "Exit status: 0, or 1 for usage errors.\n";

static const char rm_usage[] =
    "Usage: deja rm TRACE\n"
    "\n"
    "Deletes TRACE (a trace directory path or a trace name in the trace directory).\n"
    "Directories that are not deja traces are refused. When latest-trace named TRACE,\n"
    "it is pointed at the newest remaining trace.\n"
    "\n"
    "Exit status: 0, or 1 for usage errors and when TRACE is not a trace or cannot be\n"
    "deleted.\n";

static const char pack_usage[] =
    "Usage: deja pack [TRACE]\n"
    "\n"
    "Makes TRACE (default: the latest trace) self-contained, so it can be moved to\n"
    "another machine and replayed there. A trace holds a copy of every file mapped\n"
    "during the recording, but shares them with the other traces of its directory\n"
    "(hard links into DIR/.deja-store); pack gives it copies of its own.\n"
    "\n"
    "Exit status: 0, or 1 for usage errors and unreadable traces.\n";

static const char caps_usage[] =
    "Usage: deja caps\n"
    "\n"
    "Probes this machine and prints one `NAME: yes|no' line for each processor feature\n"
    "deja uses when it can:\n"
    "  debug-registers   hardware watchpoints and execution breakpoints\n"
    "  watchpoints       gdb's watch, rwatch and awatch in a replay, forwards and\n"
    "                    backwards: the debug registers, or page protection\n"
    "  page-watchpoints  the watchpoints are emulated by page protection (the debug\n"
    "                    registers do not work): a watch on a busy page is slower\n"
    "  perf-breakpoints  counting executions of an instruction in the kernel; without\n"
    "                    it reverse execution stops at each execution instead (slower)\n"
    "  rdtsc-trap        PR_SET_TSC makes rdtsc fault; without it deja patches the\n"
    "                    rdtsc instructions of the recorded program into traps\n"
    "Some hypervisors (PVM) accept the settings for all three and never act on them.\n"
    "\n"
    "Exit status: 0.\n";

static const char help_usage[] =
    "Usage: deja help [COMMAND]\n"
    "\n"
    "Prints the overview of deja's commands, or the usage and options of COMMAND.\n";

struct usage {
  const char *command;
  const char *text;
};

static const struct usage usages[] = {
    {"record", record_usage}, {"replay", replay_usage},   {"dump", dump_usage},
    {"ps", ps_usage},         {"ls", ls_usage},           {"rm", rm_usage},
    {"pack", pack_usage},     {"caps", caps_usage},       {"help", help_usage},
    {"query", query_usage},   {"gdbinit", gdbinit_usage},
};

int print_usage(FILE *f, const char *command) {
  if (!command) {
    fputs(overview_usage, f);
    return 0;
  }
  for (size_t i = 0; i < sizeof(usages) / sizeof(usages[0]); i++) {
    if (strcmp(usages[i].command, command) == 0) {
      fputs(usages[i].text, f);
      return 0;
    }
  }
  return 1;
}

bool unknown_option(const char *command, const char *arg) {
  if (!arg || arg[0] != '-' || !arg[1])
    return false;
  deja_msg("%s: unknown option `%s'", command, arg);
  fputc('\n', stderr);
  print_usage(stderr, command);
  return true;
}

int cmd_help(int argc, char **argv) {
  if (argc > 2) {
    deja_msg("help takes at most one COMMAND");
    fputc('\n', stderr);
    print_usage(stderr, "help");
    return 1;
  }
  const char *command = argc == 2 ? argv[1] : NULL;
  if (command && (strcmp(command, "--version") == 0 || strcmp(command, "version") == 0))
    command = NULL;
  else if (command && (strcmp(command, "-h") == 0 || strcmp(command, "--help") == 0))
    command = "help";
  if (print_usage(stdout, command) != 0) {
    deja_msg("unknown command `%s'", command);
    fputc('\n', stderr);
    print_usage(stderr, NULL);
    return 1;
  }
  return 0;
}
