/* Probing and matching the calls the recording's environment refused (env_refusals.h). */
#include "syscalls/env_refusals.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "syscalls/syscall_table.h"
#include "task/proc_status.h"

/* Each probe's arguments are ones the kernel itself rejects with another error (or
 * accepts harmlessly): EPERM, EACCES or ENOSYS can only come from a filter (or, for
 * syslog, from dmesg_restrict, where replay refusing it too changes nothing). */
struct probe {
  long nr;
  long a[3];
};
static const struct probe probes[] = {
    {SYS_perf_event_open, {0, 0, -1}},
    {SYS_clone3, {0, 0, 0}},
    {SYS_unshare, {0, 0, 0}},
    {SYS_setns, {-1, 0, 0}},
    {SYS_mount, {0, 0, 0}},
    {SYS_umount2, {0, 0, 0}},
    {SYS_syslog, {10 /* SYSLOG_ACTION_SIZE_BUFFER */, 0, 0}},
    {SYS_bpf, {-1, 0, 0}},
    {SYS_keyctl, {-1, 0, 0}},
    {SYS_add_key, {0, 0, 0}},
    {SYS_request_key, {0, 0, 0}},
    {SYS_pivot_root, {0, 0, 0}},
    {SYS_open_by_handle_at, {-1, 0, 0}},
    {SYS_userfaultfd, {-1, 0, 0}},
    {SYS_fsopen, {0, 0, 0}},
    {SYS_open_tree, {-1, 0, 0}},
    {SYS_move_mount, {-1, 0, -1}},
    {SYS_fspick, {-1, 0, 0}},
    {SYS_fsmount, {-1, 0, 0}},
};

static bool refused(int err) { return err == EPERM || err == EACCES || err == ENOSYS; }

static void add(struct env_refusals *out, uint32_t nr, int err) {
  if (out->n < ENV_REFUSALS_MAX)
    out->r[out->n++] = (struct env_refusal){nr, err};
}

/* In the probing child: one errno per probe, then personality's, into FD. */
static void probe_all(int fd) {
  int errs[sizeof probes / sizeof probes[0] + 1];
  for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
    errno = 0;
    long r = syscall(probes[i].nr, probes[i].a[0], probes[i].a[1], probes[i].a[2], 0, 0, 0);
    errs[i] = r < 0 ? errno : 0;
  }
  int now = personality(0xffffffff);
  errs[sizeof probes / sizeof probes[0]] =
      now >= 0 && personality((unsigned long)now | ADDR_NO_RANDOMIZE) < 0 ? errno : 0;
  ssize_t w = write(fd, errs, sizeof errs);
  (void)w;
}

void env_refusals_probe(struct env_refusals *out) {
  out->n = 0;
  long mode = 0;
  int p[2];
  if (proc_status_number(0, "Seccomp", &mode) < 0 || mode != SECCOMP_MODE_FILTER || pipe(p) < 0)
    return;
  add(out, ENV_REFUSAL_FILTER, 0);
  pid_t pid = fork();
  if (pid == 0) {
    probe_all(p[1]);
    _exit(0);
  }
  close(p[1]);
  int errs[sizeof probes / sizeof probes[0] + 1];
  ssize_t got = pid > 0 ? read(p[0], errs, sizeof errs) : -1;
  close(p[0]);
  if (pid > 0)
    waitpid(pid, NULL, 0);
  if (got != (ssize_t)sizeof errs)
    return;
  for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++)
    if (refused(errs[i]))
      add(out, (uint32_t)probes[i].nr, errs[i]);
  if (refused(errs[sizeof probes / sizeof probes[0]]))
    add(out, SYS_personality, errs[sizeof probes / sizeof probes[0]]);
}

bool env_refusals_filtered(const struct env_refusals *r) {
  for (uint32_t i = 0; i < r->n; i++)
    if (r->r[i].nr == ENV_REFUSAL_FILTER)
      return true;
  return false;
}

/* personality() refused: for all but the values a default container allows (queries,
 * PER_LINUX, PER_LINUX32 and their UNAME26 forms), as Docker's profile says. */
static bool personality_allowed(uint64_t arg0) {
  return arg0 == 0 || arg0 == 8 || arg0 == 0x20000 || arg0 == 0x20008 || arg0 == 0xffffffff;
}

int env_refusals_match(const struct env_refusals *r, long nr, uint64_t arg0) {
  for (uint32_t i = 0; i < r->n; i++)
    if (r->r[i].nr == (uint32_t)nr && nr >= 0)
      return nr == SYS_personality && personality_allowed(arg0) ? 0 : r->r[i].err;
  return 0;
}

int env_refusals_describe(const struct env_refusals *r, char *buf, size_t len) {
  int count = 0;
  size_t at = 0;
  buf[0] = 0;
  for (uint32_t i = 0; i < r->n && at < len; i++) {
    if (r->r[i].nr == ENV_REFUSAL_FILTER)
      continue;
    int w = snprintf(buf + at, len - at, "%s%s", count ? ", " : "", syscall_name(r->r[i].nr));
    at += w > 0 ? (size_t)w : 0;
    count++;
  }
  return count;
}

void env_refusals_decode(struct env_refusals *r, const uint8_t *data, uint32_t len) {
  r->n = 0;
  for (uint32_t at = 0; at + 8 <= len && r->n < ENV_REFUSALS_MAX; at += 8) {
    uint32_t pair[2];
    memcpy(pair, data + at, sizeof pair);
    r->r[r->n++] = (struct env_refusal){pair[0], (int32_t)pair[1]};
  }
}
