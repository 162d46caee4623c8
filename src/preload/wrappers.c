/* The libc functions the preload library replaces: each makes its call through
 * preload_syscall (policy.c), which buffers it or makes it traced. */
#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "preload/preload.h"

#define ARGS(...) ((const long[6]){__VA_ARGS__})
#define CALL(nr, ...) preload_errno(preload_syscall(nr, ARGS(__VA_ARGS__)))

EXPORT ssize_t read(int fd, void *buf, size_t n) { return CALL(SYS_read, fd, (long)buf, (long)n); }
EXPORT ssize_t write(int fd, const void *buf, size_t n) {
  return CALL(SYS_write, fd, (long)buf, (long)n);
}
EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off) {
  return CALL(SYS_pread64, fd, (long)buf, (long)n, off);
}
EXPORT ssize_t pread64(int fd, void *buf, size_t n, off_t off) __attribute__((alias("pread")));
EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t off) {
  return CALL(SYS_pwrite64, fd, (long)buf, (long)n, off);
}
EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
    __attribute__((alias("pwrite")));
EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt) {
  return CALL(SYS_writev, fd, (long)iov, cnt);
}
EXPORT off_t lseek(int fd, off_t off, int whence) { return CALL(SYS_lseek, fd, off, whence); }
EXPORT off_t lseek64(int fd, off_t off, int whence) __attribute__((alias("lseek")));

static mode_t open_mode(int flags, va_list ap) {
  return flags & (O_CREAT | __O_TMPFILE) ? va_arg(ap, mode_t) : 0;
}
EXPORT int openat(int dirfd, const char *path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t mode = open_mode(flags, ap);
  va_end(ap);
  return (int)CALL(SYS_openat, dirfd, (long)path, flags, mode);
}
EXPORT int openat64(int dirfd, const char *path, int flags, ...) __attribute__((alias("openat")));
EXPORT int open(const char *path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t mode = open_mode(flags, ap);
  va_end(ap);
  return (int)CALL(SYS_openat, AT_FDCWD, (long)path, flags, mode);
}
EXPORT int open64(const char *path, int flags, ...) __attribute__((alias("open")));
EXPORT int close(int fd) { return (int)CALL(SYS_close, fd); }

EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags) {
  return (int)CALL(SYS_newfstatat, dirfd, (long)path, (long)st, flags);
}
EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
    __attribute__((alias("fstatat")));
EXPORT int stat(const char *path, struct stat *st) { return fstatat(AT_FDCWD, path, st, 0); }
EXPORT int stat64(const char *path, struct stat64 *st) __attribute__((alias("stat")));
EXPORT int lstat(const char *path, struct stat *st) {
  return fstatat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}
EXPORT int lstat64(const char *path, struct stat64 *st) __attribute__((alias("lstat")));
EXPORT int fstat(int fd, struct stat *st) { return (int)CALL(SYS_fstat, fd, (long)st); }
EXPORT int fstat64(int fd, struct stat64 *st) __attribute__((alias("fstat")));
EXPORT int statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *buf) {
  return (int)CALL(SYS_statx, dirfd, (long)path, flags, mask, (long)buf);
}

EXPORT int faccessat(int dirfd, const char *path, int mode, int flags) {
  if (flags)
    return (int)CALL(SYS_faccessat2, dirfd, (long)path, mode, flags);
  return (int)CALL(SYS_faccessat, dirfd, (long)path, mode);
}
EXPORT int access(const char *path, int mode) { return faccessat(AT_FDCWD, path, mode, 0); }
EXPORT ssize_t readlinkat(int dirfd, const char *path, char *buf, size_t n) {
  return CALL(SYS_readlinkat, dirfd, (long)path, (long)buf, (long)n);
}
EXPORT ssize_t readlink(const char *path, char *buf, size_t n) {
  return readlinkat(AT_FDCWD, path, buf, n);
}
EXPORT ssize_t getdents64(int fd, void *buf, size_t n) {
  return CALL(SYS_getdents64, fd, (long)buf, (long)n);
}

EXPORT int clock_gettime(clockid_t clk, struct timespec *ts) {
  return (int)CALL(SYS_clock_gettime, clk, (long)ts);
}
EXPORT int gettimeofday(struct timeval *tv, void *tz) {
  return (int)CALL(SYS_gettimeofday, (long)tv, (long)tz);
}
EXPORT time_t time(time_t *t) {
  time_t now = (time_t)preload_syscall(SYS_time, ARGS(0));
  if (t)
    *t = now;
  return now;
}
EXPORT pid_t gettid(void) { return (pid_t)preload_syscall(SYS_gettid, ARGS(0)); }
EXPORT ssize_t getrandom(void *buf, size_t n, unsigned flags) {
  return CALL(SYS_getrandom, (long)buf, (long)n, flags);
}

EXPORT int fcntl(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  long arg = va_arg(ap, long);
  va_end(ap);
  return (int)CALL(SYS_fcntl, fd, cmd, arg);
}
EXPORT int fcntl64(int fd, int cmd, ...) __attribute__((alias("fcntl")));
EXPORT int ioctl(int fd, unsigned long req, ...) {
  va_list ap;
  va_start(ap, req);
  long arg = va_arg(ap, long);
  va_end(ap);
  return (int)CALL(SYS_ioctl, fd, (long)req, arg);
}
