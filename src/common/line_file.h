/* One-line files, such as the notes beside a trace's events that say how the machine
 * recorded it (`cpu`: the CPU cpuid answered on; `rdtsc`: rdtsc was patched into traps). */
#ifndef DEJA_COMMON_LINE_FILE_H
#define DEJA_COMMON_LINE_FILE_H

#include <stdbool.h>
#include <stddef.h>

/* Writes TEXT as the file NAME in DIR. Returns 0, or -1 after saying what failed. */
int line_file_write(const char *dir, const char *name, const char *text);
/* The first line of the file NAME in DIR into BUF (LEN bytes); false when there is
 * no such file (or it is empty). */
bool line_file_read(const char *dir, const char *name, char *buf, size_t len);

#endif
