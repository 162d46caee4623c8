/* The local CID of a VM socket device (IOCTL_VM_SOCKETS_GET_LOCAL_CID on /dev/vsock, as
 * Python's test_socket asks): its encoding names no size, yet it writes 4 bytes, which
 * replay must give back (it returned the buffer's own bytes, and test_socket took
 * another path). Prints the pid and the CID. */
#include <fcntl.h>
#include <linux/vm_sockets.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  int fd = open("/dev/vsock", O_RDONLY);
  CHECK(fd >= 0);
  unsigned cid = 0x20202020;
  CHECK(ioctl(fd, IOCTL_VM_SOCKETS_GET_LOCAL_CID, &cid) == 0);
  printf("pid %d: local cid %u\n", getpid(), cid);
  return 0;
}
