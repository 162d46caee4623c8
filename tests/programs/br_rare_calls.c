/* Calls ordinary programs rarely make, each with harmless arguments: the program sees
   the kernel's answer (or the errno an unprivileged program gets) and goes on. Prints
   values that differ per run (the clock in struct timex, a new key's serial). */
#include <errno.h>
#include <linux/keyctl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif

int main(void) {
  struct timex tx;
  memset(&tx, 0, sizeof tx);
  long st = syscall(SYS_adjtimex, &tx);
  printf("adjtimex: state %ld, clock read %s\n", st, tx.time.tv_sec > 0 ? "yes" : "no");
  printf("adjtimex time: %ld.%06ld\n", (long)tx.time.tv_sec, (long)tx.time.tv_usec);
  memset(&tx, 0, sizeof tx);
  SHOW_CALL("clock_adjtime(CLOCK_REALTIME, read)", syscall(SYS_clock_adjtime, CLOCK_REALTIME, &tx));
  struct timespec bad = {0, 0};
  SHOW_CALL("clock_settime(bad clock)", syscall(SYS_clock_settime, 12345, &bad));
  SHOW_CALL("syslog(SIZE_BUFFER)", syscall(SYS_syslog, 10, NULL, 0) > 0);
  char fsname[256] = "";
  long nfs = syscall(SYS_sysfs, 3);
  printf("sysfs: %s\n", nfs > 0 ? "has filesystem types" : "none");
  if (nfs > 0 && syscall(SYS_sysfs, 2, 0, fsname) == 0)
    printf("sysfs first type: %s\n", fsname);
  SHOW_CALL("_sysctl", syscall(SYS__sysctl, NULL));
  SHOW_CALL("set_mempolicy(MPOL_DEFAULT)", syscall(SYS_set_mempolicy, 0, NULL, 0));
  SHOW_CALL("mbind(bad range)", syscall(SYS_mbind, 1, 4096, 0, NULL, 0, 0));
  char ldt[16];
  SHOW_CALL("modify_ldt(read)", syscall(SYS_modify_ldt, 0, ldt, sizeof ldt));
  SHOW_CALL("iopl(3)", syscall(SYS_iopl, 3));
  SHOW_CALL("ioperm", syscall(SYS_ioperm, 0x80, 1, 1));
  SHOW_CALL("bpf", syscall(SYS_bpf, 0, NULL, 0));
  SHOW_CALL("quotactl(bad)", syscall(SYS_quotactl, 0, "/nonexistent", 0, NULL));
  SHOW_CALL("mount(missing target)",
            syscall(SYS_mount, "none", "/nonexistent/deja", "tmpfs", 0, NULL));
  SHOW_CALL("umount2(missing)", syscall(SYS_umount2, "/nonexistent/deja", 0));
  SHOW_CALL("acct(missing file)", syscall(SYS_acct, "/nonexistent/deja/acct"));
  SHOW_CALL("landlock version", syscall(SYS_landlock_create_ruleset, NULL, 0, 1));
  SHOW_CALL("unshare(0)", syscall(SYS_unshare, 0));
  SHOW_CALL("setns(bad fd)", syscall(SYS_setns, -1, 0));
  SHOW_CALL("ptrace(PEEKDATA, parent)", syscall(SYS_ptrace, 2, getppid(), 0, NULL));

  /* Keys: a key in the process keyring, read back. */
  long key = syscall(SYS_add_key, "user", "deja-test", "payload-42", 10, KEY_SPEC_PROCESS_KEYRING);
  if (key >= 0) {
    char buf[64] = "";
    long n = syscall(SYS_keyctl, KEYCTL_READ, key, buf, sizeof buf - 1);
    printf("key read: %ld bytes: %s\n", n, n > 0 ? buf : "");
    printf("key serial: %ld\n", key);
  } else {
    printf("add_key: errno %d\n", errno);
  }

  /* A software performance counter on the program itself. */
  struct perf_event_attr pa;
  memset(&pa, 0, sizeof pa);
  pa.size = sizeof pa;
  pa.type = PERF_TYPE_SOFTWARE;
  pa.config = PERF_COUNT_SW_TASK_CLOCK;
  pa.exclude_kernel = 1;
  pa.exclude_hv = 1;
  long pfd = syscall(SYS_perf_event_open, &pa, 0, -1, -1, 0);
  if (pfd >= 0) {
    volatile unsigned long spin = 0;
    for (int i = 0; i < 1000000; i++)
      spin += (unsigned long)i;
    unsigned long long count = 0;
    CHECK(read((int)pfd, &count, sizeof count) == sizeof count);
    printf("perf task clock counted: %s (%llu ns)\n", count > 0 ? "yes" : "no", count);
    close((int)pfd);
  } else {
    printf("perf_event_open: errno %d\n", errno);
  }

  /* Reading and writing its own memory through process_vm_readv/writev. */
  char src[32] = "copied through the kernel", dst[32] = "";
  struct iovec l = {dst, sizeof dst}, rv = {src, sizeof src};
  SHOW_CALL("process_vm_readv(self)", syscall(SYS_process_vm_readv, getpid(), &l, 1, &rv, 1, 0));
  printf("read back: %s\n", dst);
  char msg[] = "written by process_vm_writev";
  struct iovec wl = {msg, sizeof msg}, wr = {dst, sizeof msg};
  SHOW_CALL("process_vm_writev(self)", syscall(SYS_process_vm_writev, getpid(), &wl, 1, &wr, 1, 0));
  printf("written: %s\n", dst);
  return 0;
}
