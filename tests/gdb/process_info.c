/* gdb_process_info: prints its pid, which gdb must show as the process's (info proc,
 * info inferiors), with the recorded command line. */
#include <stdio.h>
#include <unistd.h>

int main(void) {
  printf("%d\n", (int)getpid());
  return 0;
}
