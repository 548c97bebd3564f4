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

/* printf-style checking of the command's message functions (gcc, clang); MinGW-w64 gcc builds use
 * its C99 printf (__USE_MINGW_ANSI_STDIO, CMakeLists.txt), so they are checked as GNU's. */
#if defined(__MINGW32__) && !defined(__clang__)
#define CLI_PRINTF(f, a) __attribute__((format(gnu_printf, f, a)))
#elif defined(__GNUC__)
#define CLI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLI_PRINTF(f, a)
#endif

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
 * into why (e.g. "expected a whole number, got 'abc'"). They are the library's (src/text.h),
 * which reads the scene files' numbers: an option and a scene file take the same numbers. */
int cli_parse_double(const char *s, double *out, char *why, size_t why_size);
/* " (it rounds to 0)" when s, parsed as v, is a nonzero number too small for binary64
 * ("1e-400"), else "": for "must be > 0" messages. */
const char *cli_rounds_to_zero(const char *s, double v);
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

/* The candidate nearest to word by edit distance (insertions, deletions, substitutions and
 * swaps of two neighbours), for a "did you mean" after a slip: NULL when none is within 1
 * edit for words up to 4 characters, 2 up to 8, 3 beyond (ties: the first). cli_next suggests
 * the nearest long option this way. */
const char *cli_suggest(const char *word, const char *const *candidates, int count);

/* The built-in scene called value (an orca_scene_kind), or -1 with a message naming option
 * and the scenes ("--scene: unknown scene 'circel': did you mean 'circle'? (built-in scenes:
 * ...)"). */
int cli_scene_kind(const char *option, const char *value);

/* Prints "orca: <fmt>" to stderr and a hint to see the help. */
void cli_usage_error(const char *command, const char *fmt, ...)
    CLI_PRINTF(2, 3)
    ;
/* Prints "orca: <fmt>" to stderr. */
void cli_error(const char *fmt, ...)
    CLI_PRINTF(1, 2)
    ;

/* Option value helpers: print "orca: --agents: expected a whole number, got 'abc'" and
 * return -1 on failure. */
int cli_opt_long(const char *name, const char *value, long long min, long long max,
                 long long *out);
int cli_opt_double(const char *name, const char *value, double *out);
int cli_opt_u64(const char *name, const char *value, uint64_t *out);

/* Prints "orca: <what>: <message> (ORCA_ERR_...)" for a library call that failed where no
 * simulation holds the message (orca_scenario_create*, orca_sim_create): message is the
 * library's text (orca_scenario_last_error(NULL)), which may be empty. */
void cli_lib_error(orca_status status, const char *message, const char *fmt, ...)
    CLI_PRINTF(3, 4)
    ;
/* Prints a complete message ("scene.txt:3: ...") and a newline to stderr with control
 * characters and bytes that are not UTF-8 shown as \xNN. cli_error does the same. */
void cli_print_message(const char *text);
/* Copies text into buf (size > 4) for a terminal: control characters, U+FEFF and bytes that
 * are not UTF-8 as \xNN; "..." when it does not fit. Returns buf. */
const char *cli_printable(char *buf, size_t size, const char *text);
/* Copies s into buf for a message: in quotes, shortened to about 40 characters ("'abc...'"),
 * cut at a character boundary (the library's, which quotes the scene files' fields). Returns
 * buf. */
const char *cli_quote(char *buf, size_t size, const char *s);

/* --- UTF-8 ---------------------------------------------------------------------------------- */
/* Writes s as a JSON string literal (with quotes): control characters as \u00XX, bytes that
 * are not UTF-8 (a file name from the command line may have any) as \ufffd. */
void cli_json_string(FILE *f, const char *s);

/* --- input files ----------------------------------------------------------------------------
 * Limits on what the command reads (docs/usage.md; a scene file's are the library's,
 * ORCA_SCENE_FILE_MAX and ORCA_SCENE_LINE_MAX: docs/scene-format.md). */
#define CLI_SNAPSHOT_MAX ((size_t)1 << 30) /* bytes of a snapshot: 1 GiB */

/* Result of the readers: */
#define CLI_READ_OK 0
#define CLI_READ_BAD (-1)     /* bad input: missing, unreadable, a directory, too large (exit 2) */
#define CLI_READ_RUNTIME (-2) /* out of memory or a read error (exit 1) */

/* Opens path for reading ("-" is standard input, named "<stdin>" in messages). Refuses a
 * directory. *regular_size is the size of a regular file, or -1 for anything else (a pipe, a
 * terminal, a device: read until the end). Returns CLI_READ_OK or CLI_READ_BAD with a complete
 * message in err ("scene.txt: cannot open: No such file or directory", "DIR: is a directory")
 * and the reason in errno (EISDIR for a directory). */
int cli_open_input(const char *path, int *fd, long long *regular_size, char *err,
                   size_t err_size);
/* read(2) that retries on EINTR. */
long cli_read_some(int fd, void *buf, size_t size);
/* Reads a whole file ("-": standard input) into a malloc'd buffer of at most limit bytes;
 * `kind` names what is read in messages ("snapshot"). A regular file larger than limit is
 * refused before reading; anything else is read in chunks and refused as soon as it passes
 * the limit. With magics non-NULL (a NULL-terminated list of strings of one length), the data
 * must begin with one of them (checked as soon as that many bytes have been read). Returns
 * CLI_READ_OK, CLI_READ_BAD or CLI_READ_RUNTIME with a complete message in err ("out of
 * memory reading FILE (after 200 MiB)"). */
int cli_read_file(const char *path, size_t limit, const char *kind, const char *const *magics,
                  unsigned char **data, size_t *size, char *err, size_t err_size);
/* "1 GiB", "1 MiB", "300 bytes": a limit or a size for messages. */
void cli_format_bytes(char *buf, size_t size, unsigned long long bytes);

/* --- output files ---------------------------------------------------------------------------
 * Every file the command writes goes to a temporary file NAME.tmp.XXXXXX in the target's
 * directory, which replaces the target (rename) only when it is completely written, synced and
 * closed: a failed or interrupted run leaves the old file as it was and no partial file.
 * Devices and pipes (/dev/null, a FIFO) are written directly; "-" is standard output when the
 * option allows it. A symbolic link to a file is followed (the file it names is replaced). */
typedef struct cli_out {
    FILE *f;
    const char *option; /* for messages: "--csv", "-o" */
    const char *path;   /* as given */
    char *target;       /* the file the rename replaces (malloc'd) */
    char *tmp;          /* the temporary file (malloc'd), NULL when writing directly */
    int to_stdout;
    int slot;           /* in the registry the signal handler cleans up, -1 if none */
    int closed;
} cli_out;

/* Opens an output: creates the temporary file now, so that an unwritable path fails before
 * any work. Returns 0, or -1 with a message printed ("orca: --csv: x/y.csv: cannot write:
 * No such file or directory"). */
int cli_out_open(cli_out *o, const char *option, const char *path, int allow_stdout);
/* Flushes, syncs and closes the temporary file (or flushes standard output). Returns 0, or
 * -1 with a message printed and the temporary removed. */
int cli_out_close(cli_out *o);
/* Renames the closed temporary file over the target. Returns 0, or -1 with a message printed
 * and the temporary removed. */
int cli_out_commit(cli_out *o);
/* Abandons the output: closes and removes the temporary file; the target is untouched.
 * Does nothing after a commit or on a zeroed cli_out. */
void cli_out_abort(cli_out *o);
/* 1 when the two paths name the same output file (the same string, or the same existing
 * regular file); 0 for devices and pipes, which are written, not replaced. */
int cli_same_output(const char *a, const char *b);

/* --- platform (platform.c: POSIX or Windows) ------------------------------------------------ */
void cli_platform_init(void);     /* Windows: standard streams in binary mode */
int cli_stderr_is_terminal(void); /* for progress lines */
double cli_now(void);             /* monotonic seconds */
int cli_cpu_count(void);          /* online CPUs, at least 1 */
int cli_open_read(const char *path); /* a file descriptor (binary), or -1 with errno */
long cli_read_fd(int fd, void *buf, size_t size); /* read(2): bytes, 0 at the end, -1 */
void cli_close_fd(int fd);
int cli_temp_file(char *path); /* mkstemp: path ends in XXXXXX; a descriptor or -1 */
/* Gives a temporary file the mode of the file it replaces (exists) or of a new file. */
void cli_temp_mode(int fd, int exists, unsigned mode);
int cli_sync_fd(int fd); /* fsync: 0, or -1 with errno */
/* Renames from over to in one step, replacing an existing to (Windows: MoveFileEx with
 * MOVEFILE_REPLACE_EXISTING). 0, or -1 with errno. */
int cli_replace_file(const char *from, const char *to);
int cli_remove_file(const char *path);
char *cli_link_target(const char *path); /* a symbolic link's resolved file (malloc'd), or NULL */
int cli_same_file(const char *a, const char *b); /* two existing paths, one file (identity) */
void cli_on_termination(void (*handler)(int)); /* for the signals that end the process */
int cli_is_separator(char c); /* ends a directory: '/', and on Windows also a backslash or ':' */
/* What a path names: nothing (or nothing readable), a regular file, a directory, or something
 * else (a device such as /dev/null or NUL, a pipe), which is written, not replaced. */
enum { CLI_PATH_NONE, CLI_PATH_FILE, CLI_PATH_DIR, CLI_PATH_OTHER };
int cli_path_kind(const char *path);

/* --- scene files and scenarios (scene.c) ---------------------------------------------------- */
/* The exit status of a scene file the library refused (orca_scene_file_read*, _build): out of
 * memory and read errors are the run's failure (EXIT_RUNTIME), the rest bad input (EXIT_USAGE). */
int cli_scene_file_exit(orca_status status);
/* Reads the scene file at path ("-": standard input, "<stdin>" in messages) into *out.
 * Returns EXIT_OK, or an exit status with the message printed. */
int cli_scene_file_read(const char *path, orca_scene_file **out);
/* Warns on out (up to 5 lines, then a count) about agents that start at exactly the same
 * point as an earlier one, in index order, unless sim separates coincident agents
 * (orca_sim_separation_active). lines (may be NULL) gives each agent's line, where names the
 * source ("scene.txt:12: warning: agent 3 starts at the same point as agent 1 (line 10) ...",
 * "snapshot run.snap: warning: ..."). Returns the number of such agents. */
int cli_warn_coincident(const orca_vec2 *pos, int n, const int *lines, const char *where,
                        const orca_sim *sim, FILE *out);
/* The same for a scenario just built from file, with the file's lines. */
int cli_warn_file_coincident(const orca_scene_file *file, const char *where, const orca_sim *sim,
                             FILE *out);
/* Rebuilds sc into a new scenario with another dt (and sim definition): the same agents in the
 * same order (so the same perturbation keys), goals, waypoints (and their progress) and
 * segments. Returns an orca_status; on a failure err receives what failed, the library's
 * message and the status name. */
orca_status scene_clone(orca_scenario *sc, const orca_sim_def *sim_def, double dt, uint64_t seed,
                        orca_scenario **out, char *err, size_t err_size);

/* --- misc ---------------------------------------------------------------------------------- */
/* "AVX2 vector kernels" or why the scalar code runs (scalar: --scalar was given) */
const char *cli_kernels_text(int scalar);
void cli_hex64(uint64_t v, char out[17]);

/* --- commands ------------------------------------------------------------------------------ */
int cmd_run(int argc, char **argv);
int cmd_scene(int argc, char **argv);
int cmd_bench(int argc, char **argv);
void help_run(FILE *f);
void help_scene(FILE *f);
void help_bench(FILE *f);

#endif
