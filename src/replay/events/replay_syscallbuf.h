/* The replay side of the in-process system call buffer: the library's announcing call,
 * refilling a task's buffer with its recorded calls before the task runs, and checking
 * afterwards that the task made exactly those calls. */
#ifndef DEJA_REPLAY_REPLAY_SYSCALLBUF_H
#define DEJA_REPLAY_REPLAY_SYSCALLBUF_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct replay_engine;
struct rptask;
struct event;

/* The EV_SBUF handler (replay_handlers.h) is replay_syscallbuf_handler. */
/* After the current event was replayed: checks the buffered calls its task made since
 * its last EV_SBUF against the recorded ones. 0 or REPLAY_DIVERGED. */
int replay_syscallbuf_check(struct replay_engine *e);
/* At the entry of X's traced call (the current event's; its memory still there, even
 * before an exec or exit): the same check, done now. 0 or REPLAY_DIVERGED. */
int replay_syscallbuf_check_entry(struct replay_engine *e, struct rptask *x);
/* Before task X runs to a traced call's entry: the process's divert word names X's
 * diverted call, if X has one. Threads of a process share the word, and another thread's
 * blocked call flushed between X's flush and X's entry wrote its own. 0 or
 * REPLAY_DIVERGED. */
int replay_syscallbuf_divert(struct replay_engine *e, struct rptask *x);
/* At the end of the trace: the output of the buffered calls no later event checked
 * (the recording ended before their task's next event) is printed as recorded. */
void replay_syscallbuf_finish(struct replay_engine *e);
/* At a debugger's stop: prints the output of the buffered calls the tasks have made so
 * far in the stretches that make their refilled records (what a live process would have
 * printed by then), once; the rest is printed when they are checked. Task RETURNED (a
 * recorded tid, or 0) is at the return of the call of the record it is in. */
void replay_syscallbuf_flush(struct replay_engine *e, pid_t returned);
/* The records refilled into the tasks' buffers and not yet checked: the engine's
 * (e->sbuf_pending), which a checkpoint copies. */
struct syscallbuf_pending;
struct syscallbuf_pending *syscallbuf_pending_new(void);
struct syscallbuf_pending *syscallbuf_pending_copy(const struct syscallbuf_pending *from);
void syscallbuf_pending_free(struct syscallbuf_pending *set);
/* The records written into task REC_TID's buffer and not yet checked (NULL: none), with
 * their length, the EV_SBUF event's number, the buffer's address and the records' offset
 * in its data. */
const uint8_t *replay_syscallbuf_pending(const struct replay_engine *e, pid_t rec_tid,
                                         uint32_t *len, uint64_t *evno, uint64_t *buf,
                                         uint32_t *off);
/* The bytes of an EV_SBUF event's records (its data but a diverted call's header). */
uint32_t syscallbuf_records_len(const struct event *ev);
/* The output to the recording's STREAM (OUT_TO_STDOUT, OUT_TO_STDERR, 0: both) among LEN
 * bytes of an EV_SBUF event's records: calls FN (when not NULL) with each write's stream
 * and its bytes' offset and length in DATA; returns their total. */
uint64_t syscallbuf_output(const uint8_t *data, uint32_t len, unsigned stream,
                           void (*fn)(void *ctx, unsigned stream, uint32_t off, uint32_t n),
                           void *ctx);
/* One line's worth for `deja dump`: the buffered calls and their results. */
void syscallbuf_describe(const struct event *ev, FILE *f);

#endif
