/* SPDX-License-Identifier: MIT */
/* Private: reading numbers and text for messages, for the scene files (src/scene_file.c)
 * and the orca command, which calls these for its options so that both read a number the
 * same way and say the same thing about a bad one. Each parser takes the whole string (no
 * leading or trailing blanks, no trailing garbage) and returns 0; on failure a negative value
 * and a message without the subject in why ("expected a whole number, got 'abc'"). */
#ifndef ORCA_TEXT_H
#define ORCA_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* printf-style checking of the library's message functions (gcc, clang); MinGW-w64 gcc builds
 * use its C99 printf (__USE_MINGW_ANSI_STDIO, CMakeLists.txt), so they are checked as GNU's. */
#if defined(__MINGW32__) && !defined(__clang__)
#define ORCA_PRINTF(f, a) __attribute__((format(gnu_printf, f, a)))
#elif defined(__GNUC__) || defined(__clang__)
#define ORCA_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define ORCA_PRINTF(f, a)
#endif

/* A finite binary64 by strtod (decimal or C99 hexadecimal; an underflow gives the correctly
 * rounded tiny or zero value). -1 on failure. */
int orca_parse_double(const char *s, double *out, char *why, size_t why_size);
/* " (it rounds to 0)" when s, parsed as v, is a nonzero number too small for binary64
 * ("1e-400"), else "": for "must be > 0" messages. */
const char *orca_rounds_to_zero(const char *s, double v);
/* A whole number in [min, max], decimal or 0x hexadecimal: -1 when it is not a whole number,
 * -2 when it is out of the range. */
int orca_parse_long(const char *s, long long min, long long max, long long *out, char *why,
                    size_t why_size);
/* An unsigned 64-bit integer, decimal or 0x hexadecimal: -1 not one, -2 beyond 2^64 - 1. */
int orca_parse_u64(const char *s, uint64_t *out, char *why, size_t why_size);
/* s in quotes for a message, shortened to about 40 bytes ("'abc...'") at a character
 * boundary. Returns buf. */
const char *orca_quote(char *buf, size_t size, const char *s);

/* The length (1-4) of the well-formed UTF-8 sequence at s, with its code point in *cp, or 0
 * when s does not start one (a stray continuation byte, an overlong form, a surrogate, a code
 * point beyond U+10FFFF, a truncated sequence). s[0] must not be NUL. */
int orca_utf8_next(const unsigned char *s, uint32_t *cp);
/* Text that ends up in outputs (a scene's name): well-formed UTF-8 with no control character
 * (U+0000-U+001F, U+007F-U+009F) and no U+FFFE or U+FFFF. Returns 0, or -1 with the reason in
 * why ("invalid UTF-8 at byte 4 (\xff)"). */
int orca_check_text(const char *s, char *why, size_t why_size);

/* "1 GiB", "1 MiB", "1.0 GiB (1073741825 bytes)", "300 bytes": a size for messages. */
void orca_format_bytes(char *buf, size_t size, unsigned long long bytes);

#endif
