/* Fuzz target: what the content store (src/trace/trace_store.c, trace_files.c,
 * file_content.c) reads that a trace or a store brings along: a preserved file's name (it
 * comes from the events: "BASE-<hash>"), its bytes, and the text of the store's symbolic
 * links (.id-KEY -> hash, .ok-HASH -> identity). The input is one flags byte, the name,
 * a NUL, the links' text, a NUL, then the file's bytes. Each run builds a trace directory
 * and its store from them (in /dev/shm when there is one), checks the file
 * (trace_files_check), collects the store and unshares the trace (deja rm, deja pack),
 * then removes it all.
 * Flags: 1 the file is made sparse and large (past the size where good marks are used),
 * 2 the file is linked into the store by its hash, 4 an unused entry is left in the store. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/remove_tree.h"
#include "fuzz_util.h"
#include "trace/file_content.h"
#include "trace/trace_files.h"
#include "trace/trace_store.h"

#define LARGE_FILE (300u * 1024u) /* over trace_files.c's ID_MIN_BYTES */

static char base[64];
static unsigned run;

static void remove_base(void) {
  char err[512];
  (void)remove_tree(base, err, sizeof err);
}

static void make_base(void) {
  if (base[0])
    return;
  const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  snprintf(base, sizeof base, "%s/deja-fuzz-store.XXXXXX", tmp);
  if (!mkdtemp(base))
    fuzz_fail("cannot make a directory for the store");
  atexit(remove_base);
}

/* The next NUL-terminated field of [*P, END), or NULL. */
static char *field(const uint8_t **p, const uint8_t *end) {
  const uint8_t *nul = memchr(*p, 0, (size_t)(end - *p));
  if (!nul)
    return NULL;
  char *s = strndup((const char *)*p, (size_t)(nul - *p));
  *p = nul + 1;
  return s;
}

static bool usable_name(const char *name) {
  return name[0] && strlen(name) < 200 && !strchr(name, '/') && strcmp(name, ".") != 0 &&
         strcmp(name, "..") != 0;
}

static void write_file(const char *path, const uint8_t *data, size_t size, bool large) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    return;
  if (write(fd, data, size) != (ssize_t)size || (large && ftruncate(fd, LARGE_FILE) != 0))
    fuzz_fail("cannot write the preserved file");
  close(fd);
}

/* The store as the input describes it, beside the trace at TRACE. */
static void make_store(const char *store, const char *files, const char *name,
                       const char *link_text, unsigned flags) {
  mkdir(store, 0700);
  const char *hash = file_content_hash_of_name(name);
  const char *entry = hash ? hash : name;
  char *from = xasprintf("%s/%s", files, name), *to = xasprintf("%s/%s", store, entry);
  if (flags & 2)
    (void)link(from, to);
  char *ok = xasprintf("%s/" TRACE_STORE_OK_PREFIX "%s", store, entry);
  char *id = xasprintf("%s/" TRACE_STORE_ID_PREFIX "1-2-3", store);
  if (link_text[0]) {
    (void)symlink(link_text, ok);
    (void)symlink(link_text, id);
  }
  if (flags & 4) {
    char *unused = xasprintf("%s/0123456789abcdef0123456789abcdef", store);
    write_file(unused, (const uint8_t *)"x", 1, false);
    free(unused);
  }
  free(from);
  free(to);
  free(ok);
  free(id);
}

static void exercise(const char *dir, const char *name, const char *link_text, const uint8_t *bytes,
                     size_t nbytes, unsigned flags) {
  char *trace = xasprintf("%s/trace", dir), *files = xasprintf("%s/trace/files", dir);
  char *store = trace_store_dir(trace), *path = xasprintf("%s/%s", files, name);
  char err[512];
  mkdir(trace, 0700);
  mkdir(files, 0700);
  write_file(path, bytes, nbytes, flags & 1);
  make_store(store, files, name, link_text, flags);
  struct stat before, after;
  bool had = stat(path, &before) == 0;
  for (int i = 0; i < 2; i++) /* the second time from what the first found */
    (void)trace_files_check(trace, name, err, sizeof err);
  (void)trace_store_collect(store, err, sizeof err);
  if (trace_store_unshare(trace, err, sizeof err) == 0 && had &&
      (stat(path, &after) != 0 || after.st_size != before.st_size))
    fuzz_fail("deja pack lost a preserved file or changed its size");
  free(trace);
  free(files);
  free(store);
  free(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  fuzz_quiet();
  make_base();
  const uint8_t *p = data + 1, *end = data + size;
  char *name = field(&p, end), *link_text = name ? field(&p, end) : NULL;
  if (link_text && usable_name(name)) {
    char *dir = xasprintf("%s/%u", base, run++);
    if (mkdir(dir, 0700) == 0)
      exercise(dir, name, link_text, p, (size_t)(end - p), data[0]);
    char err[512];
    if (remove_tree(dir, err, sizeof err) != 0)
      fuzz_fail(err);
    free(dir);
  }
  char *store = trace_store_dir(name ? name : "");
  free(store);
  free(name);
  free(link_text);
  return 0;
}
