/* The libc functions the preload library replaces with buffered calls. Calls that may
 * block (reads and writes of pipes, sockets and terminals, sleeps, waits) stay traced so
 * the recorder can run another task meanwhile; writes to descriptors 0-2 stay traced so
 * replay can reproduce the program's terminal output. */
#include <fcntl.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "preload/preload.h"

#define ARGS(...) ((const long[6]){__VA_ARGS__})
#define KERNEL_TERMIOS_SIZE 36
#define SBUF_STATX_SIZE 256

EXPORT ssize_t read(int fd, void *buf, size_t n) {
  return preload_errno(
      preload_buffered(SYS_read, ARGS(fd, (long)buf, (long)n), 1, n, OUT_RESULT, true));
}

EXPORT ssize_t write(int fd, const void *buf, size_t n) {
  const long *a = ARGS(fd, (long)buf, (long)n);
  if (fd <= 2)
    return preload_errno(preload_traced(SYS_write, a));
  return preload_errno(preload_buffered(SYS_write, a, -1, 0, OUT_NONE, true));
}

EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off) {
  /* pread of a pipe fails with ESPIPE at once: it never blocks. */
  return preload_errno(
      preload_buffered(SYS_pread64, ARGS(fd, (long)buf, (long)n, off), 1, n, OUT_RESULT, false));
}
EXPORT ssize_t pread64(int fd, void *buf, size_t n, off_t off) __attribute__((alias("pread")));

EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t off) {
  const long *a = ARGS(fd, (long)buf, (long)n, off);
  if (fd <= 2)
    return preload_errno(preload_traced(SYS_pwrite64, a));
  return preload_errno(preload_buffered(SYS_pwrite64, a, -1, 0, OUT_NONE, false));
}
EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
    __attribute__((alias("pwrite")));

EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt) {
  const long *a = ARGS(fd, (long)iov, cnt);
  if (fd <= 2)
    return preload_errno(preload_traced(SYS_writev, a));
  return preload_errno(preload_buffered(SYS_writev, a, -1, 0, OUT_NONE, true));
}

EXPORT off_t lseek(int fd, off_t off, int whence) {
  return preload_errno(preload_buffered(SYS_lseek, ARGS(fd, off, whence), -1, 0, OUT_NONE, false));
}
EXPORT off_t lseek64(int fd, off_t off, int whence) __attribute__((alias("lseek")));

EXPORT int openat(int dirfd, const char *path, int flags, ...) {
  mode_t mode = 0;
  if (flags & (O_CREAT | __O_TMPFILE)) {
    va_list ap;
    va_start(ap, flags);
    mode = va_arg(ap, mode_t);
    va_end(ap);
  }
  return (int)preload_errno(
      preload_buffered(SYS_openat, ARGS(dirfd, (long)path, flags, mode), -1, 0, OUT_NONE, false));
}
EXPORT int openat64(int dirfd, const char *path, int flags, ...) __attribute__((alias("openat")));

EXPORT int open(const char *path, int flags, ...) {
  mode_t mode = 0;
  if (flags & (O_CREAT | __O_TMPFILE)) {
    va_list ap;
    va_start(ap, flags);
    mode = va_arg(ap, mode_t);
    va_end(ap);
  }
  return (int)preload_errno(preload_buffered(SYS_openat, ARGS(AT_FDCWD, (long)path, flags, mode),
                                             -1, 0, OUT_NONE, false));
}
EXPORT int open64(const char *path, int flags, ...) __attribute__((alias("open")));

EXPORT int close(int fd) {
  return (int)preload_errno(preload_buffered(SYS_close, ARGS(fd), -1, 0, OUT_NONE, false));
}

EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags) {
  return (int)preload_errno(preload_buffered(
      SYS_newfstatat, ARGS(dirfd, (long)path, (long)st, flags), 2, sizeof *st, OUT_FIXED, false));
}
EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
    __attribute__((alias("fstatat")));
EXPORT int stat(const char *path, struct stat *st) { return fstatat(AT_FDCWD, path, st, 0); }
EXPORT int stat64(const char *path, struct stat64 *st) __attribute__((alias("stat")));
EXPORT int lstat(const char *path, struct stat *st) {
  return fstatat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}
EXPORT int lstat64(const char *path, struct stat64 *st) __attribute__((alias("lstat")));
EXPORT int fstat(int fd, struct stat *st) {
  return (int)preload_errno(
      preload_buffered(SYS_fstat, ARGS(fd, (long)st), 1, sizeof *st, OUT_FIXED, false));
}
EXPORT int fstat64(int fd, struct stat64 *st) __attribute__((alias("fstat")));

EXPORT int statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *buf) {
  return (int)preload_errno(preload_buffered(SYS_statx,
                                             ARGS(dirfd, (long)path, flags, mask, (long)buf), 4,
                                             SBUF_STATX_SIZE, OUT_FIXED, false));
}

EXPORT int faccessat(int dirfd, const char *path, int mode, int flags) {
  if (flags)
    return (int)preload_errno(preload_buffered(SYS_faccessat2, ARGS(dirfd, (long)path, mode, flags),
                                               -1, 0, OUT_NONE, false));
  return (int)preload_errno(
      preload_buffered(SYS_faccessat, ARGS(dirfd, (long)path, mode), -1, 0, OUT_NONE, false));
}
EXPORT int access(const char *path, int mode) { return faccessat(AT_FDCWD, path, mode, 0); }

EXPORT ssize_t readlinkat(int dirfd, const char *path, char *buf, size_t n) {
  return preload_errno(preload_buffered(SYS_readlinkat, ARGS(dirfd, (long)path, (long)buf, (long)n),
                                        2, n, OUT_RESULT, false));
}
EXPORT ssize_t readlink(const char *path, char *buf, size_t n) {
  return readlinkat(AT_FDCWD, path, buf, n);
}

EXPORT ssize_t getdents64(int fd, void *buf, size_t n) {
  return preload_errno(
      preload_buffered(SYS_getdents64, ARGS(fd, (long)buf, (long)n), 1, n, OUT_RESULT, false));
}

EXPORT int clock_gettime(clockid_t clk, struct timespec *ts) {
  return (int)preload_errno(
      preload_buffered(SYS_clock_gettime, ARGS(clk, (long)ts), 1, sizeof *ts, OUT_FIXED, false));
}

EXPORT int gettimeofday(struct timeval *tv, void *tz) {
  const long *a = ARGS((long)tv, (long)tz);
  if (tz)
    return (int)preload_errno(preload_traced(SYS_gettimeofday, a));
  return (int)preload_errno(preload_buffered(SYS_gettimeofday, a, 0, sizeof *tv, OUT_FIXED, false));
}

EXPORT time_t time(time_t *t) {
  time_t now = (time_t)preload_buffered(SYS_time, ARGS(0), -1, 0, OUT_NONE, false);
  if (t)
    *t = now;
  return now;
}

EXPORT pid_t getpid(void) {
  return (pid_t)preload_buffered(SYS_getpid, ARGS(0), -1, 0, OUT_NONE, false);
}
EXPORT pid_t getppid(void) {
  return (pid_t)preload_buffered(SYS_getppid, ARGS(0), -1, 0, OUT_NONE, false);
}
EXPORT pid_t gettid(void) {
  return (pid_t)preload_buffered(SYS_gettid, ARGS(0), -1, 0, OUT_NONE, false);
}

EXPORT ssize_t getrandom(void *buf, size_t n, unsigned flags) {
  return preload_errno(
      preload_buffered(SYS_getrandom, ARGS((long)buf, (long)n, flags), 0, n, OUT_RESULT, false));
}

EXPORT int fcntl(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  long arg = va_arg(ap, long);
  va_end(ap);
  const long *a = ARGS(fd, cmd, arg);
  switch (cmd) {
  case F_GETFD:
  case F_SETFD:
  case F_GETFL:
  case F_SETFL:
  case F_DUPFD:
  case F_DUPFD_CLOEXEC:
    return (int)preload_errno(preload_buffered(SYS_fcntl, a, -1, 0, OUT_NONE, false));
  }
  return (int)preload_errno(preload_traced(SYS_fcntl, a)); /* locks may block */
}
EXPORT int fcntl64(int fd, int cmd, ...) __attribute__((alias("fcntl")));

EXPORT int ioctl(int fd, unsigned long req, ...) {
  va_list ap;
  va_start(ap, req);
  long arg = va_arg(ap, long);
  va_end(ap);
  const long *a = ARGS(fd, (long)req, arg);
  size_t out = req == FIONREAD     ? sizeof(int)
               : req == TCGETS     ? KERNEL_TERMIOS_SIZE
               : req == TIOCGWINSZ ? sizeof(struct winsize)
                                   : 0;
  if (!out)
    return (int)preload_errno(preload_traced(SYS_ioctl, a));
  return (int)preload_errno(preload_buffered(SYS_ioctl, a, 2, out, OUT_FIXED, false));
}
