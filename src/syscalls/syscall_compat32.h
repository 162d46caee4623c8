/* 32-bit system calls (`int $0x80`) from 64-bit code: the few deja records, each the same
 * call as a 64-bit one whose arguments and memory are laid out alike. */
#ifndef DEJA_SYSCALLS_SYSCALL_COMPAT32_H
#define DEJA_SYSCALLS_SYSCALL_COMPAT32_H

#include <stdbool.h>
#include <sys/user.h>

/* The 64-bit view of the 32-bit call at entry registers IN (number in orig_rax, arguments
 * in ebx, ecx, edx, esi, edi, ebp) into OUT: its 64-bit number and arguments. False when
 * deja does not record that 32-bit call. */
bool syscall_compat32_view(const struct user_regs_struct *in, struct user_regs_struct *out);
/* The 32-bit call's name ("read"), or NULL when deja does not record it. */
const char *syscall_compat32_name(long nr32);
/* The 32-bit calls deja records, as a comma-separated list for messages. */
const char *syscall_compat32_list(void);

#endif
