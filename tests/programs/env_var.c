/* The environment: a variable set with `deja record --env DEJA_TEST_VALUE=...`, the
   number of entries and the names in the environment. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

int main(void) {
  const char *value = getenv("DEJA_TEST_VALUE");
  printf("DEJA_TEST_VALUE=%s\n", value ? value : "(unset)");
  int count = 0;
  for (char **entry = environ; *entry; entry++)
    count++;
  printf("environment entries: %d\n", count);
  printf("PATH set: %d\n", getenv("PATH") != NULL);
  return value != NULL && strcmp(value, "hello from --env") == 0 ? 0 : 1;
}
