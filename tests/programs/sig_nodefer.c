/* SA_NODEFER: the handler re-raises its own signal once from inside itself, and the nested
   delivery runs immediately (the signal is not blocked while its handler runs). Without
   SA_NODEFER the re-raised signal stays pending until the handler returns. */
#include <signal.h>
#include <stdio.h>
#include "check.h"

#define MAX_EVENTS 16

static volatile sig_atomic_t depth;
static char events[MAX_EVENTS + 1];
static volatile sig_atomic_t event_count;

static void note(char event) {
  if (event_count < MAX_EVENTS)
    events[event_count++] = event;
}

/* Records '<' on entry and '>' on exit, so nesting shows as "<<>>", deferral as "<><>". */
static void on_signal(int signo) {
  note('<');
  depth++;
  if (depth == 1)
    raise(signo);
  note('>');
}

static void run(const char *label, int signo, int flags) {
  struct sigaction action = {.sa_handler = on_signal, .sa_flags = flags};
  sigemptyset(&action.sa_mask);
  CHECK(sigaction(signo, &action, NULL) == 0);
  depth = 0;
  event_count = 0;
  CHECK(raise(signo) == 0);
  events[event_count] = '\0';
  printf("%s: handler entries %d order %s\n", label, (int)depth, events);
}

int main(void) {
  run("SA_NODEFER", SIGUSR1, SA_NODEFER);
  run("default (deferred)", SIGUSR2, 0);
  return 0;
}
