/* Prints "before", then makes a system call deja does not support (io_uring_setup):
   recording it must stop with status 70 and a message naming the call. Natively the
   call's result does not matter. */
#include <linux/io_uring.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void) {
  printf("before\n");
  fflush(stdout);
  struct io_uring_params params;
  memset(&params, 0, sizeof params);
  long fd = syscall(SYS_io_uring_setup, 1, &params);
  printf("io_uring_setup returned %ld\n", fd);
  if (fd >= 0)
    close((int)fd);
  return 0;
}
