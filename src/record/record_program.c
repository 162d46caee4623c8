/* The program to record (recorder.h): found through PATH, and told apart from programs
 * deja cannot record (32-bit, not x86-64). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "record/recorder.h"

char *record_find_program(const char *program) {
  struct stat st;
  if (strchr(program, '/')) /* a directory is searchable (X_OK), not a program */
    return stat(program, &st) == 0 && S_ISREG(st.st_mode) && access(program, X_OK) == 0
               ? xstrdup(program)
               : NULL;
  const char *path = getenv("PATH");
  if (!path)
    path = "/usr/local/bin:/usr/bin:/bin";
  while (*path) {
    const char *end = strchrnul(path, ':');
    char *cand = xasprintf("%.*s/%s", (int)(end - path), path, program);
    if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
      return cand;
    free(cand);
    path = *end ? end + 1 : end;
  }
  return NULL;
}

const char *record_foreign_program(const char *path) {
  unsigned char h[20];
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  ssize_t n = fd >= 0 ? read(fd, h, sizeof h) : -1;
  if (fd >= 0)
    close(fd);
  if (n < (ssize_t)sizeof h || memcmp(h, "\177ELF", 4) != 0)
    return NULL; /* a script, or unreadable: the kernel decides at exec */
  unsigned machine = h[18] | (unsigned)h[19] << 8;
  if (h[4] == 2 && machine == 62) /* ELFCLASS64, EM_X86_64 */
    return NULL;
  return h[4] == 1 && machine == 3 ? "32-bit x86" : h[4] == 1 ? "32-bit non-x86" : "non-x86-64";
}

bool record_program_supported(const char *path) {
  const char *kind = record_foreign_program(path);
  if (kind)
    deja_msg("`%s' is a %s program; deja records 64-bit x86-64 programs only", path, kind);
  return !kind;
}
