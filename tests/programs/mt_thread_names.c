/* Each thread names itself with prctl(PR_SET_NAME) and reads the name back from
   /proc/self/task/<tid>/comm; the names are printed sorted (thread order varies). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "check.h"

enum { THREADS = 4 };

static char names_read[THREADS + 1][32];

static void name_and_read_back(int index, const char *name) {
  CHECK(prctl(PR_SET_NAME, name, 0, 0, 0) == 0);
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%d/comm", (int)gettid());
  FILE *comm = fopen(path, "r");
  CHECK(comm != NULL);
  CHECK(fgets(names_read[index], sizeof names_read[index], comm) != NULL);
  fclose(comm);
  names_read[index][strcspn(names_read[index], "\n")] = '\0';
  char via_prctl[17] = {0};
  CHECK(prctl(PR_GET_NAME, via_prctl, 0, 0, 0) == 0);
  CHECK(strcmp(via_prctl, names_read[index]) == 0);
}

static void *worker(void *arg) {
  int index = (int)(long)arg;
  static const char *const names[THREADS] = {"worker-delta", "worker-alpha", "worker-charlie",
                                             "worker-bravo"};
  name_and_read_back(index, names[index]);
  return NULL;
}

static int compare_names(const void *a, const void *b) { return strcmp(a, b); }

int main(void) {
  pthread_t threads[THREADS];
  for (long i = 0; i < THREADS; i++)
    CHECK(pthread_create(&threads[i], NULL, worker, (void *)i) == 0);
  for (int i = 0; i < THREADS; i++)
    CHECK(pthread_join(threads[i], NULL) == 0);
  name_and_read_back(THREADS, "main-thread");
  qsort(names_read, THREADS + 1, sizeof names_read[0], compare_names);
  for (int i = 0; i <= THREADS; i++)
    printf("%s\n", names_read[i]);
  return 0;
}
