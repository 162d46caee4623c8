/* Numbers of the Linux x86-64 kernel ABI that deja needs and the C library does not
 * export, defined once. */
#ifndef DEJA_COMMON_KERNEL_ABI_H
#define DEJA_COMMON_KERNEL_ABI_H

/* Results a system call interrupted by a signal leaves for the kernel's signal delivery
 * (restart the call, or fail it with EINTR); user space never sees them. */
#define ERESTARTSYS 512
#define ERESTARTNOINTR 513
#define ERESTARTNOHAND 514
#define ERESTART_RESTARTBLOCK 516

/* True for a result of -ERESTART*. */
#define IS_ERESTART(result) ((result) <= -ERESTARTSYS && (result) >= -ERESTART_RESTARTBLOCK)

#define PAGE_BYTES 4096ull
#define PAGE_OF(addr) ((uint64_t)(addr) & ~(PAGE_BYTES - 1))
/* The legacy vsyscall page (time, gettimeofday, getcpu), which the kernel emulates. */
#define VSYSCALL_PAGE 0xffffffffff600000ull

/* The `syscall` instruction (0f 05). */
#define SYSCALL_INSN_LEN 2

#endif
