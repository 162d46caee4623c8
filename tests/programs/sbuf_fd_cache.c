/* The preload library remembers which descriptors are files (no lseek or fstat probe at
   each write). Each case here caches a descriptor as a file, then makes it a dup of
   stdout behind the library's back, then writes to it: that line is stdout, which the
   replay must print too (a stale memory would buffer it as a file write, whose bytes
   replay does not print). Behind its back: a raw dup2 (inline `syscall`), a thread's
   raw dup2, a process sharing the descriptor table but not the memory (clone with
   CLONE_FILES), and a vfork child that caches its own descriptor under the same number
   in the memory it shares with its parent. */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

/* dup2 made from this program's own `syscall` instruction, not libc's. */
static long raw_dup2(long from, long to) {
  long ret;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "0"((long)SYS_dup2), "D"(from), "S"(to)
                   : "rcx", "r11", "memory");
  return ret;
}

static void say(int fd, const char *what) {
  char line[96];
  int n = snprintf(line, sizeof line, "%s\n", what);
  CHECK(write(fd, line, (size_t)n) == n);
}

/* A descriptor on a new temporary file, written twice (the second write finds it known). */
static int cached_file(void) {
  char path[] = "/tmp/deja-fd-cache-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd > 2);
  unlink(path);
  say(fd, "into the file");
  say(fd, "into the file again");
  return fd;
}

static void *dup_stdout_onto(void *arg) {
  CHECK(raw_dup2(1, (long)arg) == (long)arg);
  return NULL;
}

static volatile int *shared_flags;

static int files_sharer(void *arg) {
  while (!__atomic_load_n(&shared_flags[0], __ATOMIC_ACQUIRE))
    ;
  CHECK(raw_dup2(1, (long)arg) == (long)arg);
  __atomic_store_n(&shared_flags[1], 1, __ATOMIC_RELEASE);
  return 0;
}

static void shared_table(void) {
  shared_flags = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  CHECK(shared_flags != MAP_FAILED);
  char *stack = malloc(1 << 16);
  CHECK(stack);
  int fd = cached_file();
  pid_t c = clone(files_sharer, stack + (1 << 16), CLONE_FILES | SIGCHLD, (void *)(long)fd);
  CHECK(c > 0);
  say(fd, "into the file after the clone");
  say(fd, "into the file after the clone again");
  __atomic_store_n(&shared_flags[0], 1, __ATOMIC_RELEASE);
  while (!__atomic_load_n(&shared_flags[1], __ATOMIC_ACQUIRE))
    ;
  say(fd, "after a dup2 in a process sharing the descriptors");
  int st;
  CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0);
  free(stack);
}

static void vfork_child_caches(void) {
  int out = dup(1);
  CHECK(out > 2);
  char path[] = "/tmp/deja-fd-cache-XXXXXX";
  int file = mkstemp(path);
  CHECK(file > 2);
  unlink(path);
  pid_t c = vfork();
  CHECK(c >= 0);
  if (c == 0) {
    /* the child's own table: OUT is the file here, cached as one */
    if (raw_dup2(file, out) != out)
      _exit(1);
    say(out, "the child's file");
    say(out, "the child's file again");
    _exit(0);
  }
  int st;
  CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0);
  say(out, "the parent's dup of stdout after a vfork child");
}

int main(void) {
  int fd = cached_file();
  CHECK(raw_dup2(1, fd) == fd);
  say(fd, "after a raw dup2");

  fd = cached_file();
  pthread_t t;
  CHECK(pthread_create(&t, NULL, dup_stdout_onto, (void *)(long)fd) == 0);
  CHECK(pthread_join(t, NULL) == 0);
  say(fd, "after a thread's raw dup2");

  shared_table();
  vfork_child_caches();
  say(1, "done");
  return 0;
}
