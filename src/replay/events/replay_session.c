/* A replay session: the trace cursor, the replayed tasks and the position, driving the
 * per-event handlers one event at a time. */
#include "replay/events/replay_session.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/seccomp.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/inherited_signals.h"
#include "common/line_file.h"
#include "common/log.h"
#include "task/proc_status.h"
#include "common/remove_tree.h"
#include "replay/events/replay_handlers.h"
#include "replay/events/replay_mapfds.h"
#include "replay/events/replay_state_pages.h"
#include "replay/events/replay_sbuf_exec.h"
#include "replay/events/replay_shared.h"
#include "replay/events/replay_syscallbuf.h"
#include "replay/events/state_match.h"
#include "replay/events/replay_tsc.h"
#include "task/cpu_features.h"
#include "task/cpu_pin.h"
#include "task/tsc_patch.h"
#include "trace/trace_files.h"

/* The recorded argv and envp as NULL-terminated arrays pointing into the event. */
static char **exec_vectors(const struct event *ev, char ***envp) {
  char **v = xcalloc(ev->argc + ev->envc + 2, sizeof *v);
  const char *s = ev->strings;
  for (uint32_t i = 0; i < ev->argc + ev->envc; i++) {
    v[i + (i >= ev->argc)] = (char *)s;
    s += strlen(s) + 1;
  }
  *envp = v + ev->argc + 1;
  return v;
}

static int start_program(struct replay_session *s) {
  char check[1024];
  if (trace_files_check(s->e.o->trace_dir, s->e.ev->file, check, sizeof check) < 0) {
    deja_msg("%s", check); /* missing or damaged: the trace is incomplete */
    return REPLAY_BAD_TRACE;
  }
  char *path = xasprintf("%s/files/%s", s->e.o->trace_dir, s->e.ev->file);
  if (access(path, X_OK) < 0) {
    deja_msg("%s: the preserved program is missing or not executable (%s); the trace is incomplete",
             path, strerror(errno));
    free(path);
    return REPLAY_BAD_TRACE;
  }
  env_refusals_decode(&s->e.refusals, s->e.ev->refusals, s->e.ev->refusals_len);
  long mode = 0;
  s->e.outer_filter = proc_status_number(0, "Seccomp", &mode) == 0 && mode == SECCOMP_MODE_FILTER;
  char **envp, **argv = exec_vectors(s->e.ev, &envp);
  /* The signals the recorded program inherited ignored and blocked (none in a trace
   * without the note: the replayed program gets deja's, less its handlers). */
  char note[96];
  uint64_t ignored = 0, blocked = 0;
  bool inherited = line_file_read(s->e.o->trace_dir, INHERITED_SIGNALS_NOTE, note, sizeof note) &&
                   inherited_signals_parse(note, &ignored, &blocked);
  pid_t pid = fork();
  if (pid == 0) {
    personality(ADDR_NO_RANDOMIZE);
    prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core); /* a replayed crash must not write a core file */
    /* The recorded stack limit: where the stack stops growing and the mmap layout. */
    struct rlimit stack = {s->e.ev->stack_rlim_cur, s->e.ev->stack_rlim_max};
    if (setrlimit(RLIMIT_STACK, &stack) < 0) {
      struct rlimit now;
      getrlimit(RLIMIT_STACK, &now); /* a hard limit cannot be raised: the soft one may */
      stack.rlim_max = now.rlim_max;
      if (stack.rlim_cur > now.rlim_max)
        stack.rlim_cur = now.rlim_max;
      setrlimit(RLIMIT_STACK, &stack);
    }
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0)
      dup2(null, 0);
    setpgid(0, 0); /* the terminal's Ctrl-C is for gdb (or deja), not the replayed program */
    raise(SIGSTOP);
    /* traced from here on (the filter's stops need the tracer); without it the library's
     * address-space calls cost stops */
    replay_filter_install();
    if (inherited)
      inherited_signals_set(ignored, blocked);
    execve(path, argv, envp);
    _exit(127);
  }
  free(argv);
  free(path);
  int ws;
  if (pid < 0 || waitpid(pid, &ws, WUNTRACED) < 0 || !WIFSTOPPED(ws)) {
    deja_msg("cannot start the replayed program: %s", strerror(errno));
    return REPLAY_BAD_TRACE;
  }
  long opts = PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC | PTRACE_O_TRACECLONE |
              PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXIT | PTRACE_O_TRACESECCOMP;
  if (ptrace(PTRACE_SEIZE, pid, 0, (void *)opts) < 0) {
    deja_msg("cannot trace the replayed program (ptrace: %s)", strerror(errno));
    kill(pid, SIGKILL);
    return REPLAY_BAD_TRACE;
  }
  kill(pid, SIGCONT);
  struct rptask *x = engine_add_task(&s->e, pid, s->e.ev->tid, pid, s->e.ev->tid);
  for (;;) {
    struct stop st;
    if (task_wait(&x->t, &st) < 0)
      return REPLAY_BAD_TRACE;
    if (st.kind == STOP_EXITED) {
      engine_remove_task(&s->e, x);
      return diverge(&s->e, "the preserved program could not be started");
    }
    if (st.kind == STOP_EVENT && st.event == PTRACE_EVENT_EXEC)
      break;
    task_resume(&x->t, PTRACE_CONT, 0);
  }
  s->e.filtered = x->t.seccomp_traced = replay_filter_active(pid);
  engine_at_exec(x); /* inside execve */
  return replay_apply_exec(&s->e, x);
}

static const struct event_handler *const handlers[] = {
    [EV_SYSCALL] = &replay_syscall_handler, [EV_ENTER] = &replay_enter_handler,
    [EV_INSN] = &replay_insn_handler,       [EV_SIGNAL] = &replay_signal_handler,
    [EV_STATE] = &replay_state_handler,     [EV_EXEC] = &replay_exec_handler,
    [EV_EXIT] = &replay_exit_handler,       [EV_SBUF] = &replay_syscallbuf_handler,
};

/* replay_open, with what the replay's sessions share so far. */
static int open_session(struct replay_session *s, const struct replay_options *o,
                        const struct replay_hooks *hooks, struct replay_shared *shared) {
  memset(s, 0, sizeof *s);
  s->e.o = o;
  s->e.hooks = hooks ? hooks : &replay_autopilot_hooks;
  s->e.shared = shared;
  s->e.printed = &shared->printed;
  s->e.sbuf_pending = syscallbuf_pending_new();
  s->events_path = xasprintf("%s/events", o->trace_dir);
  cpu_bind_replay(o->trace_dir, &s->cpus); /* the replayed program inherits it */
  s->e.tsc_patched = tsc_patch_recorded(o->trace_dir);
  s->e.cur = trace_cursor_open(s->events_path);
  if (!s->e.cur)
    return REPLAY_BAD_TRACE;
  s->e.ev = trace_cursor_event(s->e.cur);
  int n = trace_cursor_next(s->e.cur);
  if (n <= 0) {
    if (n == 0)
      deja_msg("%s holds no events: the recording never started", s->events_path);
    return REPLAY_BAD_TRACE;
  }
  if (s->e.ev->kind != EV_EXEC) {
    deja_msg("%s: the first event is %s, not exec", s->events_path, event_kind_name(s->e.ev->kind));
    return REPLAY_BAD_TRACE;
  }
  s->e.pos = (struct replay_pos){.event = 1, .rec_tid = s->e.ev->tid, .stage = STAGE_DONE};
  s->start_ns = s->done_ns = s->e.ev->time_ns;
  int rc = start_program(s);
  return rc < 0 ? REPLAY_DIVERGED : rc;
}

int replay_open(struct replay_session *s, const struct replay_options *o,
                const struct replay_hooks *hooks) {
  cpu_features_check(o->trace_dir); /* said once, before the first session */
  return open_session(s, o, hooks, xcalloc(1, sizeof(struct replay_shared)));
}

int replay_reopen(struct replay_session *s, const struct replay_options *o,
                  const struct replay_hooks *hooks) {
  struct replay_shared *shared = s->e.shared;
  s->e.shared = NULL; /* kept */
  replay_close(s);
  return open_session(s, o, hooks, shared);
}

/* Reads the next event. 1: there is one (the position is at its start); 0: the end of
 * the replay (reported), with RES filled. */
static int next_event(struct replay_session *s, struct replay_result *res) {
  struct replay_engine *e = &s->e;
  int n = trace_cursor_next(e->cur);
  if (n < 0) {
    res->what = REPLAY_FAILED;
    res->status = REPLAY_BAD_TRACE;
    return 0;
  }
  if (n == 0) {
    s->ended = true;
    replay_syscallbuf_finish(e);
    if (!trace_cursor_complete(e->cur))
      deja_msg("%s ends after event %" PRIu64
               " without an end marker: the recorder was killed; replayed everything it saved",
               s->events_path, e->pos.event);
    else if (e->ntasks)
      deja_msg("%s ends before the program did (after event %" PRIu64
               "); replayed everything it holds",
               s->events_path, e->pos.event);
    res->what = REPLAY_ENDED;
    return 0;
  }
  uint64_t evno = trace_cursor_tell(e->cur);
  if (e->ev->kind == EV_ABORT) {
    s->ended = true;
    replay_syscallbuf_finish(e);
    deja_msg("the recording was stopped at event %" PRIu64 ": %s", evno, e->ev->message);
    deja_msg("replayed everything recorded before it");
    res->what = REPLAY_ENDED;
    return 0;
  }
  e->pos = (struct replay_pos){.event = evno, .rec_tid = e->ev->tid, .stage = STAGE_BEGUN};
  return 1;
}

/* Goes on with the event at the position: its handler's steps from where it got to.
 * 0 (done), REPLAY_STOPPED, or a failure. */
static int replay_event(struct replay_engine *e) {
  struct rptask *x = engine_task(e, e->ev->tid);
  if (!x)
    return diverge(e, "the trace names task %d, which does not exist in the replay", e->ev->tid);
  if ((size_t)e->ev->kind >= sizeof handlers / sizeof *handlers || !handlers[e->ev->kind])
    return diverge(e, "unexpected %s event", event_kind_name(e->ev->kind));
  const struct event_handler *h = handlers[e->ev->kind];
  struct stop st = {.kind = STOP_GROUP};
  int rc;
  if (e->pos.stage == STAGE_BEGUN) {
    if (h->begin && (rc = h->begin(e, x)) != 0)
      return rc;
    e->pos.stage = STAGE_RUNNING;
  }
  if (h->run) {
    while ((rc = h->run(e, x, &st)) == REPLAY_AGAIN) {
    }
    if (rc)
      return rc; /* REPLAY_STOPPED leaves the stage at STAGE_RUNNING */
  }
  if (h->complete && (rc = h->complete(e, x, &st)) != 0)
    return rc;
  e->pos.stage = STAGE_DONE;
  return 0;
}

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}

void replay_step(struct replay_session *s, struct replay_result *res) {
  struct replay_engine *e = &s->e;
  memset(res, 0, sizeof *res);
  if (s->ended) {
    res->what = REPLAY_ENDED;
    return;
  }
  if (e->pos.stage == STAGE_DONE && !next_event(s, res))
    return;
  res->event = e->pos.event;
  res->kind = e->ev->kind;
  res->rec_tid = e->ev->tid;
  res->ends_step =
      e->ev->kind != EV_ENTER && !(e->ev->kind == EV_SBUF && !(e->ev->flags & EVF_SBUF_INIT));
  int64_t t0 = e->ev->kind == EV_STATE ? now_ns() : 0;
  int rc = replay_event(e);
  if (rc == 0)
    rc = replay_syscallbuf_check(e);
  if (e->ev->kind == EV_STATE) {
    s->state_ns += now_ns() - t0;
    s->states += rc == 0;
  }
  if (rc == 0) {
    res->what = REPLAY_EVENT_DONE;
    s->done_ns = e->ev->time_ns;
  } else if (rc == REPLAY_STOPPED) {
    res->what = REPLAY_STOP;
    res->stop = e->stop;
  } else {
    res->what = REPLAY_FAILED;
    res->status = rc == REPLAY_BAD_TRACE ? REPLAY_BAD_TRACE : REPLAY_DIVERGED;
    s->ended = true;
  }
}

struct rptask *replay_current_task(struct replay_session *s) {
  return s->e.ev && !s->ended ? engine_task(&s->e, s->e.ev->tid) : NULL;
}

void replay_close(struct replay_session *s) {
  struct replay_engine *e = &s->e;
  if (getenv("DEJA_STATS"))
    deja_msg("stats: %" PRIu64 " events, %" PRIu64 " state points restored in %.3f s", e->pos.event,
             s->states, s->state_ns / 1e9);
  engine_kill_all(e);
  free(e->tasks);
  free(e->dead);
  free(e->gone);
  state_pages_free(e->state_pages);
  syscallbuf_pending_free(e->sbuf_pending);
  state_match_start_free(e->match_start);
  if (e->shared) {
    replay_tsc_free(e->shared);
    replay_shm_free(e->shared);
    free(e->shared);
  }
  replay_mapfds_free(e);
  if (e->shared_dir) {
    char err[512];
    if (remove_tree(e->shared_dir, err, sizeof err) < 0)
      deja_msg("%s", err);
    free(e->shared_dir);
  }
  trace_cursor_close(e->cur);
  free(s->events_path);
  sched_setaffinity(0, sizeof s->cpus, &s->cpus);
}

int replay_run(const struct replay_options *o) {
  struct replay_session s;
  int rc = replay_open(&s, o, NULL);
  struct replay_result res = {.what = REPLAY_EVENT_DONE};
  while (rc == 0 && res.what == REPLAY_EVENT_DONE)
    replay_step(&s, &res);
  if (rc == 0 && res.what == REPLAY_FAILED)
    rc = res.status;
  if (rc == REPLAY_DIVERGED && getenv("DEJA_DEBUG")) {
    struct rptask *x = engine_task(&s.e, s.e.pos.rec_tid);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "cat /proc/%d/maps >&2", x ? x->t.tid : 0);
    if (x && system(cmd)) {
    }
  }
  replay_close(&s);
  return rc;
}
