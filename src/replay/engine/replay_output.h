/* Output a replayed program writes to the recorder's stdout or stderr. */
#ifndef DEJA_REPLAY_REPLAY_OUTPUT_H
#define DEJA_REPLAY_REPLAY_OUTPUT_H

#include <stdint.h>

struct replay_engine;
struct rptask;

/* How far the program's output has been printed, for every session of one replay (in
 * struct replay_shared; the engine's e->printed): going back, to a checkpoint or by
 * replaying again from the start, does not print it twice. */
struct replay_printed {
  uint64_t traced; /* the last event of a traced write whose output was printed */
  uint64_t sbuf;   /* the last EV_SBUF event whose records' output was printed whole */
  /* the EV_SBUF event whose records were printed up to part_bytes (at a debugger's stop
   * inside the stretch that makes them: replay_syscallbuf_flush) */
  uint64_t part_event;
  uint32_t part_bytes;
};

/* At a skipped write-family call (write, writev, pwrite64, pwritev, pwritev2) whose
 * recorded output went to the recorder's stdout or stderr: reads the bytes from X's own
 * memory, compares them with the recorded ones and writes them (unless -q, or an earlier
 * pass printed them: replay_printed). A difference
 * is a divergence naming the descriptor and the first differing byte. Returns 0 or an
 * exit code (REPLAY_DIVERGED). */
int replay_output(struct replay_engine *e, struct rptask *x);

/* Writes LEN recorded bytes to stdout (OUT_TO_STDOUT) or stderr (OUT_TO_STDERR), unless
 * -q: buffered writes' output (checked afterwards against what the program wrote). */
void replay_print(struct replay_engine *e, unsigned out_to, const uint8_t *data, uint32_t len);

#endif
