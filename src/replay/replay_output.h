/* Output a replayed program writes to the recorder's stdout or stderr. */
#ifndef DEJA_REPLAY_REPLAY_OUTPUT_H
#define DEJA_REPLAY_REPLAY_OUTPUT_H

struct replay_engine;
struct rptask;

/* At a skipped write-family call (write, writev, pwrite64, pwritev, pwritev2) whose
 * recorded output went to the recorder's stdout or stderr: reads the bytes from X's own
 * memory, compares them with the recorded ones and writes them (unless -q). A difference
 * is a divergence naming the descriptor and the first differing byte. Returns 0 or an
 * exit code (REPLAY_DIVERGED). */
int replay_output(struct replay_engine *e, struct rptask *x);

#endif
