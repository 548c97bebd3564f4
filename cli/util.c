/* SPDX-License-Identifier: MIT */
/* The orca command: number parsing, option scanning and small helpers. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* --- numbers ------------------------------------------------------------------------------ */

/* Quotes s for a message, shortened when very long. */
static void quote(char *buf, size_t size, const char *s)
{
    size_t len = strlen(s);
    if (len > 40) {
        snprintf(buf, size, "'%.37s...'", s);
    } else {
        snprintf(buf, size, "'%s'", s);
    }
}

int cli_parse_double(const char *s, double *out, char *why, size_t why_size)
{
    char q[64];
    quote(q, sizeof q, s);
    if (s[0] == '\0' || isspace((unsigned char)s[0])) {
        snprintf(why, why_size, "expected a number, got %s", q);
        return -1;
    }
    errno = 0;
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || *end != '\0') {
        snprintf(why, why_size, "expected a number, got %s", q);
        return -1;
    }
    if (isnan(v) || (isinf(v) && errno != ERANGE)) {
        snprintf(why, why_size, "expected a finite number, got %s", q);
        return -1;
    }
    if (isinf(v)) {
        snprintf(why, why_size, "number out of range (magnitude beyond 1.8e308), got %s", q);
        return -1;
    }
    /* Underflow (ERANGE with a tiny or zero result) is accepted: the value is the correctly
     * rounded one. */
    *out = v;
    return 0;
}

/* Parses an unsigned magnitude in base 10 or (with 0x) 16 into *mag; -1 on syntax error,
 * -2 on overflow of uint64. */
static int parse_magnitude(const char *s, uint64_t *mag)
{
    int base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    if (*s == '\0') {
        return -1;
    }
    uint64_t v = 0;
    for (; *s; ++s) {
        int d;
        if (*s >= '0' && *s <= '9') {
            d = *s - '0';
        } else if (base == 16 && *s >= 'a' && *s <= 'f') {
            d = *s - 'a' + 10;
        } else if (base == 16 && *s >= 'A' && *s <= 'F') {
            d = *s - 'A' + 10;
        } else {
            return -1;
        }
        if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) {
            return -2;
        }
        v = v * (uint64_t)base + (uint64_t)d;
    }
    *mag = v;
    return 0;
}

int cli_parse_long(const char *s, long long min, long long max, long long *out, char *why,
                   size_t why_size)
{
    char q[64];
    quote(q, sizeof q, s);
    const char *p = s;
    int neg = 0;
    if (*p == '+' || *p == '-') {
        neg = *p == '-';
        ++p;
    }
    uint64_t mag = 0;
    int r = parse_magnitude(p, &mag);
    if (r == -1) {
        snprintf(why, why_size, "expected a whole number, got %s", q);
        return -1;
    }
    long long v;
    if (r == -2 || mag > (uint64_t)LLONG_MAX + (neg ? 1u : 0u)) {
        snprintf(why, why_size, "must be between %lld and %lld, got %s", min, max, q);
        return -2;
    }
    if (neg) {
        v = mag == (uint64_t)LLONG_MAX + 1u ? LLONG_MIN : -(long long)mag;
    } else {
        v = (long long)mag;
    }
    if (v < min || v > max) {
        snprintf(why, why_size, "must be between %lld and %lld, got %s", min, max, q);
        return -2;
    }
    *out = v;
    return 0;
}

int cli_parse_u64(const char *s, uint64_t *out, char *why, size_t why_size)
{
    char q[64];
    quote(q, sizeof q, s);
    const char *p = s;
    if (*p == '+') {
        ++p;
    }
    uint64_t v = 0;
    int r = *p == '-' ? -1 : parse_magnitude(p, &v);
    if (r == -1) {
        snprintf(why, why_size, "expected a whole number from 0 to 18446744073709551615, got %s",
                 q);
        return -1;
    }
    if (r == -2) {
        snprintf(why, why_size, "must be between 0 and 18446744073709551615, got %s", q);
        return -2;
    }
    *out = v;
    return 0;
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

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("orca: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void cli_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("orca: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
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

/* --- options ------------------------------------------------------------------------------ */

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
            cli_usage_error(a->command, "%s%sunknown option '%s'", a->command ? a->command : "",
                            a->command ? ": " : "", spelled);
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
            cli_usage_error(a->command, "%s%sunknown option '%s'", a->command ? a->command : "",
                            a->command ? ": " : "", spelled);
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

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *cli_kernels_text(int scalar)
{
    if (scalar) {
        return "scalar code (--scalar)";
    }
    orca_sim *sim = NULL;
    int on = 0;
    if (orca_sim_create(NULL, &sim) == ORCA_OK) {
        on = orca_sim_get_vector_kernels(sim);
        orca_sim_destroy(sim);
    }
    return on ? "AVX2 vector kernels" : "scalar code (no vector kernels for this CPU)";
}

int cli_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) {
        return 1;
    }
    return n > 1024 ? 1024 : (int)n;
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

void cli_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20) {
                fprintf(f, "\\u%04x", *p);
            } else {
                fputc(*p, f);
            }
        }
    }
    fputc('"', f);
}

int cli_read_file(const char *path, unsigned char **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    unsigned char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        errno = ENOMEM;
        return -1;
    }
    for (;;) {
        if (len == cap) {
            unsigned char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                fclose(f);
                errno = ENOMEM;
                return -1;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            break;
        }
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(buf);
        errno = EIO;
        return -1;
    }
    *data = buf;
    *size = len;
    return 0;
}
