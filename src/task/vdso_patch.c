/* The vDSO stays visible to the program (AT_SYSINFO_EHDR), so programs that look for it
 * find a valid one, but its time functions are rewritten to make the real system call:
 * the answers then cross the recording boundary and are recorded like any call. The
 * vDSO's pages are private to the process, so the rewrite (through /proc/PID/mem) only
 * touches the traced program. */
#include "task/vdso_patch.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#define VDSO_MAX (64 * 1024)

/* mov $NR, %eax; syscall; ret */
static void syscall_stub(uint8_t out[8], uint32_t nr) {
  out[0] = 0xb8;
  memcpy(out + 1, &nr, 4);
  out[5] = 0x0f;
  out[6] = 0x05;
  out[7] = 0xc3;
}

/* The system call each vDSO function stands for; -1: a function that is made to answer
 * -ENOSYS (the C library then makes the call itself); 0: not a time function. */
static long call_for(const char *name) {
  if (strncmp(name, "__vdso_", 7) == 0)
    name += 7;
  if (strcmp(name, "clock_gettime") == 0)
    return SYS_clock_gettime;
  if (strcmp(name, "gettimeofday") == 0)
    return SYS_gettimeofday;
  if (strcmp(name, "time") == 0)
    return SYS_time;
  if (strcmp(name, "getcpu") == 0)
    return SYS_getcpu;
  if (strcmp(name, "clock_getres") == 0)
    return SYS_clock_getres;
  if (strcmp(name, "getrandom") == 0)
    return -1;
  return 0;
}

int vdso_patch(struct task *t, uint64_t base) {
  Elf64_Ehdr eh;
  if (task_read_mem(t, base, &eh, sizeof eh) < 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0)
    return -1;
  uint64_t size = eh.e_shoff + (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr);
  if (size > VDSO_MAX)
    return -1;
  uint8_t *img = malloc(size);
  if (!img || task_read_mem(t, base, img, size) < 0) {
    free(img);
    return -1;
  }
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh.e_shoff);
  int patched = 0;
  for (int i = 0; i < eh.e_shnum; i++) {
    if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh.e_shnum)
      continue;
    const Elf64_Shdr *strs = &sh[sh[i].sh_link];
    if (sh[i].sh_offset + sh[i].sh_size > size || strs->sh_offset + strs->sh_size > size)
      continue;
    const Elf64_Sym *sym = (const Elf64_Sym *)(img + sh[i].sh_offset);
    for (uint64_t k = 0; k < sh[i].sh_size / sizeof *sym; k++) {
      if (ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC || !sym[k].st_value ||
          sym[k].st_name >= strs->sh_size)
        continue;
      const char *name = (const char *)img + strs->sh_offset + sym[k].st_name;
      if (!memchr(name, 0, strs->sh_size - sym[k].st_name))
        continue;
      long nr = call_for(name);
      if (!nr)
        continue;
      uint8_t code[8];
      if (nr > 0) {
        syscall_stub(code, (uint32_t)nr);
      } else { /* mov $-ENOSYS, %rax (48 c7 c0 imm32); ret */
        int32_t enosys = -ENOSYS;
        code[0] = 0x48;
        code[1] = 0xc7;
        code[2] = 0xc0;
        memcpy(code + 3, &enosys, 4);
        code[7] = 0xc3;
      }
      uint64_t at = base + sym[k].st_value; /* the vDSO is linked at 0 */
      if (task_write_mem(t, at, code, sizeof code) < 0) {
        free(img);
        return -1;
      }
      patched++;
    }
  }
  free(img);
  return patched;
}

int vdso_patch_from_auxv(struct task *t, const uint8_t *auxv, size_t len) {
  for (size_t off = 0; off + 16 <= len; off += 16) {
    uint64_t av[2];
    memcpy(av, auxv + off, 16);
    if (av[0] == AT_NULL)
      break;
    if (av[0] == AT_SYSINFO_EHDR)
      return vdso_patch(t, av[1]);
  }
  return 0;
}
