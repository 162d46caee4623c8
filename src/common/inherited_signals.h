/* The signals deja's caller left ignored and blocked. A program inherits both across
 * exec (nohup ignores SIGHUP; a shell's background job ignores SIGINT and SIGQUIT), so the
 * recorded program starts with them as it would without deja, and the trace keeps them
 * in a note (`signals`) that replay gives its program too: a SIGINT that the recorded
 * program ignored must not kill the replayed one. */
#ifndef DEJA_COMMON_INHERITED_SIGNALS_H
#define DEJA_COMMON_INHERITED_SIGNALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define INHERITED_SIGNALS_NOTE "signals"

/* Remembers what deja inherited, before it installs handlers of its own. First in main. */
void inherited_signals_save(void);
/* "ignored HEX blocked HEX" (bit N-1 for signal N) of what was saved, into BUF. */
void inherited_signals_text(char *buf, size_t len);
/* The sets of such a text; false when it is malformed. */
bool inherited_signals_parse(const char *text, uint64_t *ignored, uint64_t *blocked);
/* In a child about to exec: the IGNORED signals ignored, every other one at its default
 * action, the BLOCKED ones blocked, the others not. */
void inherited_signals_set(uint64_t ignored, uint64_t blocked);
/* inherited_signals_set with what was saved. */
void inherited_signals_restore(void);

#endif
