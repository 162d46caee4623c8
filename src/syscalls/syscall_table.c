/* The x86-64 system call table: one line per call, indexed by number. Struct sizes are the
 * 64-bit kernel's (static asserts below check glibc agrees where glibc's type is used). */
#include "syscalls/syscall_table.h"

#include <errno.h>
#include <sys/mman.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/utsname.h>
#include <time.h>
#include <sched.h>
#include <linux/capability.h>

/* Calls newer than these headers (numbers from the kernel's syscall_64.tbl). */
#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif
#ifndef __NR_map_shadow_stack
#define __NR_map_shadow_stack 453
#endif
#ifndef __NR_futex_wake
#define __NR_futex_wake 454
#endif
#ifndef __NR_futex_wait
#define __NR_futex_wait 455
#endif
#ifndef __NR_futex_requeue
#define __NR_futex_requeue 456
#endif
#ifndef __NR_statmount
#define __NR_statmount 457
#endif
#ifndef __NR_listmount
#define __NR_listmount 458
#endif
#ifndef __NR_lsm_get_self_attr
#define __NR_lsm_get_self_attr 459
#endif
#ifndef __NR_lsm_set_self_attr
#define __NR_lsm_set_self_attr 460
#endif
#ifndef __NR_lsm_list_modules
#define __NR_lsm_list_modules 461
#endif
#ifndef __NR_mseal
#define __NR_mseal 462
#endif
#ifndef __NR_setxattrat
#define __NR_setxattrat 463
#endif
#ifndef __NR_getxattrat
#define __NR_getxattrat 464
#endif
#ifndef __NR_listxattrat
#define __NR_listxattrat 465
#endif
#ifndef __NR_removexattrat
#define __NR_removexattrat 466
#endif
#ifndef __NR_open_tree_attr
#define __NR_open_tree_attr 467
#endif
#ifndef __NR_file_getattr
#define __NR_file_getattr 468
#endif
#ifndef __NR_file_setattr
#define __NR_file_setattr 469
#endif

/* Kernel struct sizes the table relies on (x86-64). */
_Static_assert(sizeof(struct stat) == 144, "struct stat differs from the kernel's");
_Static_assert(sizeof(struct statfs) == 120, "struct statfs differs from the kernel's");
_Static_assert(sizeof(struct statx) == 256, "struct statx differs from the kernel's");
_Static_assert(sizeof(struct rusage) == 144, "struct rusage differs from the kernel's");
_Static_assert(sizeof(struct sysinfo) == 112, "struct sysinfo differs from the kernel's");
_Static_assert(sizeof(stack_t) == 24, "stack_t differs from the kernel's");
_Static_assert(sizeof(siginfo_t) == 128, "siginfo_t differs from the kernel's");
_Static_assert(sizeof(struct utsname) == 6 * 65, "struct utsname differs from the kernel's");

#define KERNEL_SIGACTION_SIZE 32 /* handler, flags, restorer, 8-byte mask */
#define SOCKADDR_CAP 4096        /* OUT_SOCKLEN cap for socket addresses */
#define SOCKOPT_CAP 65536        /* OUT_SOCKLEN cap for getsockopt values */
#define TIMESPEC sizeof(struct timespec)
#define TIMEVAL sizeof(struct timeval)
#define TIMEX_SIZE 208 /* struct timex */

// clang-format off
/* Replay modes, short so the table stays one line per call. */
#define EMU SC_EMULATE
#define EXE SC_EXECUTE
#define EXE_OK SC_EXECUTE_IF_OK
#define UNS SC_UNSUPPORTED

/* Written regions: { kind, ptr_arg, size_arg, size }. */
#define WR_FIXED(p, sz) { OUT_FIXED, p, 0, sz }
#define WR_ARG(p, s, el) { OUT_ARG, p, s, el }
#define WR_RESULT(p) { OUT_RESULT, p, 0, 1 }
#define WR_MIN_RESULT(p, s, el) { OUT_MIN_ARG_RESULT, p, s, el }
#define WR_SOCKLEN(p, s, cap) { OUT_SOCKLEN, p, s, cap }
#define WR_IOVEC(p, c) { OUT_IOVEC_RESULT, p, c, 0 }
#define WR_MSGHDR(p) { OUT_MSGHDR, p, 0, 0 }
#define WR_MMSGHDR(p, c) { OUT_MMSGHDR, p, c, 0 }
#define WR_MMSGHDR_SENT(p, c) { OUT_MMSGHDR_SENT, p, c, 0 }
#define WR_FDSET(p) { OUT_FDSET, p, 0, 0 }
#define WR_POLLFD(p, c) { OUT_POLLFD, p, c, 0 }
#define WR_EPOLL(p) { OUT_EPOLL, p, 0, 0 }
#define WR_DENTS(p) { OUT_GETDENTS, p, 0, 0 }
#define WR_IOCTL { OUT_IOCTL, 2, 1, 0 }
#define WR_FCNTL { OUT_FCNTL, 2, 1, 0 }
#define WR_PRCTL { OUT_PRCTL, 1, 0, 0 }
#define WR_FUTEX { OUT_FUTEX, 0, 1, 0 }
#define WR_INTR(p, sz) { OUT_FIXED_IF_INTERRUPTED, p, 0, sz }
#define WR_ALWAYS(p, sz) { OUT_FIXED_ALWAYS, p, 0, sz }
#define WR_PAGES(p, s) { OUT_PAGES, p, s, 0 }
#define WR_NODEMASK(p, s) { OUT_NODEMASK, p, s, 0 }
#define WR_CLONE { OUT_CLONE, 0, 1, 0 }
#define WR_SPECIAL { OUT_SPECIAL, 0, 0, 0 }

/* A call: name, replay mode, meaningful arguments, written regions. */
#define SC(name_, mode_, nargs_, ...)                                                     \
  [__NR_##name_] = { .nr = __NR_##name_, .name = #name_, .replay = mode_,                 \
                     .nargs = nargs_, .out = { __VA_ARGS__ } }
/* A call that needs a hook (enum syscall_hook) besides its mode. */
#define SCH(name_, mode_, hook_, nargs_, ...)                                             \
  [__NR_##name_] = { .nr = __NR_##name_, .name = #name_, .replay = mode_,                 \
                     .hook = SCH_##hook_, .nargs = nargs_, .out = { __VA_ARGS__ } }
/* Numbers no x86-64 kernel assigns: the kernel answers -ENOSYS, which replay returns
 * from the trace like any other result (the lookup fills in number and name). */
#define UNASSIGNED(first, last) [first ... last] = { .nr = -1, .replay = SC_EMULATE }

static const struct syscall_desc table[] = {
  SC(read, EMU, 3, WR_RESULT(1)),
  SCH(write, EMU, write, 3),
  SC(open, EMU, 3),
  SC(close, EMU, 1),
  SC(stat, EMU, 2, WR_FIXED(1, sizeof(struct stat))),
  SC(fstat, EMU, 2, WR_FIXED(1, sizeof(struct stat))),
  SC(lstat, EMU, 2, WR_FIXED(1, sizeof(struct stat))),
  SC(poll, EMU, 3, WR_POLLFD(0, 1)),
  SC(lseek, EMU, 3),
  SCH(mmap, EXE_OK, mmap, 6),
  SC(mprotect, EXE, 3),
  SCH(munmap, EXE, unmap, 2),
  SCH(brk, EXE, brk, 1),
  SC(rt_sigaction, EXE, 4, WR_FIXED(2, KERNEL_SIGACTION_SIZE)),
  SC(rt_sigprocmask, EXE, 4, WR_ARG(2, 3, 1)),
  SCH(rt_sigreturn, EXE, sigreturn, 0),
  SCH(ioctl, EMU, ioctl, 3, WR_IOCTL),
  SC(pread64, EMU, 4, WR_RESULT(1)),
  SCH(pwrite64, EMU, write, 4),
  SC(readv, EMU, 3, WR_IOVEC(1, 2)),
  SCH(writev, EMU, writev, 3),
  SC(access, EMU, 2),
  SC(pipe, EMU, 1, WR_FIXED(0, 8)),
  SC(select, EMU, 5, WR_FDSET(1), WR_FDSET(2), WR_FDSET(3), WR_ALWAYS(4, TIMEVAL)),
  SC(sched_yield, EMU, 0),
  SCH(mremap, EXE, mremap, 5),
  SC(msync, EMU, 3),
  SC(mincore, EMU, 3, WR_PAGES(2, 1)),
  SCH(madvise, EXE, unmap, 3),
  SC(shmget, EMU, 3),
  SCH(shmat, EXE_OK, shmat, 3),
  SC(shmctl, EMU, 3, WR_SPECIAL),
  SC(dup, EMU, 1),
  SC(dup2, EMU, 2),
  SC(pause, EMU, 0),
  SC(nanosleep, EMU, 2, WR_INTR(1, TIMESPEC)),
  SC(getitimer, EMU, 2, WR_FIXED(1, sizeof(struct itimerval))),
  SC(alarm, EMU, 1),
  SC(setitimer, EMU, 3, WR_FIXED(2, sizeof(struct itimerval))),
  SC(getpid, EMU, 0),
  SCH(sendfile, EMU, copy_out, 4, WR_FIXED(2, 8)),
  SC(socket, EMU, 3),
  SC(connect, EMU, 3),
  SC(accept, EMU, 3, WR_SOCKLEN(1, 2, SOCKADDR_CAP)),
  SC(sendto, EMU, 6),
  SC(recvfrom, EMU, 6, WR_MIN_RESULT(1, 2, 1), WR_SOCKLEN(4, 5, SOCKADDR_CAP)),
  SC(sendmsg, EMU, 3),
  SC(recvmsg, EMU, 3, WR_MSGHDR(1)),
  SC(shutdown, EMU, 2),
  SC(bind, EMU, 3),
  SC(listen, EMU, 2),
  SC(getsockname, EMU, 3, WR_SOCKLEN(1, 2, SOCKADDR_CAP)),
  SC(getpeername, EMU, 3, WR_SOCKLEN(1, 2, SOCKADDR_CAP)),
  SC(socketpair, EMU, 4, WR_FIXED(3, 8)),
  SC(setsockopt, EMU, 5),
  SC(getsockopt, EMU, 5, WR_SOCKLEN(3, 4, SOCKOPT_CAP)),
  SCH(clone, EXE_OK, clone, 5, WR_CLONE),
  SCH(fork, EXE_OK, clone, 0),
  SCH(vfork, EXE_OK, clone, 0),
  SCH(execve, EMU, refuse, 3),
  SCH(exit, EXE, exit, 1),
  SC(wait4, EMU, 4, WR_FIXED(1, 4), WR_FIXED(3, sizeof(struct rusage))),
  SC(kill, EMU, 2),
  SC(uname, EMU, 1, WR_FIXED(0, sizeof(struct utsname))),
  SC(semget, EMU, 3),
  SC(semop, EMU, 3),
  SC(semctl, EMU, 4, WR_SPECIAL),
  SCH(shmdt, EXE, brk, 1),
  SC(msgget, EMU, 2),
  SC(msgsnd, EMU, 4),
  SC(msgrcv, EMU, 5, WR_SPECIAL),
  SC(msgctl, EMU, 3, WR_SPECIAL),
  SC(fcntl, EMU, 3, WR_FCNTL),
  SC(flock, EMU, 2),
  SC(fsync, EMU, 1),
  SC(fdatasync, EMU, 1),
  SC(truncate, EMU, 2),
  SC(ftruncate, EMU, 2),
  SCH(getdents, EMU, dents, 3, WR_DENTS(1)),
  SC(getcwd, EMU, 2, WR_RESULT(0)),
  SC(chdir, EMU, 1),
  SC(fchdir, EMU, 1),
  SC(rename, EMU, 2),
  SC(mkdir, EMU, 2),
  SC(rmdir, EMU, 1),
  SC(creat, EMU, 2),
  SC(link, EMU, 2),
  SC(unlink, EMU, 1),
  SC(symlink, EMU, 2),
  SC(readlink, EMU, 3, WR_MIN_RESULT(1, 2, 1)),
  SC(chmod, EMU, 2),
  SC(fchmod, EMU, 2),
  SC(chown, EMU, 3),
  SC(fchown, EMU, 3),
  SC(lchown, EMU, 3),
  SC(umask, EMU, 1),
  SC(gettimeofday, EMU, 2, WR_FIXED(0, TIMEVAL), WR_FIXED(1, sizeof(struct timezone))),
  SC(getrlimit, EMU, 2, WR_FIXED(1, sizeof(struct rlimit))),
  SC(getrusage, EMU, 2, WR_FIXED(1, sizeof(struct rusage))),
  SC(sysinfo, EMU, 1, WR_FIXED(0, sizeof(struct sysinfo))),
  SC(times, EMU, 1, WR_FIXED(0, sizeof(struct tms))),
  SC(ptrace, EMU, 4, WR_SPECIAL),
  SC(getuid, EMU, 0),
  SC(syslog, EMU, 3, WR_MIN_RESULT(1, 2, 1)),
  SC(getgid, EMU, 0),
  SC(setuid, EMU, 1),
  SC(setgid, EMU, 1),
  SC(geteuid, EMU, 0),
  SC(getegid, EMU, 0),
  SC(setpgid, EMU, 2),
  SC(getppid, EMU, 0),
  SC(getpgrp, EMU, 0),
  SC(setsid, EMU, 0),
  SC(setreuid, EMU, 2),
  SC(setregid, EMU, 2),
  SC(getgroups, EMU, 2, WR_MIN_RESULT(1, 0, 4)),
  SC(setgroups, EMU, 2),
  SC(setresuid, EMU, 3),
  SC(getresuid, EMU, 3, WR_FIXED(0, 4), WR_FIXED(1, 4), WR_FIXED(2, 4)),
  SC(setresgid, EMU, 3),
  SC(getresgid, EMU, 3, WR_FIXED(0, 4), WR_FIXED(1, 4), WR_FIXED(2, 4)),
  SC(getpgid, EMU, 1),
  SC(setfsuid, EMU, 1),
  SC(setfsgid, EMU, 1),
  SC(getsid, EMU, 1),
  SC(capget, EMU, 2, WR_SPECIAL),
  SC(capset, EMU, 2),
  SC(rt_sigpending, EMU, 2, WR_ARG(0, 1, 1)),
  SC(rt_sigtimedwait, EMU, 4, WR_FIXED(1, sizeof(siginfo_t))),
  SC(rt_sigqueueinfo, EMU, 3),
  /* Swaps the signal mask while it waits, like rt_sigprocmask. */
  SCH(rt_sigsuspend, EXE, sigsuspend, 2),
  SCH(sigaltstack, EXE, altstack, 2, WR_FIXED(1, sizeof(stack_t))),
  SC(utime, EMU, 2),
  SC(mknod, EMU, 3),
  SC(uselib, EMU, 1),
  SC(personality, EMU, 1),
  SC(ustat, EMU, 2, WR_FIXED(1, 32)),
  SC(statfs, EMU, 2, WR_FIXED(1, sizeof(struct statfs))),
  SC(fstatfs, EMU, 2, WR_FIXED(1, sizeof(struct statfs))),
  SC(sysfs, EMU, 3, WR_SPECIAL),
  SC(getpriority, EMU, 2),
  SC(setpriority, EMU, 3),
  SC(sched_setparam, EMU, 2),
  SC(sched_getparam, EMU, 2, WR_FIXED(1, sizeof(struct sched_param))),
  SC(sched_setscheduler, EMU, 3),
  SC(sched_getscheduler, EMU, 1),
  SC(sched_get_priority_max, EMU, 1),
  SC(sched_get_priority_min, EMU, 1),
  SC(sched_rr_get_interval, EMU, 2, WR_FIXED(1, TIMESPEC)),
  SC(mlock, EMU, 2),
  SC(munlock, EMU, 2),
  SC(mlockall, EMU, 1),
  SC(munlockall, EMU, 0),
  SC(vhangup, EMU, 0),
  SC(modify_ldt, EXE, 3),
  SC(pivot_root, EMU, 2),
  SC(_sysctl, EMU, 1),
  SC(prctl, EMU, 5, WR_PRCTL),
  /* Executed: ARCH_GET_FS and friends write their answer themselves during replay. */
  SC(arch_prctl, EXE, 2),
  SC(adjtimex, EMU, 1, WR_FIXED(0, TIMEX_SIZE)),
  SC(setrlimit, EMU, 2),
  SC(chroot, EMU, 1),
  SC(sync, EMU, 0),
  SC(acct, EMU, 1),
  SC(settimeofday, EMU, 2),
  SC(mount, EMU, 5),
  SC(umount2, EMU, 2),
  SC(swapon, EMU, 2),
  SC(swapoff, EMU, 1),
  SC(reboot, EMU, 4),
  SC(sethostname, EMU, 2),
  SC(setdomainname, EMU, 2),
  SCH(iopl, EMU, refuse, 1),
  SCH(ioperm, EMU, refuse, 3),
  /* create_module .. security, vserver, epoll_*_old: never implemented on x86-64
   * (always -ENOSYS), so the recorded result is all there is. */
  SC(create_module, EMU, 2),
  SC(init_module, EMU, 3),
  SC(delete_module, EMU, 2),
  SC(get_kernel_syms, EMU, 1),
  SC(query_module, EMU, 5),
  SC(quotactl, EMU, 4, WR_SPECIAL),
  SC(nfsservctl, EMU, 3),
  SC(getpmsg, EMU, 5),
  SC(putpmsg, EMU, 5),
  SC(afs_syscall, EMU, 5),
  SC(tuxcall, EMU, 3),
  SC(security, EMU, 3),
  SC(gettid, EMU, 0),
  SC(readahead, EMU, 3),
  SC(setxattr, EMU, 5),
  SC(lsetxattr, EMU, 5),
  SC(fsetxattr, EMU, 5),
  SC(getxattr, EMU, 4, WR_MIN_RESULT(2, 3, 1)),
  SC(lgetxattr, EMU, 4, WR_MIN_RESULT(2, 3, 1)),
  SC(fgetxattr, EMU, 4, WR_MIN_RESULT(2, 3, 1)),
  SC(listxattr, EMU, 3, WR_MIN_RESULT(1, 2, 1)),
  SC(llistxattr, EMU, 3, WR_MIN_RESULT(1, 2, 1)),
  SC(flistxattr, EMU, 3, WR_MIN_RESULT(1, 2, 1)),
  SC(removexattr, EMU, 2),
  SC(lremovexattr, EMU, 2),
  SC(fremovexattr, EMU, 2),
  SC(tkill, EMU, 2),
  SC(time, EMU, 1, WR_FIXED(0, 8)),
  SC(futex, EMU, 6, WR_FUTEX),
  SC(sched_setaffinity, EMU, 3),
  SC(sched_getaffinity, EMU, 3, WR_RESULT(2)),
  SC(set_thread_area, EXE, 1),
  SCH(io_setup, EMU, refuse, 2),
  SC(io_destroy, EMU, 1),
  SC(io_getevents, EMU, 5),
  SC(io_submit, EMU, 3),
  SC(io_cancel, EMU, 3),
  SC(get_thread_area, EXE, 1),
  SC(lookup_dcookie, EMU, 3),
  SC(epoll_create, EMU, 1),
  SC(epoll_ctl_old, EMU, 4),
  SC(epoll_wait_old, EMU, 4),
  SC(remap_file_pages, EXE, 5),
  SCH(getdents64, EMU, dents, 3, WR_DENTS(1)),
  /* The kernel keeps the address and uses it at thread exit. */
  SCH(set_tid_address, EXE, tid_result, 1),
  SC(restart_syscall, EMU, 0),
  SC(semtimedop, EMU, 4),
  SC(fadvise64, EMU, 4),
  SC(timer_create, EMU, 3, WR_FIXED(2, 4)),
  SC(timer_settime, EMU, 4, WR_FIXED(3, sizeof(struct itimerspec))),
  SC(timer_gettime, EMU, 2, WR_FIXED(1, sizeof(struct itimerspec))),
  SC(timer_getoverrun, EMU, 1),
  SC(timer_delete, EMU, 1),
  SC(clock_settime, EMU, 2),
  SC(clock_gettime, EMU, 2, WR_FIXED(1, TIMESPEC)),
  SC(clock_getres, EMU, 2, WR_FIXED(1, TIMESPEC)),
  SC(clock_nanosleep, EMU, 4, WR_INTR(3, TIMESPEC)),
  SCH(exit_group, EXE, exit, 1),
  SC(epoll_wait, EMU, 4, WR_EPOLL(1)),
  SC(epoll_ctl, EMU, 4),
  SC(tgkill, EMU, 3),
  SC(utimes, EMU, 2),
  SC(vserver, EMU, 5),
  SC(mbind, EMU, 6),
  SC(set_mempolicy, EMU, 3),
  SC(get_mempolicy, EMU, 5, WR_FIXED(0, 4), WR_NODEMASK(1, 2)),
  SC(mq_open, EMU, 4),
  SC(mq_unlink, EMU, 1),
  SC(mq_timedsend, EMU, 5),
  SC(mq_timedreceive, EMU, 5, WR_MIN_RESULT(1, 2, 1), WR_FIXED(3, 4)),
  SC(mq_notify, EMU, 2),
  SC(mq_getsetattr, EMU, 3, WR_FIXED(2, 64)),
  SC(kexec_load, EMU, 4),
  SC(waitid, EMU, 5, WR_FIXED(2, sizeof(siginfo_t)), WR_FIXED(4, sizeof(struct rusage))),
  SC(add_key, EMU, 5),
  SC(request_key, EMU, 4),
  SC(keyctl, EMU, 5, WR_SPECIAL),
  SC(ioprio_set, EMU, 3),
  SC(ioprio_get, EMU, 2),
  SC(inotify_init, EMU, 0),
  SC(inotify_add_watch, EMU, 3),
  SC(inotify_rm_watch, EMU, 2),
  SC(migrate_pages, EMU, 4),
  SC(openat, EMU, 4),
  SC(mkdirat, EMU, 3),
  SC(mknodat, EMU, 4),
  SC(fchownat, EMU, 5),
  SC(futimesat, EMU, 3),
  SC(newfstatat, EMU, 4, WR_FIXED(2, sizeof(struct stat))),
  SC(unlinkat, EMU, 3),
  SC(renameat, EMU, 4),
  SC(linkat, EMU, 5),
  SC(symlinkat, EMU, 3),
  SC(readlinkat, EMU, 4, WR_MIN_RESULT(2, 3, 1)),
  SC(fchmodat, EMU, 3),
  SC(faccessat, EMU, 3),
  SCH(pselect6, EMU, masked_wait, 6, WR_FDSET(1), WR_FDSET(2), WR_FDSET(3), WR_ALWAYS(4, TIMESPEC)),
  SCH(ppoll, EMU, masked_wait, 5, WR_POLLFD(0, 1), WR_ALWAYS(2, TIMESPEC)),
  SC(unshare, EMU, 1),
  /* The kernel keeps the list head and walks it at thread exit. */
  SCH(set_robust_list, EXE, robust_list, 2),
  SC(get_robust_list, EMU, 3, WR_FIXED(1, 8), WR_FIXED(2, 8)),
  SCH(splice, EMU, copy_out, 6, WR_FIXED(1, 8), WR_FIXED(3, 8)),
  SC(tee, EMU, 4),
  SC(sync_file_range, EMU, 4),
  SC(vmsplice, EMU, 4, WR_IOVEC(1, 2)),
  SC(move_pages, EMU, 6, WR_ARG(4, 1, 4)),
  SC(utimensat, EMU, 4),
  SCH(epoll_pwait, EMU, masked_wait, 6, WR_EPOLL(1)),
  SC(signalfd, EMU, 3),
  SC(timerfd_create, EMU, 2),
  SC(eventfd, EMU, 1),
  SC(fallocate, EMU, 4),
  SC(timerfd_settime, EMU, 4, WR_FIXED(3, sizeof(struct itimerspec))),
  SC(timerfd_gettime, EMU, 2, WR_FIXED(1, sizeof(struct itimerspec))),
  SC(accept4, EMU, 4, WR_SOCKLEN(1, 2, SOCKADDR_CAP)),
  SC(signalfd4, EMU, 4),
  SC(eventfd2, EMU, 2),
  SC(epoll_create1, EMU, 1),
  SC(dup3, EMU, 3),
  SC(pipe2, EMU, 2, WR_FIXED(0, 8)),
  SC(inotify_init1, EMU, 1),
  SC(preadv, EMU, 5, WR_IOVEC(1, 2)),
  SCH(pwritev, EMU, writev, 5),
  SC(rt_tgsigqueueinfo, EMU, 4),
  SC(perf_event_open, EMU, 5),
  SC(recvmmsg, EMU, 5, WR_MMSGHDR(1, 2), WR_FIXED(4, TIMESPEC)),
  SC(fanotify_init, EMU, 2),
  SC(fanotify_mark, EMU, 5),
  SC(prlimit64, EMU, 4, WR_FIXED(3, sizeof(struct rlimit))),
  SC(name_to_handle_at, EMU, 5, WR_SPECIAL, WR_FIXED(3, 4)),
  SC(open_by_handle_at, EMU, 3),
  SC(clock_adjtime, EMU, 2, WR_FIXED(1, TIMEX_SIZE)),
  SC(syncfs, EMU, 1),
  SC(sendmmsg, EMU, 4, WR_MMSGHDR_SENT(1, 2)),
  SC(setns, EMU, 2),
  SC(getcpu, EMU, 3, WR_FIXED(0, 4), WR_FIXED(1, 4)),
  SC(process_vm_readv, EMU, 6, WR_IOVEC(1, 2)),
  SCH(process_vm_writev, EMU, refuse, 6, WR_IOVEC(3, 4)),
  SC(kcmp, EMU, 5),
  SC(finit_module, EMU, 3),
  SC(sched_setattr, EMU, 3),
  SC(sched_getattr, EMU, 4, WR_ARG(1, 2, 1)),
  SC(renameat2, EMU, 5),
  SC(seccomp, EMU, 3),
  SC(getrandom, EMU, 3, WR_RESULT(0)),
  SC(memfd_create, EMU, 2),
  SC(kexec_file_load, EMU, 5),
  SCH(bpf, EMU, refuse, 3),
  SCH(execveat, EMU, refuse, 5),
  SCH(userfaultfd, EMU, refuse, 1),
  SC(membarrier, EMU, 3),
  SC(mlock2, EMU, 3),
  SCH(copy_file_range, EMU, copy_out, 6, WR_FIXED(1, 8), WR_FIXED(3, 8)),
  SC(preadv2, EMU, 6, WR_IOVEC(1, 2)),
  SCH(pwritev2, EMU, writev, 6),
  /* Protection keys change the address space and the PKRU register. */
  SC(pkey_mprotect, EXE, 4),
  SC(pkey_alloc, EXE, 2),
  SC(pkey_free, EXE, 1),
  SC(statx, EMU, 5, WR_FIXED(4, sizeof(struct statx))),
  SC(io_pgetevents, EMU, 6),
  SCH(rseq, EMU, rseq, 4),
  UNASSIGNED(335, 423),
  SC(pidfd_send_signal, EMU, 4),
  SCH(io_uring_setup, EMU, refuse, 2),
  SC(io_uring_enter, EMU, 6),
  SC(io_uring_register, EMU, 4),
  SC(open_tree, EMU, 3),
  SC(move_mount, EMU, 5),
  SC(fsopen, EMU, 2),
  SC(fsconfig, EMU, 5),
  SC(fsmount, EMU, 3),
  SC(fspick, EMU, 3),
  SC(pidfd_open, EMU, 2),
  SCH(clone3, EXE_OK, clone, 2, WR_CLONE),
  SC(close_range, EMU, 3),
  SC(openat2, EMU, 4),
  SC(pidfd_getfd, EMU, 3),
  SC(faccessat2, EMU, 4),
  SC(process_madvise, EMU, 5),
  SCH(epoll_pwait2, EMU, masked_wait, 6, WR_EPOLL(1)),
  SC(mount_setattr, EMU, 5),
  SC(quotactl_fd, EMU, 4, WR_SPECIAL),
  SC(landlock_create_ruleset, EMU, 3),
  SC(landlock_add_rule, EMU, 4),
  SC(landlock_restrict_self, EMU, 2),
  SCH(memfd_secret, EMU, refuse, 1),
  SC(process_mrelease, EMU, 2),
  SC(futex_waitv, EMU, 5),
  SC(set_mempolicy_home_node, EMU, 4),
  SC(cachestat, EMU, 4, WR_FIXED(2, 40)),
  SC(fchmodat2, EMU, 4),
  SCH(map_shadow_stack, EMU, refuse, 3),
  SC(futex_wake, EMU, 4),
  SC(futex_wait, EMU, 6),
  SC(futex_requeue, EMU, 4),
  SC(statmount, EMU, 4, WR_ARG(1, 2, 1)),
  SC(listmount, EMU, 4, WR_MIN_RESULT(1, 2, 8)),
  SC(lsm_get_self_attr, EMU, 4, WR_SOCKLEN(1, 2, SOCKOPT_CAP)),
  SC(lsm_set_self_attr, EMU, 4),
  SC(lsm_list_modules, EMU, 3, WR_SOCKLEN(0, 1, SOCKOPT_CAP)),
  SC(mseal, EXE, 3),
  SC(setxattrat, EMU, 6),
  SC(getxattrat, EMU, 6, WR_SPECIAL),
  SC(listxattrat, EMU, 5, WR_MIN_RESULT(3, 4, 1)),
  SC(removexattrat, EMU, 4),
  SC(open_tree_attr, EMU, 5),
  SC(file_getattr, EMU, 5, WR_ARG(2, 3, 1)),
  SC(file_setattr, EMU, 5),
};
// clang-format on

#define TABLE_SIZE ((long)(sizeof(table) / sizeof(table[0])))

const struct syscall_desc *syscall_table_lookup(long nr) {
  /* The kernel reads the number as an int: 0x100000027 is getpid, not unknown. */
  nr = (int)nr;
  if (nr < 0 || nr >= TABLE_SIZE)
    return NULL;
  if (table[nr].nr == -1) {
    static __thread struct syscall_desc unassigned;
    static __thread char name[32];
    unassigned = table[nr];
    unassigned.nr = (int)nr;
    snprintf(name, sizeof name, "syscall_%ld", nr);
    unassigned.name = name;
    return &unassigned;
  }
  if (table[nr].name == NULL)
    return NULL;
  return &table[nr];
}

bool syscall_madvise_runs(uint64_t advice, int64_t result) {
  if (result != 0 && result != -ENOMEM)
    return false;
  switch (advice) {
  case MADV_DONTNEED:
  case MADV_FREE:
  case MADV_REMOVE:
  case MADV_DONTFORK:
  case MADV_DOFORK:
  case MADV_WIPEONFORK:
  case MADV_KEEPONFORK:
  case 24:  /* MADV_DONTNEED_LOCKED */
  case 100: /* MADV_HWPOISON */
  case 101: /* MADV_SOFT_OFFLINE */
  case 102: /* MADV_GUARD_INSTALL: faults where the program touches */
  case 103: /* MADV_GUARD_REMOVE */ return true;
  default: return false;
  }
}

const char *syscall_name(long nr) {
  static __thread char unknown[32];
  const struct syscall_desc *d = syscall_table_lookup(nr);
  if (d)
    return d->name;
  snprintf(unknown, sizeof unknown, "syscall_%ld", nr);
  return unknown;
}

long syscall_number(const char *name) {
  if (name == NULL)
    return -1;
  for (long nr = 0; nr < TABLE_SIZE; nr++)
    if (table[nr].nr != -1 && table[nr].name && strcmp(table[nr].name, name) == 0)
      return nr;
  /* Accept the "syscall_N" spelling syscall_name() gives unknown numbers. */
  if (strncmp(name, "syscall_", 8) == 0 && name[8] >= '0' && name[8] <= '9') {
    char *end;
    long nr = strtol(name + 8, &end, 10);
    if (*end == '\0')
      return nr;
  }
  return -1;
}
