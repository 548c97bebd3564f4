/* SPDX-License-Identifier: MIT */
/* The orca command: shared declarations (number parsing, option scanning, clocks, exit codes).
 * Nothing here touches the simulation's arithmetic; the command only reads the library's
 * results, so its own printing and statistics may use libm freely. */
#ifndef ORCA_CLI_H
#define ORCA_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <orca/orca.h>

/* Exit statuses (documented in `orca help`). */
#define EXIT_OK 0
#define EXIT_RUNTIME 1 /* the run itself failed: the library refused a step, a write failed */
#define EXIT_USAGE 2   /* bad command line, bad scene file, bad snapshot */

/* Default values shared by `run`, `scene` and `bench`. */
#define CLI_DEFAULT_SEED 1u
#define CLI_DEFAULT_MAX_STEPS 20000

/* --- number parsing ------------------------------------------------------------------------
 * Each parser takes the whole string (no leading or trailing blanks, no trailing garbage) and
 * returns 0 on success. On failure it returns -1 and writes a message without the subject
 * into why (e.g. "expected a whole number, got 'abc'"). */
int cli_parse_double(const char *s, double *out, char *why, size_t why_size);
/* A whole number in [min, max] (decimal; 0x hexadecimal also accepted). */
int cli_parse_long(const char *s, long long min, long long max, long long *out, char *why,
                   size_t why_size);
/* An unsigned 64-bit integer, decimal or 0x hexadecimal. */
int cli_parse_u64(const char *s, uint64_t *out, char *why, size_t why_size);
/* A comma-separated list of whole numbers in [min, max], at most cap of them. */
int cli_parse_list(const char *s, long long min, long long max, long long *out, int cap,
                   int *count, char *why, size_t why_size);

/* --- command-line scanning -----------------------------------------------------------------
 * A tiny getopt: "--name value", "--name=value", "-x value", "-xvalue"; "--" ends options. */
typedef struct cli_args {
    int argc;
    char **argv;
    int index;           /* next argument to look at */
    const char *command; /* for messages: "run", "bench", ... */
    int only_positional; /* after "--" */
} cli_args;

typedef struct cli_opt {
    const char *long_name; /* without dashes, e.g. "agents" */
    char short_name;       /* 0 if none */
    int takes_value;
} cli_opt;

/* Result of cli_next: */
#define CLI_END (-1)        /* no more arguments */
#define CLI_POSITIONAL (-2) /* *value is a positional argument */
#define CLI_ERROR (-3)      /* message already printed */
/* Returns the index of the option in opts (with *value set when it takes one), or one of the
 * codes above. *name receives the spelling used ("--agents", "-n") for messages. */
int cli_next(cli_args *a, const cli_opt *opts, const char **value, const char **name);

/* Prints "orca: <fmt>" to stderr and a hint to see the help. */
void cli_usage_error(const char *command, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Prints "orca: <fmt>" to stderr. */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Option value helpers: print "orca: --agents: expected a whole number, got 'abc'" and
 * return -1 on failure. */
int cli_opt_long(const char *name, const char *value, long long min, long long max,
                 long long *out);
int cli_opt_double(const char *name, const char *value, double *out);
int cli_opt_u64(const char *name, const char *value, uint64_t *out);

/* --- misc ---------------------------------------------------------------------------------- */
double cli_now(void);          /* monotonic seconds */
int cli_cpu_count(void);       /* online CPUs, at least 1 */
/* "AVX2 vector kernels" or why the scalar code runs (scalar: --scalar was given) */
const char *cli_kernels_text(int scalar);
void cli_hex64(uint64_t v, char out[17]);
/* Writes s as a JSON string literal (with quotes). */
void cli_json_string(FILE *f, const char *s);
/* Reads a whole file into a malloc'd buffer; returns 0, or -1 with errno set. */
int cli_read_file(const char *path, unsigned char **data, size_t *size);

/* --- commands ------------------------------------------------------------------------------ */
int cmd_run(int argc, char **argv);
int cmd_scene(int argc, char **argv);
int cmd_bench(int argc, char **argv);
void help_run(FILE *f);
void help_scene(FILE *f);
void help_bench(FILE *f);

#endif
