/* The divergence check: recorded and replayed register states compared. */
#ifndef DEJA_REPLAY_REGS_COMPARE_H
#define DEJA_REPLAY_REGS_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/user.h>

/* True when they differ; OUT lists the differing registers ("rdi 0x1 != 0x2, ..."). The
 * resume flag (RF) in eflags is ignored: it depends on how the stop was reached. */
bool regs_differ(const struct user_regs_struct *want, const struct user_regs_struct *got, char *out,
                 size_t len);

/* The same for the registers a system call is made with only (number, arguments, rip,
 * rsp, fs_base). */
bool regs_differ_in_call(const struct user_regs_struct *want, const struct user_regs_struct *got,
                         char *out, size_t len);

#endif
