/* What the preload library and deja share: the fixed page holding the library's one
 * untraced `syscall` instruction, the per-thread buffer's layout and the call that
 * announces a buffer to deja. Included by the library and by deja. */
#ifndef DEJA_PRELOAD_SYSCALLBUF_ABI_H
#define DEJA_PRELOAD_SYSCALLBUF_ABI_H

#include <stdint.h>

/* The page the library maps at a fixed address in every process. Its entry point runs
 * one system call: in a recording `syscall; ret` (the seccomp filter lets a call made
 * from there through without a stop), in a replay deja rewrites it to return the
 * recorded result instead (read through the pointer the caller pushed). */
#define SBUF_PAGE_ADDR 0x70000000ul
#define SBUF_ENTRY_ADDR SBUF_PAGE_ADDR
#define SBUF_UNTRACED_IP (SBUF_PAGE_ADDR + 2) /* the address after the `syscall` */
/* A traced `syscall; ret` in the same page: a buffered call that blocked is restarted
 * there by the recorder, so it blocks as a traced call while other tasks run. */
#define SBUF_TRACED_ENTRY_OFF 32
#define SBUF_TRACED_ENTRY_ADDR (SBUF_PAGE_ADDR + SBUF_TRACED_ENTRY_OFF)
#define SBUF_TRACED_ENTRY                                                                          \
  { 0x0f, 0x05, 0xc3 }

/* The entry's code in a recording and in a replay. Both have an instruction boundary at
 * offset 2 (a `ret`), so a task stopped right after the recorded `syscall` resumes
 * correctly in replay too. */
#define SBUF_ENTRY_RECORD                                                                          \
  { 0x0f, 0x05, 0xc3 }
/* jmp +1; ret; jmp SBUF_REPLAY_BODY: the body (below) returns the recorded result. */
#define SBUF_ENTRY_REPLAY                                                                          \
  { 0xeb, 0x01, 0xc3, 0xeb, 0x3b }
/* pushf; movzx ecx,byte [rsp+1]; movzx ecx,byte [rcx+TF_TABLE]; mov [rsp+1],cl (the saved
 * flags without TF); mov rcx,[rsp+16]; mov r11,[rip-53] (the divert word); not r11;
 * lea rcx,[rcx+r11+1]; jrcxz divert; mov rcx,[rsp+16]; mov rax,[rcx]; mov r11,[rsp];
 * lea rsp,[rsp+8]; mov ecx,0x70000002; jmp 0x70000002 (the entry's `ret`): the recorded
 * result, read through the pointer the caller pushed, with rcx and r11 as the recording's
 * `syscall` left them, passing where the recording's `syscall` returned (a state point
 * taken there is reached when its stretch runs under a debugger). A call the
 * recorder restarted as a traced one (it blocked) is diverted (SBUF_DIVERT_CODE:
 * lea rsp,[rsp+8]; jmp SBUF_TRACED_ENTRY) to the traced `syscall`, reached with the
 * flags and registers it had when recorded. No instruction here changes the flags, so
 * none restores them: a debugger single-stepping a popf leaves the trap flag set for
 * good (the kernel takes it for the program's own), and pushf sees the trap flag while
 * stepping, which the table (each byte with bit 0 clear) keeps out of r11. */
#define SBUF_REPLAY_BODY_OFF 64
#define SBUF_REPLAY_BODY                                                                           \
  {                                                                                                \
    0x9c, 0x0f, 0xb6, 0x4c, 0x24, 0x01, 0x0f, 0xb6, 0x89, 0x00, 0x01, 0x00, 0x70, 0x88, 0x4c,      \
        0x24, 0x01, 0x48, 0x8b, 0x4c, 0x24, 0x10, 0x4c, 0x8b, 0x1d, 0xcb, 0xff, 0xff, 0xff, 0x49,  \
        0xf7, 0xd3, 0x4a, 0x8d, 0x4c, 0x19, 0x01, 0xe3, 0xc9, 0x48, 0x8b, 0x4c, 0x24, 0x10, 0x48,  \
        0x8b, 0x01, 0x4c, 0x8b, 0x1c, 0x24, 0x48, 0x8d, 0x64, 0x24, 0x08, 0xb9, 0x02, 0x00, 0x00,  \
        0x70, 0xeb, 0x83                                                                           \
  }
/* 256 bytes: byte i is i with bit 0 (the trap flag of the flags' second byte) clear. */
#define SBUF_TF_TABLE_OFF 256
#define SBUF_DIVERT_CODE_OFF 48
#define SBUF_DIVERT_CODE                                                                           \
  { 0x48, 0x8d, 0x64, 0x24, 0x08, 0xeb, 0xe9 }
/* In a replay: the address of the `ret` word of the record whose call is diverted. */
#define SBUF_DIVERT_OFF 40
#define SBUF_DIVERT_ADDR (SBUF_PAGE_ADDR + SBUF_DIVERT_OFF)

/* Calls that change the address space (anonymous private mmap, munmap, brk, mprotect):
 * replay must make them too. In a replay the library makes them from this `syscall; ret`
 * (the recorded address for mmap, MAP_FIXED_NOREPLACE), which replay's seccomp filter lets
 * through without a stop, and writes the result it got into the record (a different one is
 * a divergence). Their records keep the six arguments after the header (a state point
 * that replay restores rather than runs makes them by injection). */
#define SBUF_EXEC_OFF 128
#define SBUF_EXEC_ADDR (SBUF_PAGE_ADDR + SBUF_EXEC_OFF)
#define SBUF_EXEC_IP (SBUF_EXEC_ADDR + 2)
#define SBUF_EXEC_ENTRY                                                                            \
  { 0x0f, 0x05, 0xc3 }
#define SBUF_EXEC_ARGS_BYTES 48
/* A private read-only mapping of a whole small regular file (offset 0) is buffered too:
 * its record keeps, after the arguments, the file's struct stat (144 bytes, which decides
 * it) and the mapped bytes (sbuf_file_map_bytes); replay makes it as anonymous memory at
 * the recorded address holding them (as EVF_FILE_AS_ANON). Larger files stay traced. */
#define SBUF_FILE_MAP_MAX (64u << 10)
#define SBUF_STAT_BYTES 144
#define SBUF_FILE_MAP_HEAD (SBUF_EXEC_ARGS_BYTES + SBUF_STAT_BYTES)
/* The mapped bytes a record of a file mapping of LEN bytes of a file of SIZE bytes keeps:
 * its pages up to the end of the file. */
static inline uint64_t sbuf_file_map_bytes(uint64_t len, uint64_t size) {
  uint64_t pages = (len + 4095) & ~4095ull;
  return pages < size ? pages : size;
}
/* Whether a file of SIZE bytes can be mapped so: every page holds file bytes (a page
 * wholly past the end would fault with SIGBUS, anonymous memory would not). */
static inline int sbuf_file_map_ok(uint64_t len, uint64_t size) {
  return len && len <= SBUF_FILE_MAP_MAX && size && ((len + 4095) / 4096 - 1) * 4096 < size;
}
static inline int sbuf_exec_call_nr(unsigned nr) {
  return nr == 9 /* mmap */ || nr == 10 /* mprotect */ || nr == 11 /* munmap */ ||
         nr == 12 /* brk */;
}

/* The traced call a thread makes to announce its buffer: (buffer, size, desched fd).
 * deja answers 0 (or SBUF_ANNOUNCE_CHAOS) when it records the buffer; anything else (no
 * deja, or -n) turns the library off. The desched fd (or -1) is the thread's perf software context-switch
 * event: the library enables it around calls that may block, deja takes a copy of it
 * (pidfd_getfd) and is sent a signal when the thread is switched out meanwhile. */
#define SBUF_ANNOUNCE_NR 0x5dea
/* deja's answer under chaos mode (`record -h`): the buffer is taken, and mmaps without
 * an address stay traced (chaos mode chooses their addresses). */
#define SBUF_ANNOUNCE_CHAOS 1
/* A bit of deja's answer: writes to deja's stdout and stderr are traced, not buffered.
 * deja records processes on several CPUs at once, and more than one has been recorded:
 * their traced writes reach the output one at a time in the order of their events,
 * which replay prints in. */
#define SBUF_ANNOUNCE_OUT_TRACED 2
#define SBUF_SIZE (1u << 20)

/* The traced call (op, sem_t *) through which the library makes every operation on a
 * semaphore of sem_open (preload/sem.c): deja does it, one at a time for all processes,
 * on glibc's word (value in the low 32 bits, waiters in the high 32) at the call's exit
 * stop and records the word, so processes sharing only such semaphores run at once
 * (record/record_sem.c). Results: 0 or 1 as below, or -errno. */
#define SBUF_SEM_NR 0x5deb
enum sbuf_sem_op {
  SBUF_SEM_TRYWAIT = 1, /* take one (0), or -EAGAIN */
  SBUF_SEM_WAIT,        /* take one (0), or become a waiter (1) */
  SBUF_SEM_RETRY,       /* a waiter takes one and stops waiting (0), or waits on (1) */
  SBUF_SEM_GIVE_UP,     /* a waiter takes one and stops waiting (0), or just stops (1) */
  SBUF_SEM_POST,        /* add one: 1 when there are waiters to wake, else 0; -EOVERFLOW */
  SBUF_SEM_VALUE,       /* the value */
  SBUF_SEM_UNROUTED,    /* the library cannot route the process's semaphores any more */
};

/* The buffer: this header, then records back to back from SBUF_DATA_OFF. */
struct sbuf_hdr {
  uint32_t used;    /* bytes of complete records; deja resets it after flushing */
  uint32_t in_call; /* the library is inside a buffered call: deja must not reset `used` */
  uint32_t traced;  /* deja makes every call traced: the thread is ptraced by another
                      recorded task, whose PTRACE_SYSCALL must see its calls */
  uint32_t pad0;
  /* deja's stdout [0] and stderr [1] (dev 0 and ino 0: none), set at the announcement:
   * a write to descriptor 0-2 that refers to one of them is output replay prints */
  uint64_t out_dev[2], out_ino[2];
  uint32_t pad1[4];
};
/* In the page: nonzero in a replay (deja writes it; state points never restore the
 * page, which is not writable). */
#define SBUF_REPLAYING_OFF 56
/* In the page: nonzero when the process's writes to deja's stdout and stderr are traced
 * (SBUF_ANNOUNCE_OUT_TRACED for the images started later): deja writes it into the
 * first two processes at the fork that makes the second while it records on several
 * CPUs (an EV_SBUF event flagged EVF_SBUF_OUT_TRACED, without records, says so to replay,
 * which writes it too); their children copy it. */
#define SBUF_OUT_TRACED_OFF 60
/* In the page: the generation of the process's descriptor table, which deja changes at
 * every traced call that may have changed it (each traced call's exit; the entry of an
 * exec or exit): the library's memory of which descriptors are files (fd_cache.c) holds
 * for one generation only. */
#define SBUF_FD_GEN_OFF 16
/* In the page: nonzero when that memory cannot be kept (deja saw the process share its
 * descriptors but not its memory with another, or the reverse, or set up io_uring, which
 * closes descriptors without a call of the process). */
#define SBUF_FD_NOCACHE_OFF 20
#define SBUF_DATA_OFF 64u
#define SBUF_CAPACITY (SBUF_SIZE - SBUF_DATA_OFF)

/* One buffered call: this header, then the bytes the kernel wrote (8-byte aligned). */
struct sbuf_rec {
  uint16_t nr;    /* system call number */
  uint16_t flags; /* SBUF_REC_* */
  uint32_t size;  /* of the whole record */
  uint32_t hash;  /* of the arguments, for the divergence check */
  uint32_t ready; /* a poll probe's result (will the call block) */
  int64_t ret;    /* the call's result */
  int64_t aux;    /* an lseek probe's result (is the descriptor seekable) */
};
#define SBUF_REC_PROBE_ONLY 1u /* the probe said no: the call itself was made traced */
/* A write to descriptor 0-2 (the fd in bits 8-9): its bytes follow the header. Bits
 * 10-11: the descriptor was deja's stdout (1) or stderr (2) when written (replay prints
 * those bytes). */
#define SBUF_REC_OUTPUT 2u
/* The descriptor was known to be a file that is not deja's stdout or stderr (no fstat
 * probe made; `aux` 0), or known to be seekable (no lseek probe made), from an earlier
 * call's probes: in a replay the library follows these flags, not its own memory. */
#define SBUF_REC_FD_PLAIN 4u
#define SBUF_REC_FD_SEEKABLE 8u
#define SBUF_REC_FD_KNOWN (SBUF_REC_FD_PLAIN | SBUF_REC_FD_SEEKABLE)
/* A probe-only record's `aux`: a write's descriptor (3 or above) was deja's stdout or
 * stderr, a getdents64's a /proc directory (preload.c, probe_traced). */
#define SBUF_AUX_TRACED (-0x5dea0000000000ll)
#define SBUF_REC_FD_SHIFT 8
#define SBUF_REC_OUT_SHIFT 10
#define SBUF_REC_OUT_MASK (3u << SBUF_REC_OUT_SHIFT)

#endif
