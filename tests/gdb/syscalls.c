/* gdb_syscalls: prints the pid getpid() returned while recorded; gdb's `catch syscall`
 * must show the same value at the call's return. */
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void) {
  long pid = syscall(SYS_getpid);
  printf("%ld\n", pid);
  return 0;
}
