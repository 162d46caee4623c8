/* Executions of one instruction counted by a perf breakpoint event (see exec_counter.h). */
#include "replay/stops/exec_counter.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "task/hw_caps.h"
#include "task/proc_status.h"

/* Some hypervisors open the event but never count: asked once (hw_caps.h), and the
 * kernel's refusal noted there (it will say no again). */
static bool counts_here(void) { return hw_perf_breakpoints_count(); }

bool exec_counter_usable(void) { return counts_here(); }

/* Whether TID blocks SIG (its mask changes only in system calls, so it holds for a whole
 * stretch of user code). */
static bool blocks(pid_t tid, int sig) {
  uint64_t mask;
  if (proc_status_mask(tid, "SigBlk", &mask) < 0)
    return true; /* unknown: as if blocked, so no counter relies on its signal */
  return mask & (1ull << (sig - 1));
}

/* The perf event on TID for ADDR, an overflow at PERIOD (0: none); SIGNAL: the signal at
 * the overflow, else the event disables itself there. */
static int open_counter(struct exec_counter *c, pid_t tid, uint64_t addr, uint64_t period,
                        bool signal) {
  c->fd = -1;
  c->period = period;
  if (!counts_here() || (signal && blocks(tid, EXEC_COUNTER_SIGNAL)))
    return -1;
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_BREAKPOINT;
  a.bp_type = HW_BREAKPOINT_X;
  a.bp_addr = addr;
  a.bp_len = sizeof(long);
  a.sample_period = period;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  a.wakeup_events = 1;
  int fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOSPC && errno != EBUSY) /* not: the debug registers are taken */
      hw_perf_breakpoints_refused();
    return -1;
  }
  struct f_owner_ex owner = {F_OWNER_TID, tid};
  if (signal && (fcntl(fd, F_SETOWN_EX, &owner) < 0 ||
                 fcntl(fd, F_SETSIG, EXEC_COUNTER_SIGNAL) < 0 || fcntl(fd, F_SETFL, O_ASYNC) < 0)) {
    close(fd);
    hw_perf_breakpoints_refused();
    return -1;
  }
  /* an event limit of one overflow: the event disables itself there */
  if (period && !signal && ioctl(fd, PERF_EVENT_IOC_REFRESH, 1) < 0) {
    close(fd);
    return -1;
  }
  c->fd = fd;
  return 0;
}

int exec_counter_start(struct exec_counter *c, pid_t tid, uint64_t addr, uint64_t period) {
  return open_counter(c, tid, addr, period, period != 0);
}

int exec_counter_start_capped(struct exec_counter *c, pid_t tid, uint64_t addr, uint64_t cap) {
  return open_counter(c, tid, addr, cap, false);
}

uint64_t exec_counter_read(const struct exec_counter *c) {
  uint64_t n = 0;
  if (c->fd >= 0 && read(c->fd, &n, sizeof n) != (ssize_t)sizeof n)
    n = 0;
  return n;
}

bool exec_counter_is_signal(const struct exec_counter *c, int sig, const siginfo_t *si) {
  return c->fd >= 0 && sig == EXEC_COUNTER_SIGNAL && si->si_code == POLL_IN && si->si_fd == c->fd;
}

void exec_counter_stop(struct exec_counter *c) {
  if (c->fd >= 0)
    close(c->fd);
  c->fd = -1;
}
