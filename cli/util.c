/* SPDX-License-Identifier: MIT */
/* The orca command: number parsing, option scanning and small helpers. */
#define _XOPEN_SOURCE 700 /* POSIX 2008: fdopen, strdup */
#include "cli.h"
#include "text.h" /* the library's number parsers and UTF-8 (src/text.h) */

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#ifndef S_ISDIR /* MSVC's <sys/stat.h> has the bits, not the macros */
#define S_ISDIR(m) (((m) & S_IFMT) == S_IFDIR)
#define S_ISREG(m) (((m) & S_IFMT) == S_IFREG)
#endif
#if defined(_WIN32) && !defined(__MINGW32__)
#define fdopen _fdopen
#endif

/* --- numbers ------------------------------------------------------------------------------
 * The library's parsers (src/text.h), which read the scene files' numbers. */

const char *cli_quote(char *buf, size_t size, const char *s)
{
    return orca_quote(buf, size, s);
}

int cli_parse_double(const char *s, double *out, char *why, size_t why_size)
{
    return orca_parse_double(s, out, why, why_size);
}

const char *cli_rounds_to_zero(const char *s, double v)
{
    return orca_rounds_to_zero(s, v);
}

int cli_parse_long(const char *s, long long min, long long max, long long *out, char *why,
                   size_t why_size)
{
    return orca_parse_long(s, min, max, out, why, why_size);
}

int cli_parse_u64(const char *s, uint64_t *out, char *why, size_t why_size)
{
    return orca_parse_u64(s, out, why, why_size);
}

int cli_parse_list(const char *s, long long min, long long max, long long *out, int cap,
                   int *count, char *why, size_t why_size)
{
    int n = 0;
    const char *p = s;
    char item[64];
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len >= sizeof item) {
            len = sizeof item - 1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        if (n >= cap) {
            snprintf(why, why_size, "at most %d values, got more", cap);
            return -1;
        }
        int r = cli_parse_long(item, min, max, &out[n], why, why_size);
        if (r != 0) {
            return r;
        }
        ++n;
        if (!comma) {
            break;
        }
        p = comma + 1;
    }
    *count = n;
    return 0;
}

/* --- messages ----------------------------------------------------------------------------- */

const char *cli_printable(char *buf, size_t size, const char *text)
{
    /* Control characters, the invisible U+FEFF and bytes that are not UTF-8 (from file
     * contents or file names) as \xNN, so that a message is one readable line. */
    size_t n = 0;
    const unsigned char *p = (const unsigned char *)text;
    while (*p) {
        uint32_t cp = 0;
        int len = orca_utf8_next(p, &cp);
        int escape = len == 0 || cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0xFEFF;
        int bytes = len ? len : 1;
        size_t need = escape ? 4 * (size_t)bytes : (size_t)bytes;
        if (n + need + 4 > size) {
            break; /* no room: "..." below */
        }
        for (int i = 0; i < bytes; ++i) {
            if (escape) {
                snprintf(buf + n, size - n, "\\x%02x", p[i]);
                n += 4;
            } else {
                buf[n++] = (char)p[i];
            }
        }
        p += bytes;
    }
    if (*p && size >= 4) {
        memcpy(buf + (n + 4 <= size ? n : size - 4), "...", 4);
    } else if (size > 0) {
        buf[n < size ? n : size - 1] = '\0';
    }
    return buf;
}

void cli_print_message(const char *text)
{
    char out[4096];
    fprintf(stderr, "%s\n", cli_printable(out, sizeof out, text));
}

static void vmessage(const char *fmt, va_list ap)
{
    char buf[4096];
    int n = snprintf(buf, sizeof buf, "orca: ");
    vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    cli_print_message(buf);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
}

void cli_lib_error(orca_status status, const char *message, const char *fmt, ...)
{
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (message && message[0]) {
        cli_error("%s: %s (%s)", what, message, orca_status_name(status));
    } else {
        cli_error("%s: failed (%s)%s", what, orca_status_name(status),
                  status == ORCA_ERR_MEMORY ? ": out of memory" : "");
    }
}

void cli_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
    if (command) {
        fprintf(stderr, "Try 'orca %s --help'.\n", command);
    } else {
        fputs("Try 'orca --help'.\n", stderr);
    }
}

int cli_opt_long(const char *name, const char *value, long long min, long long max,
                 long long *out)
{
    char why[160];
    if (cli_parse_long(value, min, max, out, why, sizeof why) != 0) {
        cli_error("%s: %s", name, why);
        return -1;
    }
    return 0;
}

int cli_opt_double(const char *name, const char *value, double *out)
{
    char why[160];
    if (cli_parse_double(value, out, why, sizeof why) != 0) {
        cli_error("%s: %s", name, why);
        return -1;
    }
    return 0;
}

int cli_opt_u64(const char *name, const char *value, uint64_t *out)
{
    char why[160];
    if (cli_parse_u64(value, out, why, sizeof why) != 0) {
        cli_error("%s: %s", name, why);
        return -1;
    }
    return 0;
}

/* --- suggestions ------------------------------------------------------------------------------ */

#define SUGGEST_MAX_LEN 64 /* longer words get no suggestion */

/* The edit distance of a and b (each at most SUGGEST_MAX_LEN bytes): insertions, deletions,
 * substitutions and swaps of two neighbours cost 1 each (optimal string alignment). */
static int edit_distance(const char *a, const char *b)
{
    int la = (int)strlen(a), lb = (int)strlen(b);
    int d[SUGGEST_MAX_LEN + 1][SUGGEST_MAX_LEN + 1];
    for (int i = 0; i <= la; ++i) {
        d[i][0] = i;
    }
    for (int j = 0; j <= lb; ++j) {
        d[0][j] = j;
    }
    for (int i = 1; i <= la; ++i) {
        for (int j = 1; j <= lb; ++j) {
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            best = d[i - 1][j] + 1 < best ? d[i - 1][j] + 1 : best;
            best = d[i][j - 1] + 1 < best ? d[i][j - 1] + 1 : best;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best) {
                best = d[i - 2][j - 2] + 1;
            }
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

const char *cli_suggest(const char *word, const char *const *candidates, int count)
{
    size_t len = strlen(word);
    if (len == 0 || len > SUGGEST_MAX_LEN) {
        return NULL;
    }
    int limit = len <= 4 ? 1 : len <= 8 ? 2 : 3;
    const char *best = NULL;
    int best_d = limit + 1;
    for (int i = 0; i < count; ++i) {
        if (strlen(candidates[i]) > SUGGEST_MAX_LEN) {
            continue;
        }
        int dist = edit_distance(word, candidates[i]);
        if (dist < best_d) {
            best = candidates[i];
            best_d = dist;
        }
    }
    return best;
}

int cli_scene_kind(const char *option, const char *value)
{
    int kind = orca_scene_from_name(value);
    if (kind < 0) {
        const char *names[ORCA_SCENE_COUNT];
        for (int k = 0; k < ORCA_SCENE_COUNT; ++k) {
            names[k] = orca_scene_name((orca_scene_kind)k);
        }
        const char *near = cli_suggest(value, names, ORCA_SCENE_COUNT);
        char hint[64] = "";
        if (near) {
            snprintf(hint, sizeof hint, ": did you mean '%s'?", near);
        }
        cli_error("%s: unknown scene '%s'%s (built-in scenes: circle, crossing, wallgap, "
                  "corridor, random)",
                  option, value, hint);
    }
    return kind;
}

/* --- options ------------------------------------------------------------------------------ */

/* The long option nearest to the name (len bytes; "--" not included), or NULL. */
static const char *suggest_option(const cli_opt *opts, const char *name, size_t len)
{
    char word[SUGGEST_MAX_LEN + 1];
    const char *names[64];
    int count = 0;
    if (len > SUGGEST_MAX_LEN) {
        return NULL;
    }
    memcpy(word, name, len);
    word[len] = '\0';
    for (int i = 0; opts[i].long_name && count < 64; ++i) {
        names[count++] = opts[i].long_name;
    }
    return cli_suggest(word, names, count);
}

/* "run: unknown option '--stpes': did you mean '--steps'?" */
static void unknown_option(const cli_args *a, const char *spelled, const char *suggestion)
{
    char hint[96] = "";
    if (suggestion) {
        snprintf(hint, sizeof hint, ": did you mean '--%s'?", suggestion);
    }
    cli_usage_error(a->command, "%s%sunknown option '%s'%s", a->command ? a->command : "",
                    a->command ? ": " : "", spelled, hint);
}

int cli_next(cli_args *a, const cli_opt *opts, const char **value, const char **name)
{
    static char spelled[80];
    *value = NULL;
    *name = NULL;
    if (a->index >= a->argc) {
        return CLI_END;
    }
    char *arg = a->argv[a->index++];
    if (a->only_positional || arg[0] != '-' || arg[1] == '\0') {
        *value = arg;
        return CLI_POSITIONAL;
    }
    if (strcmp(arg, "--") == 0) {
        a->only_positional = 1;
        return cli_next(a, opts, value, name);
    }
    const char *inline_value = NULL;
    int found = -1;
    if (arg[1] == '-') {
        const char *body = arg + 2;
        const char *eq = strchr(body, '=');
        size_t len = eq ? (size_t)(eq - body) : strlen(body);
        for (int i = 0; opts[i].long_name; ++i) {
            if (strlen(opts[i].long_name) == len && strncmp(opts[i].long_name, body, len) == 0) {
                found = i;
                break;
            }
        }
        snprintf(spelled, sizeof spelled, "--%.*s", (int)(len > 60 ? 60 : len), body);
        if (found < 0) {
            unknown_option(a, spelled, suggest_option(opts, body, len));
            return CLI_ERROR;
        }
        if (eq) {
            if (!opts[found].takes_value) {
                cli_usage_error(a->command, "%s takes no value (got '%s')", spelled, eq + 1);
                return CLI_ERROR;
            }
            inline_value = eq + 1;
        }
    } else {
        for (int i = 0; opts[i].long_name; ++i) {
            if (opts[i].short_name && opts[i].short_name == arg[1]) {
                found = i;
                break;
            }
        }
        snprintf(spelled, sizeof spelled, "-%c", arg[1]);
        if (found < 0) {
            /* "-steps": a long option with one dash */
            const char *suggestion =
                arg[2] ? suggest_option(opts, arg + 1, strlen(arg + 1)) : NULL;
            if (suggestion) {
                snprintf(spelled, sizeof spelled, "%.60s", arg);
            }
            unknown_option(a, spelled, suggestion);
            return CLI_ERROR;
        }
        if (arg[2] != '\0') {
            if (!opts[found].takes_value) {
                cli_usage_error(a->command, "%s takes no value (got '%s')", spelled, arg + 2);
                return CLI_ERROR;
            }
            inline_value = arg + 2;
        }
    }
    *name = spelled;
    if (opts[found].takes_value) {
        if (inline_value) {
            *value = inline_value;
        } else if (a->index < a->argc) {
            *value = a->argv[a->index++];
        } else {
            cli_usage_error(a->command, "%s needs a value", spelled);
            return CLI_ERROR;
        }
    }
    return found;
}

/* --- misc --------------------------------------------------------------------------------- */

const char *cli_kernels_text(int scalar)
{
    if (scalar) {
        return "scalar code (--scalar)";
    }
    orca_sim *sim = NULL;
    orca_status st = orca_sim_create(NULL, &sim);
    if (st != ORCA_OK) {
        /* Not knowing is not the same as "no vector kernels": say why. */
        return st == ORCA_ERR_MEMORY ? "kernels unknown (orca_sim_create: ORCA_ERR_MEMORY)"
                                     : "kernels unknown (orca_sim_create failed)";
    }
    int on = orca_sim_get_vector_kernels(sim);
    orca_sim_destroy(sim);
    return on ? "AVX2 vector kernels" : "scalar code (no vector kernels for this CPU)";
}

void cli_hex64(uint64_t v, char out[17])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 15; i >= 0; --i) {
        out[i] = digits[v & 15u];
        v >>= 4;
    }
    out[16] = '\0';
}

/* --- UTF-8 and escaping ---------------------------------------------------------------------- */

void cli_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        uint32_t cp = 0;
        int len = orca_utf8_next(p, &cp);
        if (len == 0) {
            fputs("\\ufffd", f); /* not UTF-8: JSON text cannot carry the byte */
            ++p;
            continue;
        }
        switch (cp) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (cp < 0x20 || cp == 0x7F) {
                fprintf(f, "\\u%04x", (unsigned)cp);
            } else {
                fwrite(p, 1, (size_t)len, f);
            }
        }
        p += len;
    }
    fputc('"', f);
}

/* --- input files ------------------------------------------------------------------------------ */

void cli_format_bytes(char *buf, size_t size, unsigned long long bytes)
{
    orca_format_bytes(buf, size, bytes);
}

long cli_read_some(int fd, void *buf, size_t size)
{
    for (;;) {
        long n = cli_read_fd(fd, buf, size);
        if (n >= 0 || errno != EINTR) {
            return n;
        }
    }
}

int cli_open_input(const char *path, int *fd, long long *regular_size, char *err,
                   size_t err_size)
{
    int is_stdin = strcmp(path, "-") == 0;
    const char *shown = is_stdin ? "<stdin>" : path;
    int d = is_stdin ? 0 : cli_open_read(path);
    int e = 0; /* the reason, kept in errno for the caller (snprintf may change errno) */
    if (d < 0) {
        e = errno;
        if (e == EISDIR) { /* (Windows: a directory cannot be opened as a file) */
            snprintf(err, err_size, "%s: is a directory", shown);
        } else {
            snprintf(err, err_size, "%s: cannot open: %s", shown, strerror(e));
        }
        errno = e;
        return CLI_READ_BAD;
    }
    struct stat st;
    if (fstat(d, &st) != 0) {
        e = errno;
        snprintf(err, err_size, "%s: cannot open: %s", shown, strerror(e));
    } else if (S_ISDIR(st.st_mode)) {
        e = EISDIR;
        snprintf(err, err_size, "%s: is a directory", shown);
    }
    if (e != 0) {
        if (!is_stdin) {
            cli_close_fd(d);
        }
        errno = e;
        return CLI_READ_BAD;
    }
    *regular_size = S_ISREG(st.st_mode) ? (long long)st.st_size : -1;
    *fd = d;
    return CLI_READ_OK;
}

/* Whether buf begins with one of the magics (each len bytes). */
static int begins_with_magic(const unsigned char *buf, const char *const *magics, size_t len)
{
    for (int i = 0; magics[i]; ++i) {
        if (memcmp(buf, magics[i], len) == 0) {
            return 1;
        }
    }
    return 0;
}

/* "ORCASCEN or ORCASNAP" for a message. */
static void magic_list(char *buf, size_t size, const char *const *magics)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; magics[i] && at < size; ++i) {
        int w = snprintf(buf + at, size - at, "%s%s", i == 0 ? "" : magics[i + 1] ? ", " : " or ",
                         magics[i]);
        at += w > 0 ? (size_t)w : 0;
    }
}

int cli_read_file(const char *path, size_t limit, const char *kind, const char *const *magics,
                  unsigned char **data, size_t *size, char *err, size_t err_size)
{
    int is_stdin = strcmp(path, "-") == 0;
    const char *shown = is_stdin ? "<stdin>" : path;
    int fd = -1;
    long long regular = -1;
    int rc = cli_open_input(path, &fd, &regular, err, err_size);
    if (rc != CLI_READ_OK) {
        return rc;
    }
    char lim[64];
    cli_format_bytes(lim, sizeof lim, limit);
    size_t magic_len = magics && magics[0] ? strlen(magics[0]) : 0;
    unsigned char *buf = NULL;
    size_t cap = 0, len = 0;
    if (regular >= 0 && (unsigned long long)regular > limit) {
        char got[64];
        cli_format_bytes(got, sizeof got, (unsigned long long)regular);
        snprintf(err, err_size, "%s: %s is more than the limit of %s for a %s", shown, got, lim,
                 kind);
        rc = CLI_READ_BAD;
        goto out;
    }
    /* A regular file: its size (+1 to see the end at once); anything else: 64 KiB, doubled. */
    cap = regular >= 0 ? (size_t)regular + 1 : (size_t)1 << 16;
    if (cap > limit) {
        cap = limit;
    }
    if (cap == 0) {
        cap = 1;
    }
    buf = malloc(cap);
    if (!buf) {
        snprintf(err, err_size, "out of memory reading %s", shown);
        rc = CLI_READ_RUNTIME;
        goto out;
    }
    for (;;) {
        if (len == cap) {
            if (cap >= limit) {
                /* Full: one more byte means the file is larger than the limit. */
                unsigned char extra;
                long n = cli_read_some(fd, &extra, 1);
                if (n > 0) {
                    snprintf(err, err_size,
                             "%s: more than the limit of %s for a %s (stopped reading there)",
                             shown, lim, kind);
                    rc = CLI_READ_BAD;
                    goto out;
                }
                if (n < 0) {
                    int e = errno;
                    snprintf(err, err_size, "%s: read error: %s", shown, strerror(e));
                    rc = CLI_READ_RUNTIME;
                    goto out;
                }
                break;
            }
            size_t ncap = cap > limit / 2 ? limit : cap * 2;
            unsigned char *nb = realloc(buf, ncap);
            if (!nb) {
                char got[64];
                cli_format_bytes(got, sizeof got, len);
                snprintf(err, err_size, "out of memory reading %s (after %s)", shown, got);
                rc = CLI_READ_RUNTIME;
                goto out;
            }
            buf = nb;
            cap = ncap;
        }
        size_t want = cap - len;
        if (want > ((size_t)1 << 24)) {
            want = (size_t)1 << 24; /* read(2) in pieces of at most 16 MiB */
        }
        long n = cli_read_some(fd, buf + len, want);
        if (n < 0) {
            int e = errno;
            snprintf(err, err_size, "%s: read error: %s", shown,
                     e == EISDIR ? "is a directory" : strerror(e));
            rc = e == EISDIR ? CLI_READ_BAD : CLI_READ_RUNTIME;
            goto out;
        }
        if (n == 0) {
            break;
        }
        size_t before = len;
        len += (size_t)n;
        if (magic_len && before < magic_len && len >= magic_len &&
            !begins_with_magic(buf, magics, magic_len)) {
            char list[128];
            magic_list(list, sizeof list, magics);
            snprintf(err, err_size, "%s: not a %s (it does not begin with %s)", shown, kind,
                     list);
            rc = CLI_READ_BAD;
            goto out;
        }
    }
    *data = buf;
    *size = len;
    buf = NULL;
    rc = CLI_READ_OK;
out:
    free(buf);
    if (!is_stdin) {
        cli_close_fd(fd);
    }
    return rc;
}

/* --- output files ------------------------------------------------------------------------------
 * Temporary files in progress are listed here so that SIGINT, SIGTERM, SIGHUP, SIGPIPE and
 * SIGXFSZ (Windows: SIGINT, SIGTERM, SIGBREAK) remove them before the process ends (unlink is
 * async-signal-safe). */

#define OUT_SLOTS 8
static char *volatile g_tmp_paths[OUT_SLOTS];
static int g_handlers_installed;

static void remove_temporaries(int sig)
{
    for (int i = 0; i < OUT_SLOTS; ++i) {
        char *p = g_tmp_paths[i];
        if (p) {
            cli_remove_file(p);
        }
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_handlers(void)
{
    if (g_handlers_installed) {
        return;
    }
    g_handlers_installed = 1;
    cli_on_termination(remove_temporaries);
}

static int register_tmp(char *path)
{
    for (int i = 0; i < OUT_SLOTS; ++i) {
        if (!g_tmp_paths[i]) {
            g_tmp_paths[i] = path;
            return i;
        }
    }
    return -1;
}

static void unregister_tmp(cli_out *o)
{
    /* (A zeroed cli_out has slot 0 and no temporary: it must not clear another's entry.) */
    if (o->tmp && o->slot >= 0 && o->slot < OUT_SLOTS && g_tmp_paths[o->slot] == o->tmp) {
        g_tmp_paths[o->slot] = NULL;
    }
    o->slot = -1;
}

static void out_release(cli_out *o)
{
    unregister_tmp(o);
    free(o->tmp);
    free(o->target);
    o->tmp = NULL;
    o->target = NULL;
}

int cli_same_output(const char *a, const char *b)
{
    int ka = cli_path_kind(a), kb = cli_path_kind(b);
    if ((ka != CLI_PATH_NONE && ka != CLI_PATH_FILE) || (kb != CLI_PATH_NONE && kb != CLI_PATH_FILE)) {
        return 0; /* a device or a pipe (/dev/null twice is fine): nothing is replaced */
    }
    if (strcmp(a, b) == 0) {
        return 1;
    }
    return ka == CLI_PATH_FILE && kb == CLI_PATH_FILE && cli_same_file(a, b);
}

int cli_out_open(cli_out *o, const char *option, const char *path, int allow_stdout)
{
    memset(o, 0, sizeof *o);
    o->option = option;
    o->path = path;
    o->slot = -1;
    if (allow_stdout && strcmp(path, "-") == 0) {
        o->f = stdout;
        o->to_stdout = 1;
        return 0;
    }
    struct stat st;
    int kind = cli_path_kind(path);
    int exists = kind != CLI_PATH_NONE && stat(path, &st) == 0;
    if (kind == CLI_PATH_DIR) {
        cli_error("%s: %s: is a directory", option, path);
        return -1;
    }
    if (kind == CLI_PATH_OTHER) {
        /* A device or a pipe: nothing to replace, write to it. */
        o->f = fopen(path, "wb");
        if (!o->f) {
            cli_error("%s: %s: cannot write: %s", option, path, strerror(errno));
            return -1;
        }
        return 0;
    }
    /* The file to replace: a symbolic link's file, else the path itself. */
    char *resolved = exists ? cli_link_target(path) : NULL;
    o->target = resolved ? resolved : strdup(path);
    size_t tlen = o->target ? strlen(o->target) : 0;
    o->tmp = o->target ? malloc(tlen + 32) : NULL;
    if (!o->tmp) {
        cli_error("%s: %s: out of memory", option, path);
        out_release(o);
        return -1;
    }
    install_handlers();
    snprintf(o->tmp, tlen + 32, "%s.tmp.XXXXXX", o->target);
    o->slot = register_tmp(o->tmp);
    int fd = cli_temp_file(o->tmp);
    if (fd < 0 && errno == ENAMETOOLONG) {
        /* The name plus ".tmp.XXXXXX" is too long for the file system: a shorter name in the
         * same directory. */
        int dir = (int)tlen;
        while (dir > 0 && !cli_is_separator(o->target[dir - 1])) {
            --dir;
        }
        snprintf(o->tmp, tlen + 32, "%.*sorca.tmp.XXXXXX", dir, o->target);
        fd = cli_temp_file(o->tmp);
    }
    if (fd < 0) {
        cli_error("%s: %s: cannot write: %s", option, path, strerror(errno));
        out_release(o);
        return -1;
    }
    cli_temp_mode(fd, exists, exists ? (unsigned)st.st_mode : 0u);
    o->f = fdopen(fd, "wb");
    if (!o->f) {
        cli_error("%s: %s: cannot write: %s", option, path, strerror(errno));
        cli_close_fd(fd);
        cli_remove_file(o->tmp);
        out_release(o);
        return -1;
    }
    return 0;
}

int cli_out_close(cli_out *o)
{
    if (o->closed || !o->f) {
        return 0;
    }
    o->closed = 1;
    if (o->to_stdout) {
        errno = 0;
        if (fflush(stdout) != 0 || ferror(stdout)) {
            /* (errno is 0 when the error was an earlier write's and this flush had nothing
             * left to write) */
            cli_error("%s: standard output: write failed: %s", o->option,
                      errno ? strerror(errno) : "write error");
            clearerr(stdout); /* reported: main need not say it again */
            return -1;
        }
        return 0;
    }
    errno = 0;
    int bad = fflush(o->f) != 0 || ferror(o->f);
    int err = bad ? errno : 0;
    if (!bad && o->tmp && cli_sync_fd(fileno(o->f)) != 0) {
        bad = 1;
        err = errno;
    }
    if (fclose(o->f) != 0 && !bad) {
        bad = 1;
        err = errno;
    }
    o->f = NULL;
    if (bad) {
        cli_error("%s: %s: write failed: %s%s", o->option, o->path,
                  err ? strerror(err) : "write error",
                  o->tmp ? " (the file was left as it was)" : "");
        if (o->tmp) {
            cli_remove_file(o->tmp);
        }
        out_release(o);
        return -1;
    }
    return 0;
}

int cli_out_commit(cli_out *o)
{
    if (cli_out_close(o) != 0) {
        return -1;
    }
    if (!o->tmp) {
        return 0;
    }
    if (cli_replace_file(o->tmp, o->target) != 0) {
        cli_error("%s: %s: cannot replace the file: %s", o->option, o->path, strerror(errno));
        cli_remove_file(o->tmp);
        out_release(o);
        return -1;
    }
    out_release(o);
    return 0;
}

void cli_out_abort(cli_out *o)
{
    if (o->f && !o->to_stdout) {
        fclose(o->f);
    }
    o->f = NULL;
    o->closed = 1;
    if (o->tmp) {
        cli_remove_file(o->tmp);
    }
    out_release(o);
}
