/* deja's umask 077 and the user's for its children (private_umask.h). */
#include "common/private_umask.h"

#include <stdbool.h>
#include <sys/stat.h>

static mode_t user_umask;
static bool narrowed;

void private_umask_begin(void) {
  user_umask = umask(077);
  narrowed = true;
}

void private_umask_restore(void) {
  if (narrowed)
    umask(user_umask);
}
