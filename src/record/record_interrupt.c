/* Signals sent to deja itself while it records (recorder.h): SIGINT, SIGTERM and SIGHUP
 * go on to the program; a second one soon after asks the recording to stop; a third ends
 * deja at once. */
#include <signal.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#include "record/recorder.h"

static volatile pid_t forward_pid;
static volatile sig_atomic_t signal_received;
static volatile sig_atomic_t stop_signal;
static struct timespec last_forward; /* when a signal last went on to the program */

/* What a second signal within this time of the first does: ends the recording. */
#define STOP_WINDOW_S 5

static bool within_stop_window(const struct timespec *now) {
  if (!last_forward.tv_sec && !last_forward.tv_nsec)
    return false;
  long ms = (now->tv_sec - last_forward.tv_sec) * 1000L +
            (now->tv_nsec - last_forward.tv_nsec) / 1000000L;
  return ms < STOP_WINDOW_S * 1000L;
}

/* Ends deja at once (async-signal-safe): the recorded processes die with it (they are
 * traced with PTRACE_O_EXITKILL), the trace ends where it was last written. */
static void stop_at_once(int sig) {
  static const char msg[] = "deja: stopped at once by a third signal; the trace replays up to "
                            "what was written last\n";
  ssize_t n = write(2, msg, sizeof msg - 1);
  (void)n;
  _exit(128 + sig);
}

/* SIGINT/SIGTERM/SIGHUP sent to deja itself go on to the program. A terminal's Ctrl-C
 * (si_code SI_KERNEL) already reaches the program through its process group. A second
 * one within STOP_WINDOW_S seconds (as timeout(1), CI runners and impatient users send)
 * asks the recording to stop (record_stop_signal); a third ends deja at once. */
static void forward_signal(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  signal_received = sig;
  if (forward_pid <= 0)
    return;
  if (stop_signal)
    stop_at_once(sig);
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  if (within_stop_window(&now)) {
    stop_signal = sig;
    return;
  }
  last_forward = now;
  if (si->si_code != SI_KERNEL)
    kill(forward_pid, sig);
}

void record_catch_signals(void) {
  struct sigaction sa = {.sa_sigaction = forward_signal, .sa_flags = SA_SIGINFO | SA_RESTART};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
}

int record_signal_received(void) {
  int sig = signal_received;
  signal_received = 0;
  return sig;
}

int record_stop_signal(void) { return stop_signal; }

void record_forward_signals(pid_t pid) {
  if (pid > 0) {
    last_forward = (struct timespec){0};
    stop_signal = 0;
  }
  forward_pid = pid;
  if (pid > 0)
    record_catch_signals();
}
