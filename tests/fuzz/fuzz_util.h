/* Helpers the fuzz targets share (tests/fuzz/fuzz_*.c, header only): silencing deja's
 * messages, a file holding the input, and a peer that plays gdb's side of a socket. */
#ifndef DEJA_FUZZ_UTIL_H
#define DEJA_FUZZ_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/log.h"

/* Every fuzz target defines this; replay_corpus.c calls it too. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* deja's messages are formatted (that is code under test too) but not printed. */
static void fuzz_swallow_line(void *arg, const char *line) {
  (void)arg;
  (void)line;
}

static inline void fuzz_quiet(void) { deja_msg_tee(fuzz_swallow_line, NULL); }

/* Stops the run: an oracle of a fuzz target failed (libFuzzer saves the input). */
static inline void fuzz_fail(const char *what) {
  fprintf(stderr, "fuzz oracle failed: %s\n", what);
  abort();
}

/* A memory file holding DATA, and its path (/proc/self/fd/N) in PATH. -1 on failure. */
static inline int fuzz_memfile(const void *data, size_t size, char *path, size_t pathlen) {
  int fd = memfd_create("deja-fuzz", MFD_CLOEXEC);
  if (fd < 0)
    return -1;
  const uint8_t *p = data;
  size_t done = 0;
  while (done < size) {
    ssize_t n = write(fd, p + done, size - done);
    if (n <= 0) {
      close(fd);
      return -1;
    }
    done += (size_t)n;
  }
  snprintf(path, pathlen, "/proc/self/fd/%d", fd);
  return fd;
}

/* gdb's side of a connection: a thread writes the input into one end of a socketpair
 * and reads (and drops) whatever comes back, both at once so that neither side blocks,
 * until the other end is closed. */
struct fuzz_peer {
  int fd, served_fd; /* the thread's end, the end the code under test reads */
  const uint8_t *data;
  size_t size;
  pthread_t thread;
};

static void *fuzz_peer_main(void *arg) {
  struct fuzz_peer *p = arg;
  size_t sent = 0;
  bool writing = true;
  if (p->size == 0) {
    shutdown(p->fd, SHUT_WR);
    writing = false;
  }
  for (;;) {
    struct pollfd pfd = {.fd = p->fd, .events = (short)(POLLIN | (writing ? POLLOUT : 0))};
    if (poll(&pfd, 1, -1) < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    if (pfd.revents & (POLLIN | POLLHUP | POLLERR)) {
      char buf[4096];
      ssize_t n = recv(p->fd, buf, sizeof buf, MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
        break; /* the other end is closed */
    }
    if (writing && (pfd.revents & POLLOUT)) {
      ssize_t n = send(p->fd, p->data + sent, p->size - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n > 0)
        sent += (size_t)n;
      if ((n < 0 && errno != EAGAIN && errno != EINTR) || sent == p->size) {
        shutdown(p->fd, SHUT_WR); /* gdb has said everything: the reader sees EOF */
        writing = false;
      }
    }
  }
  return NULL;
}

/* Starts the peer; returns the end to serve, or -1. */
static inline int fuzz_peer_start(struct fuzz_peer *p, const uint8_t *data, size_t size) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    return -1;
  p->fd = fds[0];
  p->served_fd = fds[1];
  p->data = data;
  p->size = size;
  if (pthread_create(&p->thread, NULL, fuzz_peer_main, p) != 0) {
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  return p->served_fd;
}

/* Closes the served end and waits for the peer to see it. */
static inline void fuzz_peer_finish(struct fuzz_peer *p) {
  close(p->served_fd);
  pthread_join(p->thread, NULL);
  close(p->fd);
}

#endif
