/* Helpers shared by the record/replay test programs: a check that stops the program
   with a message and status 99, and printing of raw bytes in hex. */
#ifndef DEJA_TEST_CHECK_H
#define DEJA_TEST_CHECK_H

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: check failed: %s (errno %d: %s)\n", __FILE__, __LINE__, #cond,       \
              errno, strerror(errno));                                                             \
      exit(99);                                                                                    \
    }                                                                                              \
  } while (0)

/* Prints what a call returned and the errno it left, for calls expected to fail; the
   call runs before errno is read (printf's argument order is unspecified). */
#define SHOW_CALL(label, call)                                                                     \
  do {                                                                                             \
    errno = 0;                                                                                     \
    long result_ = (long)(call);                                                                   \
    int errno_ = errno;                                                                            \
    printf("%s: %ld errno %d\n", label, result_, errno_);                                          \
  } while (0)

static inline void print_hex(const char *label, const void *data, size_t len) {
  const unsigned char *bytes = data;
  printf("%s: ", label);
  for (size_t i = 0; i < len; i++)
    printf("%02x", bytes[i]);
  printf("\n");
}

/* Make a fresh directory under /tmp; the caller removes what it creates. */
static inline char *make_temp_dir(void) {
  static char path[] = "/tmp/deja-test-XXXXXX";
  char *dir = mkdtemp(path);
  CHECK(dir != NULL);
  return dir;
}

#endif
