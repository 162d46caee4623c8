/* The backtrace of a replayed thread, unwound by elfutils libdwfl from the call frame
 * information (.eh_frame/.debug_frame) of its files, reading its memory and registers
 * through the replay (the thread stays stopped; nothing is attached to it). */
#ifndef DEJA_QUERY_BACKTRACE_H
#define DEJA_QUERY_BACKTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/engine/replay_engine.h"

/* X's backtrace (registers read) as a JSON array of "function (file:line)" strings, at
 * most 32 frames, into OUT, without the frames of deja's own library it starts with (a
 * write the library made is the program's call to libc's write). CALLED: X is at the
 * first instruction of code without call frame information that was called (the system
 * call buffer's page): unwinding starts at its return address. Returns the pc of the
 * first frame shown (inside its call), or 0. */
uint64_t query_backtrace_json(struct rptask *x, bool called, char *out, size_t len);

#endif
