/* Memory written by calls whose output depends on a command argument: SysV IPC control
 * and msgrcv, ptrace requests, keyctl, quotactl, sysfs, name_to_handle_at, getxattrat,
 * capget. Sizes are the x86-64 kernel's. */
#include "syscalls/syscall_regions_special.h"

#include <errno.h>
#include <stddef.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#define IPC_64_FLAG 0x100 /* glibc ORs it into the command */
#define SHMID_DS_SIZE 112
#define SHMINFO_SIZE 72
#define SHM_INFO_SIZE 48
#define SEMID_DS_SIZE 104
#define SEMINFO_SIZE 40
#define MSQID_DS_SIZE 120
#define MSGINFO_SIZE 32
#define USER_REGS_SIZE 216
#define USER_FPREGS_SIZE 512
#define SIGINFO_SIZE 128
#define SYSFS_NAME_CAP 256
#define CAP_VERSION_1 0x19980330u /* _LINUX_CAPABILITY_VERSION_1 */
#define CAP_DATA_SIZE 12          /* struct __user_cap_data_struct */

/* SysV command numbers (linux/ipc.h, shm.h, sem.h, msg.h). */
enum {
  CMD_IPC_STAT = 2,
  CMD_IPC_INFO = 3,
  CMD_GETALL = 13,
  CMD_SEM_STAT = 18,
  CMD_SEM_INFO = 19,
  CMD_SEM_STAT_ANY = 20,
  CMD_SHM_STAT = 13,
  CMD_SHM_INFO = 14,
  CMD_SHM_STAT_ANY = 15,
  CMD_MSG_STAT = 11,
  CMD_MSG_INFO = 12,
  CMD_MSG_STAT_ANY = 13,
};

/* ptrace requests that write to the tracer's memory. */
enum {
  PT_PEEKTEXT = 1,
  PT_PEEKDATA = 2,
  PT_PEEKUSER = 3,
  PT_GETREGS = 12,
  PT_GETFPREGS = 14,
  PT_GET_THREAD_AREA = 25,
  PT_GETEVENTMSG = 0x4201,
  PT_GETSIGINFO = 0x4202,
  PT_GETREGSET = 0x4204,
  PT_PEEKSIGINFO = 0x4209,
  PT_GETSIGMASK = 0x420a,
  PT_SECCOMP_GET_FILTER = 0x420c,
  PT_GET_SYSCALL_INFO = 0x420e,
};

/* keyctl operations that fill a buffer (args[2], length args[3]). */
enum { KC_DESCRIBE = 6, KC_READ = 11, KC_GET_SECURITY = 17, KC_DH_COMPUTE = 23 };

/* quotactl subcommands (cmd >> 8) and what they write at addr. */
enum {
  Q_GETFMT_ = 0x800004,
  Q_GETINFO_ = 0x800005,
  Q_GETQUOTA_ = 0x800007,
  Q_GETNEXTQUOTA_ = 0x800009
};

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

static int sem_count(uint64_t id) {
  struct semid_ds ds;
  union {
    struct semid_ds *buf;
  } arg = {.buf = &ds};
  /* Asked of the kernel by deja itself: the set is in the same IPC namespace. */
  if (semctl((int)id, 0, IPC_STAT, arg) < 0)
    return 0;
  return (int)ds.sem_nsems;
}

static int ipc_ctl(const struct syscall_desc *d, const uint64_t a[6], struct special_regions *s) {
  uint64_t cmd = a[d->nr == SYS_semctl ? 2 : 1] & ~(uint64_t)IPC_64_FLAG;
  uint64_t buf = a[d->nr == SYS_semctl ? 3 : 2];
  uint64_t len = 0;
  if (d->nr == SYS_shmctl)
    len = cmd == CMD_IPC_STAT || cmd == CMD_SHM_STAT || cmd == CMD_SHM_STAT_ANY ? SHMID_DS_SIZE
          : cmd == CMD_IPC_INFO                                                 ? SHMINFO_SIZE
          : cmd == CMD_SHM_INFO                                                 ? SHM_INFO_SIZE
                                                                                : 0;
  else if (d->nr == SYS_semctl)
    len = cmd == CMD_IPC_STAT || cmd == CMD_SEM_STAT || cmd == CMD_SEM_STAT_ANY ? SEMID_DS_SIZE
          : cmd == CMD_IPC_INFO || cmd == CMD_SEM_INFO                          ? SEMINFO_SIZE
          : cmd == CMD_GETALL ? (uint64_t)sem_count(a[0]) * sizeof(unsigned short)
                              : 0;
  else
    len = cmd == CMD_IPC_STAT || cmd == CMD_MSG_STAT || cmd == CMD_MSG_STAT_ANY ? MSQID_DS_SIZE
          : cmd == CMD_IPC_INFO || cmd == CMD_MSG_INFO                          ? MSGINFO_SIZE
                                                                                : 0;
  s->add(s, buf, len);
  return 0;
}

static int ptrace_regions(const uint64_t a[6], int64_t result, struct special_regions *s) {
  uint64_t addr = a[2], data = a[3];
  switch (a[0]) {
  case PT_PEEKTEXT:
  case PT_PEEKDATA:
  case PT_PEEKUSER:
  case PT_GETEVENTMSG:
  case PT_GETSIGMASK: s->add(s, data, 8); break;
  case PT_GETREGS: s->add(s, data, USER_REGS_SIZE); break;
  case PT_GETFPREGS: s->add(s, data, USER_FPREGS_SIZE); break;
  case PT_GET_THREAD_AREA: s->add(s, data, 16); break; /* struct user_desc */
  case PT_GETSIGINFO: s->add(s, data, SIGINFO_SIZE); break;
  case PT_PEEKSIGINFO: s->add(s, data, (uint64_t)result * SIGINFO_SIZE); break;
  case PT_SECCOMP_GET_FILTER: s->add(s, data, (uint64_t)result * 8); break;
  case PT_GET_SYSCALL_INFO: s->add(s, data, min_u64(addr, (uint64_t)result)); break;
  case PT_GETREGSET: {
    struct iovec iov; /* iov_len now holds what the kernel wrote */
    if (s->read(s, data, &iov, sizeof iov) != 0)
      return -1;
    s->add(s, data, sizeof iov);
    s->add(s, (uint64_t)(uintptr_t)iov.iov_base, iov.iov_len);
    break;
  }
  default: break;
  }
  return 0;
}

static void quota_regions(uint64_t cmd, uint64_t addr, struct special_regions *s) {
  switch (cmd >> 8) {
  case Q_GETFMT_: s->add(s, addr, 4); break;
  case Q_GETINFO_: s->add(s, addr, 24); break;
  case Q_GETQUOTA_: s->add(s, addr, 72); break;
  case Q_GETNEXTQUOTA_: s->add(s, addr, 80); break;
  default: break;
  }
}

/* A NUL-terminated string the kernel wrote at ADDR (at most CAP bytes). */
static int string_region(uint64_t addr, size_t cap, struct special_regions *s) {
  char buf[SYSFS_NAME_CAP];
  if (cap > sizeof buf)
    cap = sizeof buf;
  for (size_t i = 0; i < cap; i++) {
    if (s->read(s, addr + i, buf + i, 1) != 0)
      return -1;
    if (buf[i] == 0) {
      s->add(s, addr, i + 1);
      return 0;
    }
  }
  s->add(s, addr, cap);
  return 0;
}

/* capget: an unknown version in the header is replaced by the kernel's (the call then
 * fails with EINVAL, or returns 0 without data: libcap's version query); data is one
 * 12-byte struct for version 1, two for versions 2 and 3. */
static int capget_regions(const uint64_t a[6], int64_t result, struct special_regions *s) {
  uint32_t version;
  if ((result != 0 && result != -EINVAL) || !a[0])
    return 0;
  s->add(s, a[0], sizeof version);
  if (result != 0 || !a[1])
    return 0;
  if (s->read(s, a[0], &version, sizeof version) != 0)
    return -1;
  s->add(s, a[1], version == CAP_VERSION_1 ? CAP_DATA_SIZE : 2 * CAP_DATA_SIZE);
  return 0;
}

int special_regions(const struct syscall_desc *d, const uint64_t a[6], int64_t result,
                    struct special_regions *s) {
  if (d->nr == SYS_capget)
    return capget_regions(a, result, s);
  if (result < 0)
    return 0;
  switch (d->nr) {
  case SYS_shmctl:
  case SYS_semctl:
  case SYS_msgctl: return ipc_ctl(d, a, s);
  case SYS_msgrcv: s->add(s, a[1], 8 + (uint64_t)result); return 0; /* mtype, then the text */
  case SYS_ptrace: return ptrace_regions(a, result, s);
  case SYS_keyctl:
    if (a[0] == KC_DESCRIBE || a[0] == KC_READ || a[0] == KC_GET_SECURITY || a[0] == KC_DH_COMPUTE)
      s->add(s, a[2], min_u64(a[3], (uint64_t)result));
    return 0;
  case SYS_quotactl: quota_regions(a[0], a[3], s); return 0;
  case SYS_quotactl_fd: quota_regions(a[1], a[3], s); return 0;
  case SYS_sysfs: return a[0] == 2 ? string_region(a[2], SYSFS_NAME_CAP, s) : 0;
  case SYS_name_to_handle_at: {
    uint32_t bytes; /* struct file_handle: handle_bytes, handle_type, f_handle[] */
    if (s->read(s, a[2], &bytes, sizeof bytes) != 0)
      return -1;
    s->add(s, a[2], 8 + (uint64_t)bytes);
    return 0;
  }
  case 464: { /* getxattrat: struct xattr_args { u64 value; u32 size; u32 flags; } */
    struct {
      uint64_t value;
      uint32_t size, flags;
    } xa;
    if (a[5] < sizeof xa || s->read(s, a[4], &xa, sizeof xa) != 0)
      return -1;
    s->add(s, xa.value, min_u64(xa.size, (uint64_t)result));
    return 0;
  }
  default: return 0;
  }
}
