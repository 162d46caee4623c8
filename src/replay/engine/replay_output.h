/* Output a replayed program writes to the recorder's stdout or stderr. */
#ifndef DEJA_REPLAY_REPLAY_OUTPUT_H
#define DEJA_REPLAY_REPLAY_OUTPUT_H

#include <stdint.h>

struct replay_engine;
struct rptask;

/* At a skipped write-family call (write, writev, pwrite64, pwritev, pwritev2) whose
 * recorded output went to the recorder's stdout or stderr: reads the bytes from X's own
 * memory, compares them with the recorded ones and writes them (unless -q). A difference
 * is a divergence naming the descriptor and the first differing byte. Returns 0 or an
 * exit code (REPLAY_DIVERGED). */
int replay_output(struct replay_engine *e, struct rptask *x);

/* Writes LEN recorded bytes to stdout (OUT_TO_STDOUT) or stderr (OUT_TO_STDERR), unless
 * -q: buffered writes' output (checked afterwards against what the program wrote). */
void replay_print(struct replay_engine *e, unsigned out_to, const uint8_t *data, uint32_t len);

#endif
