/* Under gdb, memory the system call buffer's library writes for a buffered call is
   written by the program's own instructions in replay: a watchpoint on it triggers
   there, with the recorded value. */
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

int main(void) {
  int fd = open("/proc/self/exe", O_RDONLY);
  char magic[4] = {0};
  ssize_t n = read(fd, magic, sizeof magic);
  struct timespec ts = {0, 0};
  clock_gettime(CLOCK_REALTIME, &ts);
  close(fd);
  printf("read %zd bytes, time %s\n", n, ts.tv_sec > 0 ? "set" : "unset");
  return 0;
}
