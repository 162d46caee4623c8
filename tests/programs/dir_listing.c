/* Directory listing through opendir/readdir (getdents64): raw order as the kernel gives
   it, then sorted. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void) {
  char *dir = make_temp_dir();
  char path[256];
  for (int i = 0; i < 30; i++) {
    snprintf(path, sizeof path, "%s/file-%02d", dir, i);
    int fd = open(path, O_WRONLY | O_CREAT, 0600);
    CHECK(fd >= 0);
    close(fd);
  }
  snprintf(path, sizeof path, "%s/subdir", dir);
  CHECK(mkdir(path, 0700) == 0);

  DIR *d = opendir(dir);
  CHECK(d != NULL);
  char *names[64] = {0};
  int count = 0;
  struct dirent *entry;
  printf("raw order:\n");
  while ((entry = readdir(d)) != NULL) {
    printf("  %s type %d ino %llu\n", entry->d_name, entry->d_type,
           (unsigned long long)entry->d_ino);
    CHECK(count < 64);
    names[count++] = strdup(entry->d_name);
  }
  closedir(d);
  qsort(names, count, sizeof names[0], compare_names);
  printf("sorted (%d entries):\n", count);
  for (int i = 0; i < count; i++) {
    printf("  %s\n", names[i]);
    if (strcmp(names[i], ".") && strcmp(names[i], "..")) {
      snprintf(path, sizeof path, "%s/%s", dir, names[i]);
      CHECK(remove(path) == 0);
    }
    free(names[i]);
  }
  CHECK(rmdir(dir) == 0);

  /* A big system directory: more entries than one getdents64 buffer. */
  d = opendir("/usr/lib/x86_64-linux-gnu");
  CHECK(d != NULL);
  long entries = 0;
  unsigned long long ino_sum = 0;
  while ((entry = readdir(d)) != NULL) {
    entries++;
    ino_sum += entry->d_ino;
  }
  closedir(d);
  printf("/usr/lib/x86_64-linux-gnu: %ld entries, inode sum %llu\n", entries, ino_sum);
  return 0;
}
