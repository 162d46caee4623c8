/* Runs a fuzz target's LLVMFuzzerTestOneInput on every file of the corpus directories (or
 * files) given, without libFuzzer: the committed corpora as ordinary tests of the normal
 * build (tests/fuzz/CMakeLists.txt), so that an input that once crashed a parser is
 * checked at every `make test`. Prints how many inputs ran; a crash fails the test. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_util.h"

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return -1;
  }
  struct stat st;
  if (fstat(fileno(f), &st) != 0) {
    fclose(f);
    return -1;
  }
  size_t size = (size_t)st.st_size;
  uint8_t *data = malloc(size ? size : 1);
  size_t got = fread(data, 1, size, f);
  fclose(f);
  if (got != size) {
    fprintf(stderr, "%s: short read\n", path);
    free(data);
    return -1;
  }
  LLVMFuzzerTestOneInput(data, size);
  free(data);
  return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b) {
  return strcmp((*a)->d_name, (*b)->d_name);
}

/* Runs every regular file of DIR in name order; returns how many, or -1. */
static int run_dir(const char *dir) {
  struct dirent **names;
  int n = scandir(dir, &names, NULL, by_name);
  if (n < 0) {
    perror(dir);
    return -1;
  }
  int ran = 0;
  for (int i = 0; i < n; i++) {
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
    if (names[i]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
      if (run_file(path) != 0)
        ran = -1;
      else if (ran >= 0)
        ran++;
    }
    free(names[i]);
  }
  free(names);
  return ran;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s CORPUS-DIR-OR-FILE...\n", argv[0]);
    return 2;
  }
  int total = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    int n = stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode) ? run_dir(argv[i])
                                                           : (run_file(argv[i]) == 0 ? 1 : -1);
    if (n < 0)
      return 1;
    total += n;
  }
  if (total == 0) {
    fprintf(stderr, "no inputs in the corpus\n");
    return 1;
  }
  printf("%d inputs ran\n", total);
  return 0;
}
