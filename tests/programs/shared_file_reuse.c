/* Files mapped MAP_SHARED one after the other, each deleted before the next is created:
 * the file system may give the next one the same inode number (deja holds mapped shared
 * files open while recording, so it does not), and replay must map each with its own
 * content. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  char *dir = make_temp_dir();
  char path[256];
  snprintf(path, sizeof path, "%s/file", dir);
  ino_t first = 0;
  int reused = 0;
  for (int i = 0; i < 4; i++) {
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0);
    char text[32];
    int n = snprintf(text, sizeof text, "content of file %d", i);
    CHECK(write(fd, text, (size_t)n) == n);
    struct stat st;
    CHECK(fstat(fd, &st) == 0);
    if (i == 0)
      first = st.st_ino;
    else
      reused += st.st_ino == first;
    char *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(m != MAP_FAILED);
    /* The mapped digit decides a system call argument: a replay that maps another file's
     * content diverges there. */
    printf("mapped: %.*s\n", n, m);
    fflush(stdout);
    CHECK(write(STDOUT_FILENO, "#####\n", (size_t)(m[16] - '0' + 1)) == m[16] - '0' + 1);
    printf("\n");
    m[0] = 'C';
    CHECK(munmap(m, 4096) == 0);
    close(fd);
    CHECK(unlink(path) == 0);
  }
  fprintf(stderr, "inode numbers reused: %d\n", reused);
  CHECK(rmdir(dir) == 0);
  return 0;
}
