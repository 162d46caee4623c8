/* A program whose buffered calls differ between recording and replay: it reads the
   code of the system call buffer's entry page, which replay changes. Replaying it must
   report a divergence naming the calls (used by the syscallbuf_diverge test). */
#include <stdio.h>
#include <unistd.h>

int main(void) {
  const volatile unsigned char *entry = (const unsigned char *)0x70000000ul;
  int recording = entry[0] == 0x0f; /* `syscall` while recording */
  printf("made %d\n", recording ? getuid() + 1 : geteuid() + 1);
  return 0;
}
