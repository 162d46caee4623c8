/* Facts about a task's address space from /proc/TID/maps. */
#ifndef DEJA_TASK_PROC_MAPS_H
#define DEJA_TASK_PROC_MAPS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_mapping {
  uint64_t start, end, offset;
  int prot;  /* PROT_READ | PROT_WRITE | PROT_EXEC */
  bool priv; /* MAP_PRIVATE (p), not shared (s) */
  dev_t dev; /* the file's device and inode (0 for anonymous memory) */
  ino_t ino;
  char name[256];
};

/* Calls FN for each mapping of task TID until it returns non-zero; returns that value,
 * 0, or -1 when the maps cannot be read. */
int proc_maps_each(pid_t tid, int (*fn)(const struct proc_mapping *m, void *ctx), void *ctx);
/* Finds the mapping holding ADDR; returns 0, or -1 when there is none. */
int proc_mapping_find(pid_t tid, uint64_t addr, struct proc_mapping *out);
/* The end of the mapping holding ADDR, 0 when none. */
uint64_t proc_mapping_end(pid_t tid, uint64_t addr);
/* The mappings of the one file other than EXCLUDE (the executable) that task TID maps:
 * right after execve, the program interpreter. Writes its path into PATH and up to MAX
 * entries (start, end, file offset, PROT_*) into MAPS; returns how many, 0 when there is
 * no such file (a static program), -1 on error. */
int proc_file_mappings(pid_t tid, const char *exclude, char *path, size_t pathlen,
                       uint64_t (*maps)[4], int max);
/* Where the kernel placed task TID's brk area (start_brk of /proc/TID/stat); 0 when it
 * cannot be read. */
uint64_t proc_start_brk(pid_t tid);
/* The address of a `syscall` instruction in the task's vDSO (mapped though hidden from
 * the program), for injecting calls at any stop; 0 when there is none. */
uint64_t proc_syscall_gadget(pid_t tid, int mem_fd);

#endif
