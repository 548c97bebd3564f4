/* SPDX-License-Identifier: MIT */
/* The orca command: run scenes, write scene files, benchmark. */
#include <errno.h>
#include <string.h>

#include "cli.h"

static void help_main(FILE *f)
{
    fputs("Usage: orca COMMAND [options]\n"
          "\n"
          "Deterministic ORCA crowd simulation: the same bits on every compiler, CPU, OS and\n"
          "thread count.\n"
          "\n"
          "Commands:\n"
          "  run      run a scene file or a built-in scene and print a summary\n"
          "           (CSV trajectories, SVG picture, JSON summary, snapshots)\n"
          "  scene    write a built-in scene as a scene file to start from\n"
          "  bench    agent-steps per second and memory per agent at 1k..1M agents\n"
          "  help     this text, or 'orca help COMMAND' for a command's options\n"
          "\n"
          "Options:\n"
          "  -h, --help       this text\n"
          "  -V, --version    the version and the bits version: equal bits versions give\n"
          "                   equal state hashes for the same run (docs/install.md, \"Versions\")\n"
          "\n"
          "Built-in scenes: circle, crossing, wallgap, corridor, random (docs/scenarios.md).\n"
          "Scene files: docs/scene-format.md.\n"
          "\n"
          "Exit status: 0 success, 1 runtime failure, 2 bad usage or bad input.\n"
          "\n"
          "Examples:\n"
          "  orca run --scene circle -n 100 --svg demo.svg\n"
          "  orca scene wallgap -o gap.txt && orca run gap.txt --csv gap.csv --every 10\n"
          "  orca bench --sizes 1000,10000 --workers 1,2\n",
          f);
}

/* ": did you mean 'run'?" after an unknown command or option, or "". */
static const char *did_you_mean(const char *word, char *buf, size_t size)
{
    static const char *const words[] = {"run",    "scene",     "bench", "help",
                                        "--help", "--version", "version"};
    const char *s = cli_suggest(word, words, (int)(sizeof words / sizeof words[0]));
    if (!s) {
        return "";
    }
    snprintf(buf, size, ": did you mean '%s'?", s);
    return buf;
}

static int help_command(const char *cmd, FILE *f)
{
    if (strcmp(cmd, "run") == 0) {
        help_run(f);
    } else if (strcmp(cmd, "scene") == 0) {
        help_scene(f);
    } else if (strcmp(cmd, "bench") == 0) {
        help_bench(f);
    } else if (strcmp(cmd, "help") == 0) {
        help_main(f);
    } else {
        char hint[64];
        cli_usage_error(NULL, "help: unknown command '%s'%s (commands: run, scene, bench, help)",
                        cmd, did_you_mean(cmd, hint, sizeof hint));
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* Standard output (summaries, help, tables) that could not be written is a failure too:
 * `orca run ... > /dev/full` must not exit 0. */
static int finish(int rc)
{
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error("standard output: write failed%s%s", errno ? ": " : "",
                  errno ? strerror(errno) : "");
        return rc == EXIT_OK ? EXIT_RUNTIME : rc;
    }
    return rc;
}

static int dispatch(int argc, char **argv);

int main(int argc, char **argv)
{
    cli_platform_init();
    return finish(dispatch(argc, argv));
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        help_main(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "run") == 0) {
        return cmd_run(argc - 1, argv + 1);
    }
    if (strcmp(cmd, "scene") == 0) {
        return cmd_scene(argc - 1, argv + 1);
    }
    if (strcmp(cmd, "bench") == 0) {
        return cmd_bench(argc - 1, argv + 1);
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        if (argc > 3) {
            cli_usage_error(NULL, "help: one command at a time");
            return EXIT_USAGE;
        }
        if (argc == 3) {
            return help_command(argv[2], stdout);
        }
        help_main(stdout);
        return EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0 || strcmp(cmd, "version") == 0) {
        printf("orca %s (bits version %d)\n", orca_version(), orca_bits_version());
        return EXIT_OK;
    }
    char hint[64];
    if (cmd[0] == '-') {
        cli_usage_error(NULL, "unknown option '%s'%s", cmd, did_you_mean(cmd, hint, sizeof hint));
    } else {
        cli_usage_error(NULL, "unknown command '%s'%s (commands: run, scene, bench, help)", cmd,
                        did_you_mean(cmd, hint, sizeof hint));
    }
    return EXIT_USAGE;
}
