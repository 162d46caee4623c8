/* Removing a directory tree without following symlinks out of it. */
#ifndef DEJA_COMMON_REMOVE_TREE_H
#define DEJA_COMMON_REMOVE_TREE_H

#include <stddef.h>

/* Removes PATH and everything below it (symlinks are removed, never followed; other
 * file systems mounted inside are not entered). Returns 0, or -1 with the first failure
 * in ERR. */
int remove_tree(const char *path, char *err, size_t errlen);

#endif
