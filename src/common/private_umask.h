/* deja's own files are private whatever the user's umask: deja runs with umask 077 (so a
 * mode it asks for is the mode a file gets, and an umask of 0777 does not leave it unable
 * to write its own directories), and what it starts (the recorded program, gdb) gets the
 * user's umask back. */
#ifndef DEJA_COMMON_PRIVATE_UMASK_H
#define DEJA_COMMON_PRIVATE_UMASK_H

/* Sets umask 077 for deja, remembering the user's. Called once, first thing in main. */
void private_umask_begin(void);
/* In a child about to exec a program: the user's umask again. */
void private_umask_restore(void);

#endif
