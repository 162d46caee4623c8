/* `deja COMMAND ...`: picks the command and hands it its arguments (argv[0] = command name).
 * Version and help requests are answered here so every command gets them the same way. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "common/inherited_signals.h"
#include "common/log.h"
#include "common/private_umask.h"

#ifndef DEJA_VERSION
#define DEJA_VERSION "unknown"
#endif

struct command {
  const char *name;
  int (*run)(int argc, char **argv);
};

static const struct command commands[] = {
    {"record", cmd_record}, {"replay", cmd_replay}, {"dump", cmd_dump},       {"ps", cmd_ps},
    {"ls", cmd_ls},         {"rm", cmd_rm},         {"pack", cmd_pack},       {"help", cmd_help},
    {"caps", cmd_caps},     {"query", cmd_query},   {"gdbinit", cmd_gdbinit},
};

static const struct command *find_command(const char *name) {
  for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
    if (strcmp(commands[i].name, name) == 0)
      return &commands[i];
  return NULL;
}

/* Record options that take a separate value, so the value is not taken for PROGRAM. */
static bool record_option_takes_value(const char *arg) {
  return strcmp(arg, "-o") == 0 || strcmp(arg, "--output-trace-dir") == 0 ||
         strcmp(arg, "--env") == 0;
}

/* True when the command's own options ask for help. Scanning stops at `--`, and for
 * record at PROGRAM, so `deja record prog --help` passes --help to prog. For record, -h
 * means --chaos, not help; for replay, -h followed by a host is rr's --dbghost. */
static bool asks_for_help(const char *command, int argc, char **argv) {
  bool is_record = strcmp(command, "record") == 0;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--") == 0)
      break;
    bool host = !strcmp(command, "replay") && i + 1 < argc && argv[i + 1][0] != '-';
    if (strcmp(arg, "--help") == 0 || (!is_record && !host && strcmp(arg, "-h") == 0))
      return true;
    if (is_record) {
      if (arg[0] != '-')
        break;
      if (record_option_takes_value(arg))
        i++;
    }
  }
  return false;
}

static void print_version(void) { printf("deja %s\n", DEJA_VERSION); }

int main(int argc, char **argv) {
  private_umask_begin();    /* a trace is private whatever the umask */
  inherited_signals_save(); /* before any handler of deja's: what the program inherits */
  if (argc < 2) {
    deja_msg("no command given");
    fputc('\n', stderr);
    print_usage(stderr, NULL);
    return 1;
  }
  const char *name = argv[1];
  if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
    print_version();
    return 0;
  }
  if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0)
    return print_usage(stdout, NULL);

  const struct command *command = find_command(name);
  if (!command) {
    deja_msg("unknown command `%s'", name);
    fputc('\n', stderr);
    print_usage(stderr, NULL);
    return 1;
  }
  if (command->run != cmd_help && asks_for_help(name, argc - 1, argv + 1))
    return print_usage(stdout, name);
  return command->run(argc - 1, argv + 1);
}
