/* Positions of the timeline as text: what `deja query` prints as `pos`, and what
 * `deja replay -g POS` and gdb's `monitor goto POS` read back. E is the number of the event
 * the position comes before (as `deja dump` and `monitor when` number them):
 *   E/b                       right before event E (the end of event E-1)
 *   E/a/TID/ADDR/N            task TID's N-th arrival at ADDR in the user code before event E
 *   E/t/TID/ADDR/LEN/N        just after its N-th write of the LEN bytes at ADDR there
 *   E/w/TID/ADDR/LEN/N/W,...  just before that write (W: the instructions that may make it)
 * each then "+K@TID" when K single steps of thread TID come after it (gdb's stepi, next).
 * ADDR and W in hex. */
#ifndef DEJA_REPLAY_TIMELINE_TEXT_H
#define DEJA_REPLAY_TIMELINE_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "replay/timeline/timeline.h"

#define TL_POS_TEXT_MAX 160

/* P as text into BUF (LEN bytes, TL_POS_TEXT_MAX is enough). False when P has no text (a
 * checkpoint's place, a pc moved back, a position counted from a checkpoint). */
bool tl_pos_format(const struct tl_pos *p, char *buf, size_t len);
/* TEXT (as tl_pos_format writes it) into *P. False when TEXT is no position. */
bool tl_pos_parse(const char *text, struct tl_pos *p);

#endif
