/* Fields of /proc/TID/status ("Name:\tvalue" lines), read in one go. */
#ifndef DEJA_TASK_PROC_STATUS_H
#define DEJA_TASK_PROC_STATUS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One reading of the file: fields asked of it agree with each other. */
struct proc_status {
  char *text;
  size_t len;
};

/* Reads task TID's status (TID 0: deja itself); 0, or -1 with errno (ENOENT, ESRCH: the
 * task is gone). A snapshot read must be released with proc_status_free. */
int proc_status_read(pid_t tid, struct proc_status *s);
void proc_status_free(struct proc_status *s);

/* Field NAME's value of a snapshot, its leading blanks skipped. Each returns 0 (or a
 * count), or -1 with errno ENOENT (no such field), EINVAL (not that kind of value) or
 * ERANGE (OUT too small), the output then left as it was. */
int proc_status_get(const struct proc_status *s, const char *name, char *out, size_t len);
/* A hexadecimal signal set: SigPnd, ShdPnd, SigBlk, SigIgn, SigCgt (bit SIG-1 is SIG). */
int proc_status_get_mask(const struct proc_status *s, const char *name, uint64_t *mask);
/* A decimal number: Tgid, PPid, TracerPid, Seccomp, VmHWM (in kB)... */
int proc_status_get_number(const struct proc_status *s, const char *name, long *value);
/* A list of decimal numbers (NSpid, Uid, Gid): up to MAX into VALUES; returns how many. */
int proc_status_get_numbers(const struct proc_status *s, const char *name, long *values, int max);

/* The same for one field, read from TID's status (0: deja's); errors of either step. */
int proc_status_field(pid_t tid, const char *name, char *out, size_t len);
int proc_status_mask(pid_t tid, const char *name, uint64_t *mask);
int proc_status_number(pid_t tid, const char *name, long *value);
int proc_status_numbers(pid_t tid, const char *name, long *values, int max);

/* /proc/TID/stat read into BUF (LEN bytes): the text from field 3 (the state), after
 * the command name; NULL when it cannot be read. */
const char *proc_stat_fields(pid_t tid, char *buf, size_t len);

#endif
