/* The stat family into a buffer that ends at a guard page (PROT_NONE right after the
   struct), and into one that runs into it or lies in it: the first succeed, the others
   fail with EFAULT, as natively; a guard byte right before the struct is not touched.
   The file's inode and times differ per run. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "check.h"

static char *page;

/* A buffer of LEN bytes whose end is SHIFT bytes past the guard page's start. */
static void *at_guard(size_t len, long shift) {
  char *p = page + 4096 - len + shift;
  memset(page, 0x5a, 4096);
  return p;
}

static void show_stat(const char *label, long rc, const struct stat *st) {
  int e = errno;
  if (rc == 0)
    printf("%s: 0 ino %llu size %lld mtime %lld.%09ld\n", label, (unsigned long long)st->st_ino,
           (long long)st->st_size, (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
  else
    printf("%s: %ld errno %d\n", label, rc, e);
}

static void stats(const char *file, const char *link, int fd, long shift) {
  char label[64];
  struct stat *st = at_guard(sizeof *st, shift);
  errno = 0;
  snprintf(label, sizeof label, "stat %+ld", shift);
  show_stat(label, stat(file, st), st);
  st = at_guard(sizeof *st, shift);
  snprintf(label, sizeof label, "fstat %+ld", shift);
  show_stat(label, fstat(fd, st), st);
  st = at_guard(sizeof *st, shift);
  snprintf(label, sizeof label, "lstat %+ld", shift);
  show_stat(label, lstat(link, st), st);
  st = at_guard(sizeof *st, shift);
  snprintf(label, sizeof label, "newfstatat %+ld", shift);
  show_stat(label, syscall(SYS_newfstatat, AT_FDCWD, file, st, 0), st);
  st = at_guard(sizeof *st, shift);
  snprintf(label, sizeof label, "raw stat %+ld", shift);
  show_stat(label, syscall(SYS_stat, file, st), st);
  /* the byte before a struct stat is never written */
  if (shift < 4096)
    printf("byte before %+ld: %02x\n", shift, (unsigned char)page[4096 - 144 - 1 + shift]);
  /* (a failed call's partial write, statx's below, is not replayed) */
  struct statx *sx = at_guard(sizeof *sx, shift);
  errno = 0;
  long rc = statx(AT_FDCWD, file, 0, STATX_BASIC_STATS, sx);
  int e = errno;
  if (rc == 0)
    printf("statx %+ld: 0 ino %llu mtime %lld.%09u\n", shift, (unsigned long long)sx->stx_ino,
           (long long)sx->stx_mtime.tv_sec, sx->stx_mtime.tv_nsec);
  else
    printf("statx %+ld: %ld errno %d\n", shift, rc, e);
}

int main(void) {
  page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(page != MAP_FAILED);
  CHECK(mprotect(page + 4096, 4096, PROT_NONE) == 0);
  char *dir = make_temp_dir();
  char file[256], link[256];
  snprintf(file, sizeof file, "%s/file", dir);
  snprintf(link, sizeof link, "%s/link", dir);
  int fd = open(file, O_RDWR | O_CREAT, 0600);
  CHECK(fd >= 0);
  CHECK(write(fd, "guarded", 7) == 7);
  CHECK(symlink(file, link) == 0);
  stats(file, link, fd, 0);    /* ends right at the guard page */
  stats(file, link, fd, 8);    /* its last 8 bytes in it */
  stats(file, link, fd, 4096); /* all of it in it */
  struct stat st;
  const char *volatile no_path = NULL;
  show_stat("stat NULL path", stat(no_path, &st), &st);
  CHECK(unlink(link) == 0);
  CHECK(unlink(file) == 0);
  CHECK(rmdir(dir) == 0);
  close(fd);
  return 0;
}
