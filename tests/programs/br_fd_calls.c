/* Descriptor and process calls of issue 29: pidfd_open, pidfd_send_signal and
   pidfd_getfd on a child (its pipe end taken over), close_range (plain and
   CLOSE_RANGE_CLOEXEC), F_NOTIFY on a directory (a real-time signal when a file is made
   in it), descriptors shared by threads (one opens, another reads and closes), and prctl
   options set and read back. The child's pid, the random bytes passed through the pipe
   and the signal's siginfo differ from run to run. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static void pidfds(void) {
  int p[2];
  CHECK(pipe(p) == 0);
  pid_t c = fork();
  CHECK(c >= 0);
  if (c == 0) {
    close(p[0]);
    pause(); /* until the pidfd's SIGTERM */
    _exit(1);
  }
  int pfd = (int)syscall(SYS_pidfd_open, c, 0);
  CHECK(pfd >= 0);
  int theirs = (int)syscall(SYS_pidfd_getfd, pfd, p[1], 0); /* the child's copy of p[1] */
  CHECK(theirs >= 0);
  uint64_t r;
  CHECK(getrandom(&r, sizeof r, 0) == sizeof r);
  CHECK(write(theirs, &r, sizeof r) == sizeof r);
  uint64_t back = 0;
  CHECK(read(p[0], &back, sizeof back) == sizeof back);
  CHECK(syscall(SYS_pidfd_send_signal, pfd, SIGTERM, NULL, 0) == 0);
  int st;
  CHECK(waitpid(c, &st, 0) == c);
  printf("pidfd of %d: got its fd, %016llx through it (same %d), SIGTERM %d\n", c,
         (unsigned long long)r, back == r, WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
  close(p[0]), close(p[1]), close(theirs), close(pfd);
}

static void close_ranges(void) {
  int base = dup(1);
  CHECK(base >= 3 && dup2(base, base + 1) == base + 1 && dup2(base, base + 2) == base + 2);
  CHECK(syscall(SYS_close_range, base + 1, base + 2, 4 /* CLOSE_RANGE_CLOEXEC */) == 0);
  printf("close_range: cloexec %d %d\n", fcntl(base + 1, F_GETFD), fcntl(base + 2, F_GETFD));
  CHECK(syscall(SYS_close_range, base, ~0u, 0) == 0);
  SHOW_CALL("after close_range, fcntl", fcntl(base + 2, F_GETFD));
}

static volatile sig_atomic_t notified, notified_fd;
static void on_notify(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)uc;
  notified++;
  notified_fd = si->si_fd;
}

static void dnotify(void) {
  char dir[] = "/tmp/deja-fnotify.XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  struct sigaction sa = {.sa_sigaction = on_notify, .sa_flags = SA_SIGINFO};
  CHECK(sigaction(SIGRTMIN + 1, &sa, NULL) == 0);
  int d = open(dir, O_RDONLY | O_DIRECTORY);
  CHECK(d >= 0 && fcntl(d, F_SETSIG, SIGRTMIN + 1) == 0 && fcntl(d, F_NOTIFY, DN_CREATE) == 0);
  char path[64];
  snprintf(path, sizeof path, "%s/f", dir);
  int f = open(path, O_CREAT | O_WRONLY, 0600);
  CHECK(f >= 0);
  for (int i = 0; i < 1000 && !notified; i++)
    usleep(1000);
  printf("F_NOTIFY: %d signal(s), for the directory's fd %d\n", notified, notified_fd == d);
  close(f), unlink(path), close(d), rmdir(dir);
}

static int shared_fd = -1;
static void *opener(void *arg) {
  (void)arg;
  shared_fd = open("/dev/urandom", O_RDONLY);
  return NULL;
}
static void *reader(void *arg) {
  uint32_t v;
  CHECK(read(shared_fd, &v, sizeof v) == sizeof v && close(shared_fd) == 0);
  *(uint32_t *)arg = v;
  return NULL;
}

static void thread_fds(void) {
  pthread_t a, b;
  uint32_t v = 0;
  CHECK(pthread_create(&a, NULL, opener, NULL) == 0 && pthread_join(a, NULL) == 0);
  CHECK(pthread_create(&b, NULL, reader, &v) == 0 && pthread_join(b, NULL) == 0);
  SHOW_CALL("fd opened by one thread, closed by another; now", fcntl(shared_fd, F_GETFD));
  printf("its bytes: %08x\n", v);
}

static void prctls(void) {
  char name[16] = {0};
  CHECK(prctl(PR_SET_NAME, "br-renamed") == 0 && prctl(PR_GET_NAME, name) == 0);
  int sig = -1;
  CHECK(prctl(PR_SET_PDEATHSIG, SIGUSR2) == 0 && prctl(PR_GET_PDEATHSIG, &sig) == 0);
  printf("prctl: name %s, pdeathsig %d\n", name, sig == SIGUSR2);
  CHECK(prctl(PR_SET_PDEATHSIG, 0) == 0);
  int reaper = -1;
  CHECK(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0 && prctl(PR_GET_CHILD_SUBREAPER, &reaper) == 0);
  printf("prctl: subreaper %d, dumpable %d, keepcaps %d\n", reaper, prctl(PR_GET_DUMPABLE),
         prctl(PR_GET_KEEPCAPS));
  CHECK(prctl(PR_SET_TIMERSLACK, 12345) == 0);
  printf("prctl: timerslack %d, thp disabled %d, capbset(kill) %d\n", prctl(PR_GET_TIMERSLACK),
         prctl(PR_GET_THP_DISABLE), prctl(PR_CAPBSET_READ, 5));
  uint64_t tid_addr = 0;
  SHOW_CALL("prctl: get tid address", prctl(PR_GET_TID_ADDRESS, &tid_addr));
  SHOW_CALL("prctl: unknown option", prctl(0x7fff1234, 0, 0, 0, 0));
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  pidfds();
  close_ranges();
  dnotify();
  thread_fds();
  prctls();
  return 0;
}
