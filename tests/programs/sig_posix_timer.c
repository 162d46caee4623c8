/* timer_create with SIGEV_SIGNAL and a sigev_value; a 50 ms one-shot timer_settime, then
   sigsuspend until it fires. The handler sees si_code SI_TIMER and the value. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include "check.h"

static volatile sig_atomic_t handler_runs;
static volatile int got_code, got_value, got_overrun;

static void on_timer(int signo, siginfo_t *info, void *context) {
  (void)signo;
  (void)context;
  handler_runs++;
  got_code = info->si_code;
  got_value = info->si_value.sival_int;
  got_overrun = info->si_overrun;
}

int main(void) {
  int signo = SIGRTMIN + 1;
  struct sigaction action = {.sa_sigaction = on_timer, .sa_flags = SA_SIGINFO};
  sigemptyset(&action.sa_mask);
  CHECK(sigaction(signo, &action, NULL) == 0);
  sigset_t block, wait_mask;
  sigemptyset(&block);
  sigaddset(&block, signo);
  CHECK(sigprocmask(SIG_BLOCK, &block, &wait_mask) == 0);
  sigdelset(&wait_mask, signo);

  struct sigevent event = {
      .sigev_notify = SIGEV_SIGNAL, .sigev_signo = signo, .sigev_value = {.sival_int = 31337}};
  timer_t timer;
  CHECK(timer_create(CLOCK_MONOTONIC, &event, &timer) == 0);
  struct itimerspec once = {.it_value = {.tv_sec = 0, .tv_nsec = 50 * 1000 * 1000}};
  CHECK(timer_settime(timer, 0, &once, NULL) == 0);
  while (handler_runs == 0) {
    errno = 0;
    CHECK(sigsuspend(&wait_mask) == -1 && errno == EINTR);
  }
  printf("timer fired: handler runs %d si_code %d (SI_TIMER %d) value %d overrun %d\n",
         (int)handler_runs, got_code, SI_TIMER, got_value, got_overrun);
  struct itimerspec left;
  CHECK(timer_gettime(timer, &left) == 0);
  printf("timer disarmed: %d\n", left.it_value.tv_sec == 0 && left.it_value.tv_nsec == 0);
  CHECK(timer_delete(timer) == 0);
  return 0;
}
