/* The ignored and blocked signals deja inherited (inherited_signals.h). */
#include "common/inherited_signals.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>

static uint64_t saved_ignored, saved_blocked;

void inherited_signals_save(void) {
  sigset_t mask;
  sigprocmask(SIG_SETMASK, NULL, &mask);
  for (int sig = 1; sig <= 64; sig++) {
    struct sigaction sa;
    if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
      saved_ignored |= 1ull << (sig - 1);
    if (sigismember(&mask, sig) == 1)
      saved_blocked |= 1ull << (sig - 1);
  }
}

void inherited_signals_text(char *buf, size_t len) {
  snprintf(buf, len, "ignored %#" PRIx64 " blocked %#" PRIx64 "\n", saved_ignored, saved_blocked);
}

bool inherited_signals_parse(const char *text, uint64_t *ignored, uint64_t *blocked) {
  return sscanf(text, "ignored %" SCNx64 " blocked %" SCNx64, ignored, blocked) == 2;
}

void inherited_signals_set(uint64_t ignored, uint64_t blocked) {
  sigset_t mask;
  sigemptyset(&mask);
  for (int sig = 1; sig <= 64; sig++) {
    if (sig == SIGKILL || sig == SIGSTOP)
      continue;
    /* A handler of deja's becomes the default action at exec; SIG_IGN stays. (glibc's
     * own signals refuse both: harmless.) */
    signal(sig, (ignored >> (sig - 1)) & 1 ? SIG_IGN : SIG_DFL);
    if ((blocked >> (sig - 1)) & 1)
      sigaddset(&mask, sig);
  }
  sigprocmask(SIG_SETMASK, &mask, NULL);
}

void inherited_signals_restore(void) { inherited_signals_set(saved_ignored, saved_blocked); }
