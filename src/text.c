/* SPDX-License-Identifier: MIT */
/* Numbers and text for messages (src/text.h): the scene files' reader and the orca command's
 * options read numbers with these. */
#include "text.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- numbers ------------------------------------------------------------------------------ */

const char *orca_quote(char *buf, size_t size, const char *s)
{
    size_t len = strlen(s);
    if (len <= 40) {
        snprintf(buf, size, "'%s'", s);
        return buf;
    }
    /* Cut before byte 37, at the start of a character (not inside a UTF-8 sequence). */
    size_t cut = 37;
    while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80) {
        --cut;
    }
    snprintf(buf, size, "'%.*s...'", (int)cut, s);
    return buf;
}

int orca_parse_double(const char *s, double *out, char *why, size_t why_size)
{
    char q[64];
    orca_quote(q, sizeof q, s);
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
    int infinite = v > DBL_MAX || v < -DBL_MAX;
    if (v != v || (infinite && errno != ERANGE)) { /* "nan", "inf" as text */
        snprintf(why, why_size, "expected a finite number, got %s", q);
        return -1;
    }
    if (infinite) {
        snprintf(why, why_size, "number out of range (magnitude beyond 1.8e308), got %s", q);
        return -1;
    }
    /* Underflow (ERANGE with a tiny or zero result) is accepted: the value is the correctly
     * rounded one. */
    *out = v;
    return 0;
}

const char *orca_rounds_to_zero(const char *s, double v)
{
    if (v != 0.0) {
        return "";
    }
    const char *p = s + (*s == '+' || *s == '-');
    int hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    if (hex) {
        p += 2;
    }
    /* A nonzero digit before the exponent: the number is not zero, it underflowed. */
    for (; *p && *p != (hex ? 'p' : 'e') && *p != (hex ? 'P' : 'E'); ++p) {
        int letter = hex && isxdigit((unsigned char)*p) && !isdigit((unsigned char)*p);
        if ((*p >= '1' && *p <= '9') || letter) {
            return " (it rounds to 0)";
        }
    }
    return "";
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

int orca_parse_long(const char *s, long long min, long long max, long long *out, char *why,
                    size_t why_size)
{
    char q[64];
    orca_quote(q, sizeof q, s);
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

int orca_parse_u64(const char *s, uint64_t *out, char *why, size_t why_size)
{
    char q[64];
    orca_quote(q, sizeof q, s);
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

/* --- UTF-8 ---------------------------------------------------------------------------------- */

int orca_utf8_next(const unsigned char *s, uint32_t *cp)
{
    unsigned char c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    int len;
    uint32_t v, min;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        v = c & 0x1Fu;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        v = c & 0x0Fu;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        v = c & 0x07u;
        min = 0x10000;
    } else {
        return 0; /* a continuation byte, C0/C1 (overlong) or F5..FF */
    }
    for (int i = 1; i < len; ++i) {
        if ((s[i] & 0xC0) != 0x80) {
            return 0; /* also stops at the terminating NUL */
        }
        v = (v << 6) | (s[i] & 0x3Fu);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
        return 0;
    }
    *cp = v;
    return len;
}

int orca_check_text(const char *s, char *why, size_t why_size)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        uint32_t cp = 0;
        int len = orca_utf8_next(p, &cp);
        size_t at = (size_t)(p - (const unsigned char *)s) + 1;
        if (len == 0) {
            snprintf(why, why_size, "invalid UTF-8 at byte %zu (\\x%02x)", at, *p);
            return -1;
        }
        if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) {
            snprintf(why, why_size, "control character U+%04X at byte %zu", (unsigned)cp, at);
            return -1;
        }
        if (cp == 0xFFFE || cp == 0xFFFF) {
            snprintf(why, why_size, "noncharacter U+%04X at byte %zu", (unsigned)cp, at);
            return -1;
        }
        p += len;
    }
    return 0;
}

/* --- sizes ---------------------------------------------------------------------------------- */

void orca_format_bytes(char *buf, size_t size, unsigned long long bytes)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    for (int u = 3; u >= 0; --u) {
        unsigned long long one = 1ull << (10 * (u + 1));
        if (bytes >= one && bytes % one == 0) {
            snprintf(buf, size, "%llu %s", bytes / one, units[u]);
            return;
        }
        if (bytes >= one) {
            /* a message's figure, not a result: one decimal of the size in the unit */
            snprintf(buf, size, "%.1f %s (%llu bytes)", (double)bytes / (double)one, units[u],
                     bytes);
            return;
        }
    }
    snprintf(buf, size, "%llu byte%s", bytes, bytes == 1 ? "" : "s");
}
