/* Redirects the system calls libc makes internally (fopen, opendir, stdio, ...) to the
 * buffer. libc's call sites are found by a table of recognised instruction sequences: a
 * `syscall` followed by the compare libc makes on its result. Each such site becomes a
 * jump to its own trampoline, which sends the numbers the policy may buffer to
 * preload_syscall (below the red zone, preserving the registers a `syscall` preserves)
 * and makes every other call with a `syscall` of its own; then it runs the displaced
 * instruction after it (if any) and jumps back. Only the `syscall` and the instructions
 * displaced with it must not be jump targets: in glibc 2.36 no `syscall` is one. The same code patches the same bytes in a recording and in
 * its replay, so both run the same instructions. */
#include <dlfcn.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/preload.h"

#define TRAMPOLINE_LEN 96 /* per site, rounded up */
#define MAX_SITES 2048
#define MAX_NR 512

/* The recognised sites: PRE bytes before the `syscall` and POST bytes after it are
 * displaced into the trampoline (together at least the 5 bytes of a jump). A PRE of
 * `mov eax, imm32` matches any immediate. */
struct site_pattern {
  uint8_t pre, post;
  uint8_t post_bytes[6];
  bool buffered_only; /* only sites of a number the policy may buffer */
};
static const struct site_pattern patterns[] = {
    {0, 6, {0x48, 0x3d, 0x00, 0xf0, 0xff, 0xff}, false}, /* cmp rax, -4096 */
    {0, 6, {0x48, 0x3d, 0x01, 0xf0, 0xff, 0xff}, false}, /* cmp rax, -4095 */
    {0, 5, {0x3d, 0x00, 0xf0, 0xff, 0xff}, false},       /* cmp eax, -4096 */
    {5, 1, {0xc3}, false},                               /* mov eax, imm32; syscall; ret */
    /* mov eax, imm32; syscall, followed by anything (glibc's futex waits: the next
     * instruction may be a jump target, so it stays in place). Only calls the policy may
     * buffer: a signal raised there (abort's tgkill) would show the trampoline, which
     * has no unwind information, in a debugger's backtrace. */
    {5, 0, {0}, true},
};
#define NPATTERNS (sizeof patterns / sizeof patterns[0])

static uint64_t bufferable[MAX_NR / 64]; /* bit per call number */

long preload_hook_c(long nr, long a0, long a1, long a2, long a3, long a4, long a5);

/* Entered from a trampoline with the call in rax, rdi, rsi, rdx, r10, r8, r9. Returns
 * the result in rax and keeps every other register but rcx and r11 (which `syscall`
 * clobbers too); the library uses no SSE registers. */
__asm__(".text\n"
        ".globl preload_hook\n"
        ".hidden preload_hook\n"
        ".type preload_hook,@function\n"
        "preload_hook:\n"
        /* CFI for debuggers, through the trampoline (which has none) to the libc
         * function of the site: the caller's rsp (the CFA) is above the red zone and the
         * site's address the trampoline pushed, its pc that address */
        "  .cfi_startproc\n"
        "  .cfi_def_cfa %rsp, 144\n"
        "  .cfi_offset 16, -136\n"
        "  push %rbp\n"
        "  .cfi_def_cfa_offset 152\n"
        "  .cfi_offset %rbp, -152\n"
        "  mov %rsp, %rbp\n"
        "  .cfi_def_cfa_register %rbp\n"
        "  push %rdi\n"
        "  push %rsi\n"
        "  push %rdx\n"
        "  push %r10\n"
        "  push %r8\n"
        "  push %r9\n"
        "  and $-16, %rsp\n"
        "  sub $8, %rsp\n"
        "  push %r9\n"
        "  mov %r8, %r9\n"
        "  mov %r10, %r8\n"
        "  mov %rdx, %rcx\n"
        "  mov %rsi, %rdx\n"
        "  mov %rdi, %rsi\n"
        "  mov %rax, %rdi\n"
        "  cld\n"
        "  call preload_hook_c\n"
        "  mov -8(%rbp), %rdi\n"
        "  mov -16(%rbp), %rsi\n"
        "  mov -24(%rbp), %rdx\n"
        "  mov -32(%rbp), %r10\n"
        "  mov -40(%rbp), %r8\n"
        "  mov -48(%rbp), %r9\n"
        "  mov %rbp, %rsp\n"
        "  pop %rbp\n"
        "  .cfi_def_cfa %rsp, 144\n"
        "  ret\n"
        "  .cfi_endproc\n"
        ".size preload_hook, .-preload_hook\n");
void preload_hook(void);

long preload_hook_c(long nr, long a0, long a1, long a2, long a3, long a4, long a5) {
  const long a[6] = {a0, a1, a2, a3, a4, a5};
  return preload_syscall(nr, a);
}

/* Constant sizes: the compiler writes them with moves (a `rep movs` for each of a
 * trampoline's 20 pieces cost a quarter of a millisecond in every process). */
static void put(uint8_t **p, const void *bytes, size_t n) {
  __builtin_memcpy(*p, bytes, n);
  *p += n;
}

/* The displaced instructions, of a pattern's length. */
static void put_displaced(uint8_t **p, const void *bytes, size_t n) {
  preload_copy(*p, bytes, n);
  *p += n;
}

static void put64(uint8_t **p, uint64_t v) { put(p, &v, 8); }

/* Writes at T the trampoline for the `syscall` at SYS matching pattern PT. */
static void write_trampoline(uint8_t *t, const uint8_t *sys, const struct site_pattern *pt) {
  uint8_t *p = t;
  put_displaced(&p, sys - pt->pre, pt->pre); /* the displaced instruction before (mov eax) */
  put(&p, "\x48\x3d\xff\x01\x00\x00", 6);    /* cmp rax, MAX_NR-1 */
  put(&p, "\x77\x38", 2);                    /* ja plain */
  put(&p, "\x49\xbb", 2);                    /* movabs r11, bufferable */
  put64(&p, (uint64_t)bufferable);
  put(&p, "\x49\x0f\xa3\x03", 4);     /* bt [r11], rax */
  put(&p, "\x73\x28", 2);             /* jnc plain */
  put(&p, "\x48\x8d\x64\x24\x80", 5); /* lea rsp, [rsp-128]: the red zone */
  put(&p, "\x49\xbb", 2);             /* movabs r11, the site's end: a debugger's */
  put64(&p, (uint64_t)(sys + 2));     /* ...return address (preload_hook's CFI) */
  put(&p, "\x41\x53", 2);             /* push r11 */
  put(&p, "\x49\xbb", 2);             /* movabs r11, preload_hook */
  put64(&p, (uint64_t)preload_hook);
  put(&p, "\x41\xff\xd3", 3);                     /* call r11 */
  put(&p, "\x48\x8d\xa4\x24\x88\x00\x00\x00", 8); /* lea rsp, [rsp+136] */
  put(&p, "\xeb\x02", 2);                         /* jmp tail */
  put(&p, "\x0f\x05", 2);                         /* plain: syscall */
  put_displaced(&p, sys + 2, pt->post);           /* tail: the displaced instruction after */
  int32_t back = (int32_t)((sys + 2 + pt->post) - (p + 5));
  put(&p, "\xe9", 1); /* jmp back after the site */
  put(&p, &back, 4);
}

struct text {
  uint8_t *start, *end;
};

static int find_libc(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct text *t = data;
  if (!info->dlpi_name || !strstr(info->dlpi_name, "/libc.so.6"))
    return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
      t->start = (uint8_t *)(info->dlpi_addr + ph->p_vaddr);
      t->end = t->start + ph->p_memsz;
      return 1;
    }
  }
  return 0;
}

/* Whether the `syscall` at P (START: the text's start) is right after a `mov eax, imm32`
 * of a number the policy never buffers: such a site stays as it is, so the call (traced
 * anyway) and a signal delivered there stop in libc's function, whose unwind
 * information and symbols a debugger has (gdb's reverse-step from a handler back into
 * its caller needs them), not in a trampoline. A match of bytes that are no such `mov`
 * only leaves a site traced. */
static bool never_buffered(const uint8_t *p, const uint8_t *start) {
  if (p - start < 6 || p[-5] != 0xb8 || (p[-6] & 0xf0) == 0x40 || p[-1] || p[-2])
    return false;
  int nr = p[-3] << 8 | p[-4];
  return nr < MAX_NR && !(bufferable[nr / 64] & (1ull << (nr % 64)));
}

/* Which pattern the `syscall` at P (inside [START, END)) is a site of, or -1. */
static int site_kind(const uint8_t *p, const uint8_t *start, const uint8_t *end) {
  for (size_t k = 0; k < NPATTERNS; k++) {
    const struct site_pattern *pt = &patterns[k];
    if (p - start < pt->pre + 1 || end - p < 2 + pt->post)
      continue;
    if (memcmp(p + 2, pt->post_bytes, pt->post))
      continue;
    /* mov eax, imm32 of a system call number, not the tail of mov r8d, imm32 (REX
     * prefix) */
    if (pt->pre && (p[-5] != 0xb8 || (p[-6] & 0xf0) == 0x40 || p[-1] || p[-2] ||
                    (p[-3] << 8 | p[-4]) >= MAX_NR))
      continue;
    int nr = pt->pre ? p[-3] << 8 | p[-4] : 0;
    if (pt->buffered_only && !(bufferable[nr / 64] & (1ull << (nr % 64))))
      continue;
    return never_buffered(p, start) ? -1 : (int)k;
  }
  return -1;
}

/* The first `syscall` (0f 05) at or after P that ends before END, or END. Eight bytes at
 * a time (libc's text is over a megabyte, scanned in every process at start): a byte of
 * the word at P is zero in X where it is 0f and the byte after it 05, and a word whose X
 * has no zero byte is passed over (half the time of testing for 0f and 05 apart). */
static uint8_t *next_syscall(uint8_t *p, uint8_t *end) {
  const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
  for (; p + 9 <= end; p += 8) {
    uint64_t v, w;
    memcpy(&v, p, 8);
    memcpy(&w, p + 1, 8);
    uint64_t x = (v ^ (ones * 0x0f)) | (w ^ (ones * 0x05));
    if (!((x - ones) & ~x & highs))
      continue;
    for (int i = 0; i < 8; i++)
      if (p[i] == 0x0f && p[i + 1] == 0x05)
        return p + i;
  }
  for (; p + 2 <= end; p++)
    if (p[0] == 0x0f && p[1] == 0x05)
      return p;
  return end;
}

/* libc's _exit (its bytes): its exit_group, never buffered, takes the number from another
 * register (no `mov eax, N` tells), and stays unpatched, so that a debugger's stop at a
 * process's end (rr's and deja's SIGKILL stop at the exit_group) is in _exit, with
 * its backtrace, not in a trampoline. */
static struct text exit_function(void) {
  Dl_info info;
  const ElfW(Sym) *sym = NULL;
  if (!dladdr1((void *)_exit, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym || !info.dli_saddr)
    return (struct text){NULL, NULL};
  uint8_t *start = info.dli_saddr;
  return (struct text){start, start + sym->st_size};
}

void preload_patch_libc(void) {
  struct text t = {NULL, NULL};
  dl_iterate_phdr(find_libc, &t);
  if (!t.start)
    return; /* no libc (or another one): only the replaced functions are buffered */
  for (const int *nr = preload_buffered_calls; *nr >= 0; nr++)
    if (*nr < MAX_NR)
      bufferable[*nr / 64] |= 1ull << (*nr % 64);
  static uint8_t *sites[MAX_SITES];
  static uint8_t kinds[MAX_SITES];
  int n = 0;
  struct text exit_fn = exit_function();
  for (uint8_t *p = next_syscall(t.start, t.end); p < t.end && n < MAX_SITES;
       p = next_syscall(p + 1, t.end)) {
    int k = site_kind(p, t.start, t.end);
    if (k >= 0 && !(p >= exit_fn.start && p < exit_fn.end)) {
      kinds[n] = (uint8_t)k;
      sites[n++] = p;
    }
  }
  if (!n)
    return;
  /* Trampolines below libc, within a 32-bit jump of every site. */
  size_t len = ((size_t)n * TRAMPOLINE_LEN + 4095) & ~(size_t)4095;
  uintptr_t at = ((uintptr_t)t.start & ~(uintptr_t)0xfffff) - len - (1u << 20);
  long tramp = -1;
  for (int tries = 0; tries < 64 && (unsigned long)tramp > -4096ul; tries++, at -= 1u << 24)
    tramp = preload_raw_syscall(SYS_mmap, (long)at, (long)len, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if ((unsigned long)tramp > -4096ul)
    return;
  for (int i = 0; i < n; i++)
    write_trampoline((uint8_t *)tramp + i * TRAMPOLINE_LEN, sites[i], &patterns[kinds[i]]);
  if (preload_raw_syscall(SYS_mprotect, tramp, (long)len, PROT_READ | PROT_EXEC, 0, 0, 0) != 0)
    return;
  uintptr_t lo = (uintptr_t)t.start & ~(uintptr_t)4095;
  uintptr_t hi = ((uintptr_t)t.end + 4095) & ~(uintptr_t)4095;
  if (preload_raw_syscall(SYS_mprotect, (long)lo, (long)(hi - lo),
                          PROT_READ | PROT_WRITE | PROT_EXEC, 0, 0, 0) != 0)
    return;
  for (int i = 0; i < n; i++) {
    const struct site_pattern *pt = &patterns[kinds[i]];
    uint8_t *at = sites[i] - pt->pre, jump[16];
    int len = pt->pre + 2 + pt->post;
    int32_t rel = (int32_t)((tramp + (long)i * TRAMPOLINE_LEN) - (long)(at + 5));
    jump[0] = 0xe9; /* jmp trampoline, then int3s never reached */
    preload_copy(jump + 1, &rel, 4);
    for (int k = 5; k < len; k++)
      jump[k] = 0xcc;
    preload_copy(at, jump, (size_t)len);
  }
  preload_raw_syscall(SYS_mprotect, (long)lo, (long)(hi - lo), PROT_READ | PROT_EXEC, 0, 0, 0);
}
