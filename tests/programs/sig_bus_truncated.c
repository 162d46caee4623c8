/* Touching a mapped page that lies wholly beyond the end of a file raises SIGBUS
   (BUS_ADRERR); the handler records si_addr and recovers with siglongjmp. */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"

static sigjmp_buf recover;
static volatile sig_atomic_t handler_runs;
static volatile int fault_signo, fault_code;
static void *volatile fault_addr;

static void on_bus(int signo, siginfo_t *info, void *context) {
  (void)signo;
  (void)context;
  handler_runs++;
  fault_signo = info->si_signo;
  fault_code = info->si_code;
  fault_addr = info->si_addr;
  siglongjmp(recover, 1);
}

int main(void) {
  long page_size = sysconf(_SC_PAGESIZE);
  char *dir = make_temp_dir();
  char path[256];
  snprintf(path, sizeof path, "%s/truncated", dir);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  CHECK(fd >= 0);
  CHECK(ftruncate(fd, 2 * page_size) == 0);
  char *map = mmap(NULL, 2 * page_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(map != MAP_FAILED);
  map[0] = 'x';
  map[page_size] = 'y';
  /* Shrink the file to one page: the second page of the mapping is now past its end. */
  CHECK(ftruncate(fd, page_size) == 0);

  struct sigaction action = {.sa_sigaction = on_bus, .sa_flags = SA_SIGINFO};
  sigemptyset(&action.sa_mask);
  CHECK(sigaction(SIGBUS, &action, NULL) == 0);

  printf("first page still readable: '%c'\n", map[0]);
  if (sigsetjmp(recover, 1) == 0) {
    char value = ((volatile char *)map)[page_size + 8];
    printf("read '%c' beyond end of file without fault (unexpected)\n", value);
    return 1;
  }
  printf("signo %d (SIGBUS %d) code %d (BUS_ADRERR %d) si_addr offset %td handler runs %d\n",
         fault_signo, SIGBUS, fault_code, BUS_ADRERR, (char *)fault_addr - map, (int)handler_runs);
  CHECK(munmap(map, 2 * page_size) == 0);
  CHECK(close(fd) == 0);
  CHECK(unlink(path) == 0);
  CHECK(rmdir(dir) == 0);
  return 0;
}
