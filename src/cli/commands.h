/* One function per `deja` command; argv[0] is the command name. Each returns the process
 * exit status (SPEC.md: record returns the program's status or 70; replay 0/1/3; others
 * 0 on success, 1 on usage errors or unreadable traces). */
#ifndef DEJA_CLI_COMMANDS_H
#define DEJA_CLI_COMMANDS_H

int cmd_record(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_ps(int argc, char **argv);
int cmd_ls(int argc, char **argv);
int cmd_rm(int argc, char **argv);
int cmd_pack(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_caps(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_gdbinit(int argc, char **argv);

/* Prints the usage of COMMAND (NULL: the overview) to F. Returns 0, or 1 when COMMAND is
 * not a command. */
#include <stdbool.h>
#include <stdio.h>
int print_usage(FILE *f, const char *command);
/* True, after saying so with COMMAND's usage, when ARG (where COMMAND takes a TRACE) is an
 * option: these commands have none (-h and --help are answered before). */
bool unknown_option(const char *command, const char *arg);

#endif
