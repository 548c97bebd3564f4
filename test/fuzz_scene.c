/* SPDX-License-Identifier: MIT */
/* Scene-file fuzzer (issue 12): the input is a scene file (docs/scene-format.md) for the
 * library's reader and builder (orca/scene_file.h, src/scene_file.c), which the orca command,
 * Python and the browser module use. Built as a libFuzzer target (cmake -DORCA_FUZZ=ON,
 * clang: build/fuzz/test/fuzz_scene CORPUS_DIR) or with test/fuzz_driver.c as a seeded random
 * driver (test/fuzz.h), whose inputs are built-in scenes written as files and synthetic
 * scenes (the pedestrian preset and streams among their statements), with edge-value numbers
 * and line mutations.
 *
 * Checked: no crash, sanitizer report or hang; a refused file has a message and a status of
 * the reader's (ORCA_ERR_FORMAT, ORCA_ERR_LIMIT, ORCA_ERR_MEMORY); a built scene written back
 * (orca_scene_file_write_text) reads and builds to the same hash, goals, waypoints, name, dt
 * and seed; three steps either succeed with every position finite within |x|,|y| < 2^21 and
 * every velocity finite, or are refused with a message. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static void violation(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fuzz_vviolation("fuzz_scene", fmt, ap);
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static int same_goal(const orca_goal *a, const orca_goal *b)
{
    return a->kind == b->kind && same_bits(a->target.x, b->target.x) &&
           same_bits(a->target.y, b->target.y) &&
           (a->kind != ORCA_GOAL_POINT || same_bits(a->preferred_speed, b->preferred_speed));
}

/* The scenario as scene-file text (malloc'd, *size bytes), or NULL with a violation. */
static char *scene_text(const orca_scenario *sc, const char *comment, size_t *size)
{
    if (orca_scene_file_write_text(sc, comment, NULL, 0, size) != ORCA_OK) {
        violation("sizing the text of a built scene failed: %s", orca_scene_file_last_error(NULL));
    }
    char *text = malloc(*size + 1);
    if (!text) {
        abort();
    }
    size_t again = 0;
    if (orca_scene_file_write_text(sc, comment, text, *size + 1, &again) != ORCA_OK ||
        again != *size || strlen(text) != *size) {
        violation("writing a built scene failed: %s", orca_scene_file_last_error(NULL));
    }
    return text;
}

/* The built scene written as a file, read and built again: the same scenario. */
static void check_rewrite(orca_scenario *sc)
{
    size_t size = 0;
    char *text = scene_text(sc, "fuzz_scene", &size);
    orca_scene_file *file = NULL;
    if (orca_scene_file_read_text(text, size, "rewritten.txt", &file) != ORCA_OK) {
        violation("a written scene is refused: %s", orca_scene_file_last_error(NULL));
    }
    free(text);
    orca_scenario *again = NULL;
    if (orca_scene_file_build(file, NULL, &again) != ORCA_OK || !again) {
        violation("a written scene does not build: %s", orca_scene_file_last_error(file));
    }
    orca_scene_file_destroy(file);
    orca_sim *a = orca_scenario_sim(sc), *b = orca_scenario_sim(again);
    if (orca_sim_hash(a) != orca_sim_hash(b) ||
        !same_bits(orca_scenario_dt(sc), orca_scenario_dt(again)) ||
        orca_scenario_seed(sc) != orca_scenario_seed(again) ||
        strcmp(orca_scenario_name(sc), orca_scenario_name(again)) != 0) {
        violation("a written scene reads back as another scenario (hash %016llx -> %016llx)",
                  (unsigned long long)orca_sim_hash(a), (unsigned long long)orca_sim_hash(b));
    }
    for (int i = 0; i < orca_sim_agent_count(a); ++i) {
        orca_goal ga, gb;
        orca_scenario_agent_goal(sc, i, &ga, NULL);
        orca_scenario_agent_goal(again, i, &gb, NULL);
        if (!same_goal(&ga, &gb)) {
            violation("agent %d's goal changes when the scene is written and read", i);
        }
        int na = 0, nb = 0, la = 0, lb = 0;
        double da = 0, db = 0;
        orca_scenario_agent_waypoints(sc, i, NULL, 0, &na, &la, &da);
        orca_scenario_agent_waypoints(again, i, NULL, 0, &nb, &lb, &db);
        int same = na == nb && la == lb && same_bits(da, db);
        if (same && na > 0) {
            orca_vec2 *pa = malloc((size_t)na * sizeof *pa), *pb = malloc((size_t)na * sizeof *pb);
            if (!pa || !pb) {
                abort();
            }
            orca_scenario_agent_waypoints(sc, i, pa, na, NULL, NULL, NULL);
            orca_scenario_agent_waypoints(again, i, pb, na, NULL, NULL, NULL);
            for (int k = 0; k < na && same; ++k) {
                same = same_bits(pa[k].x, pb[k].x) && same_bits(pa[k].y, pb[k].y);
            }
            free(pa);
            free(pb);
        }
        if (!same) {
            violation("agent %d's waypoints change when the scene is written and read", i);
        }
    }
    orca_scenario_destroy(again);
}

/* The agents the input's grid lines ask for (docs/scene-format.md, "Grids"), summed over the
 * lines, each NX and NY read as the reader would or more generously; at most cap + 1. A small
 * input can ask for 2^30 agents: such inputs are passed over (their refusals and the counts'
 * limits are in test/cli_tests.sh), so that the fuzzer's memory and time stay those of small
 * scenes. */
static double grid_agents(const uint8_t *data, size_t size, double cap)
{
    double total = 0;
    size_t at = size >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    while (at < size && total <= cap) {
        size_t end = at;
        while (end < size && data[end] != '\n') {
            ++end;
        }
        char line[256];
        size_t n = end - at < sizeof line - 1 ? end - at : sizeof line - 1;
        memcpy(line, data + at, n);
        line[n] = '\0';
        at = end + 1;
        char *save = NULL;
        char *kw = strtok_r(line, " \t\v\f\r", &save);
        if (!kw || strcmp(kw, "grid") != 0) {
            continue;
        }
        double count = 1;
        for (int k = 0; k < 2; ++k) {
            char *tok = strtok_r(NULL, " \t\v\f\r", &save);
            double v = tok ? strtod(tok, NULL) : 0;
            count *= v == v && v > 1 ? v : 1;
        }
        total += count;
    }
    return total;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (grid_agents(data, size, 4096) > 4096) {
        return 0;
    }
    orca_scene_file *file = NULL;
    orca_status st = orca_scene_file_read_text((const char *)data, size, "fuzz.txt", &file);
    if (st != ORCA_OK) {
        if (!orca_scene_file_last_error(NULL)[0] || file ||
            (st != ORCA_ERR_FORMAT && st != ORCA_ERR_LIMIT && st != ORCA_ERR_MEMORY)) {
            violation("a refused file: status %s, message '%s'", orca_status_name(st),
                      orca_scene_file_last_error(NULL));
        }
        return 0;
    }
    orca_scenario *sc = NULL;
    st = orca_scene_file_build(file, NULL, &sc);
    if (st == ORCA_OK && sc) {
        check_rewrite(sc);
        orca_sim *sim = orca_scenario_sim(sc);
        for (int k = 0; k < 3; ++k) {
            if (orca_scenario_step(sc) != ORCA_OK) {
                if (!orca_scenario_last_error(sc)[0]) {
                    violation("a refused step gave no message");
                }
                break;
            }
            for (int i = 0; i < orca_sim_agent_count(sim); ++i) {
                orca_vec2 p, v;
                orca_agent_get_position(sim, orca_sim_agent_at(sim, i), &p);
                orca_agent_get_velocity(sim, orca_sim_agent_at(sim, i), &v);
                if (!(p.x - p.x == 0 && p.y - p.y == 0 && fabs(p.x) < ORCA_COORD_LIMIT &&
                      fabs(p.y) < ORCA_COORD_LIMIT && v.x - v.x == 0 && v.y - v.y == 0)) {
                    violation("after step %d agent %d is at (%.17g, %.17g), velocity (%.17g, %.17g)",
                              k + 1, i, p.x, p.y, v.x, v.y);
                }
            }
        }
        orca_scenario_destroy(sc);
    } else if (st == ORCA_OK || !orca_scene_file_last_error(file)[0]) {
        violation("orca_scene_file_build failed (%s) without a message or a scenario",
                  orca_status_name(st));
    }
    orca_scene_file_destroy(file);
    return 0;
}

#ifndef ORCA_LIBFUZZER
/* The driver's inputs: a built-in scene written as a scene file, or a synthetic scene, then a
 * few line mutations with edge-value numbers. */

typedef struct text {
    char *p;
    size_t n, cap;
} text;

static void add(text *t, const char *s, size_t n)
{
    if (n == 0) {
        return;
    }
    if (n > ((size_t)1 << 24)) {
        abort();
    }
    if (t->n + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->n + n + 1) {
            cap *= 2;
        }
        char *q = realloc(t->p, cap);
        if (!q) {
            abort();
        }
        t->p = q;
        t->cap = cap;
    }
    memcpy(t->p + t->n, s, n);
    t->n += n;
    t->p[t->n] = 0;
}

static void adds(text *t, const char *s)
{
    add(t, s, strlen(s));
}

static uint64_t below(uint64_t n)
{
    return fuzz_rand() % n;
}

static const char *const NUMBERS[] = {
    "0", "-0", "1", "-1", "0.5", "1.5", "2", "10", "15", "0.25", "-3.5", "100",
    "1e-300", "4.9406564584124654e-324", "2.2250738585072014e-308", "0x1p-1074", "0x1p-1022",
    "0x1p-537", "1e-9", "2097152", "2097151.9999999998", "-2097152", "2097152.0000000005",
    "0x1.fffffffffffffp20", "-0x1.fffffffffffffp20", "0x1p30", "1073741824", "0x1p31", "3e38",
    "1e150", "1.44e163", "1e300", "1.7976931348623157e308", "1e309", "1e999", "-1e999", "inf",
    "-inf", "nan", "0x", "1.5m", "1,5", "--1", "+2", ".5", "5.", "1e", "0x1p", "",
    "18446744073709551615", "18446744073709551616", "-9223372036854775808", "1024", "1025",
    "2147483648", "0x7fffffff", "0xffffffffffffffff",
};
#define NUMBER_COUNT (sizeof NUMBERS / sizeof NUMBERS[0])

static const char *const KEYS[] = {"radius", "max_speed", "neighbor_dist", "max_neighbors",
                                   "time_horizon", "obstacle_time_horizon", "preferred_speed",
                                   "velocity", "arrive", "stream", "radus"};
#define KEY_COUNT (sizeof KEYS / sizeof KEYS[0])

static const char *number(void)
{
    static char buf[64];
    if (below(3) == 0) {
        snprintf(buf, sizeof buf, "%.17g", (double)(int64_t)below(200) * 0.5 - 50.0);
        return buf;
    }
    return NUMBERS[below(NUMBER_COUNT)];
}

static void add_number(text *t)
{
    adds(t, " ");
    adds(t, number());
}

/* What follows an agent's position, or a grid's placement: a goal clause (waypoints too),
 * then key=value overrides. */
static void agent_tail(text *t)
{
    unsigned g = (unsigned)below(4);
    if (g == 1) {
        adds(t, " goal");
        add_number(t);
        add_number(t);
        if (below(2)) { /* waypoints (docs/extensions.md) */
            adds(t, " via");
            for (int k = (int)below(7); k > 0; --k) {
                add_number(t);
            }
            if (below(2)) {
                adds(t, " loop");
            }
            if (below(2)) {
                adds(t, " arrive=");
                adds(t, number());
            }
        }
    } else if (g == 2) {
        adds(t, " prefvel");
        add_number(t);
        add_number(t);
    } else if (g == 3) {
        adds(t, " none");
    }
    for (int k = (int)below(3); k > 0; --k) {
        const char *key = KEYS[below(KEY_COUNT)];
        adds(t, " ");
        adds(t, key);
        adds(t, "=");
        adds(t, number());
        if (!strcmp(key, "velocity")) {
            adds(t, ",");
            adds(t, number());
        }
    }
}

/* One synthetic statement (a line, or a polygon block). */
static void statement(text *t)
{
    switch (below(15)) {
    case 0:
    case 1:
    case 2:
    case 3: {
        adds(t, "agent");
        add_number(t);
        add_number(t);
        agent_tail(t);
        break;
    }
    case 4:
        adds(t, "default ");
        adds(t, KEYS[below(KEY_COUNT)]);
        add_number(t);
        break;
    case 5:
    case 6:
        adds(t, "segment");
        for (int k = 0; k < 4; ++k) {
            add_number(t);
        }
        break;
    case 7:
        adds(t, below(3) == 0 ? "boundary" : below(2) ? "polyline" : "polygon");
        for (int k = 2 * (int)below(6); k > 0; --k) {
            add_number(t);
        }
        break;
    case 8:
        adds(t, below(3) == 0 ? "boundary\n" : below(2) ? "polygon\n" : "polyline\n");
        for (int k = (int)below(6); k > 0; --k) {
            add_number(t);
            add_number(t);
            adds(t, "\n");
        }
        if (below(4)) {
            adds(t, "end");
        }
        break;
    case 9:
        adds(t, "dt");
        add_number(t);
        break;
    case 11: { /* grid NX NY X0 Y0 DX DY [stagger] [goal clause] [key=value] */
        /* mostly a valid placement: small counts, and steps of 0.5 to 2 m or zero */
        static const char *const COUNTS[] = {"1", "2", "3", "4", "5", "0x3",
                                             "0", "-1", "1.5"};
        adds(t, "grid ");
        adds(t, COUNTS[below(below(4) ? 6 : sizeof COUNTS / sizeof COUNTS[0])]);
        adds(t, " ");
        adds(t, COUNTS[below(below(4) ? 6 : sizeof COUNTS / sizeof COUNTS[0])]);
        for (int k = 0; k < 4; ++k) {
            if (below(4)) {
                char buf[64];
                snprintf(buf, sizeof buf, " %.17g",
                         k < 2 ? (double)(int64_t)below(80) * 0.5 - 20.0
                               : (double)(int64_t)below(5) * 0.5 * (below(4) ? 1 : -1));
                adds(t, buf);
            } else {
                add_number(t);
            }
        }
        if (below(2)) {
            adds(t, " stagger");
        }
        agent_tail(t);
        break;
    }
    case 10:
        adds(t, "seed");
        add_number(t);
        break;
    case 12: { /* the pedestrian preset (docs/pedestrians.md): parameters, mostly valid */
        static const char *const PKEYS[] = {"time_gap", "buffer", "counter_reach", "max_planes",
                                            "gap"};
        static const char *const PVALS[] = {"0.5", "0.8", "0", "0.02", "2", "4", "1", "1024"};
        adds(t, below(6) ? "pedestrian on" : "pedestrian off");
        for (int k = (int)below(4); k > 0; --k) {
            adds(t, " ");
            adds(t, PKEYS[below(below(8) ? 4 : 5)]);
            adds(t, "=");
            adds(t, below(4) ? PVALS[below(sizeof PVALS / sizeof PVALS[0])] : number());
        }
        break;
    }
    case 13: { /* navigation's parameters, and an exit set (docs/scene-format.md) */
        static const char *const NVALS[] = {"check=on", "check=off", "exits=nearest",
                                            "exits=calm", "exits=quickest", "exits=fast",
                                            "check=1"};
        static const char *const XVALS[] = {"arrive=0.5", "capacity=1.5", "capacity=0",
                                            "arrive=0", "capacity=2", "arrive=-1"};
        if (below(2)) {
            adds(t, below(6) ? "navigation on" : "navigation off");
            for (int k = (int)below(3); k > 0; --k) {
                adds(t, " ");
                adds(t, NVALS[below(below(4) ? 5 : sizeof NVALS / sizeof NVALS[0])]);
            }
        } else {
            adds(t, below(2) ? "goalset exits" : "goalset out");
            for (int k = 2 * (1 + (int)below(3)); k > 0; --k) {
                add_number(t);
            }
            if (below(4)) {
                adds(t, " exit");
            }
            for (int k = (int)below(3); k > 0; --k) {
                adds(t, " ");
                adds(t, below(4) ? XVALS[below(5)] : XVALS[below(sizeof XVALS / sizeof XVALS[0])]);
            }
        }
        break;
    }
    default:
        adds(t, below(2) ? "orca-scene 1" : "name fuzzed scene");
        break;
    }
    adds(t, below(8) ? "\n" : "  # comment\r\n");
}

/* Replaces one blank-separated field of the text with a number, or deletes, duplicates or
 * inserts a line, or inserts a byte. */
static void mutate(text *t)
{
    if (t->n == 0) {
        statement(t);
        return;
    }
    size_t at = (size_t)below(t->n);
    size_t ls = at, le = at;
    while (ls > 0 && t->p[ls - 1] != '\n') {
        --ls;
    }
    while (le < t->n && t->p[le] != '\n') {
        ++le;
    }
    text out = {0};
    switch (below(6)) {
    case 0: { /* a field -> a number */
        size_t fs = at, fe = at;
        while (fs > ls && t->p[fs - 1] != ' ' && t->p[fs - 1] != '=' && t->p[fs - 1] != ',') {
            --fs;
        }
        while (fe < le && t->p[fe] != ' ' && t->p[fe] != ',') {
            ++fe;
        }
        add(&out, t->p, fs);
        adds(&out, number());
        add(&out, t->p + fe, t->n - fe);
        break;
    }
    case 1: /* delete the line */
        add(&out, t->p, ls);
        add(&out, t->p + le, t->n - le);
        break;
    case 2: /* duplicate it */
        add(&out, t->p, le);
        adds(&out, "\n");
        add(&out, t->p + ls, t->n - ls);
        break;
    case 3: { /* a new statement before it */
        add(&out, t->p, ls);
        statement(&out);
        add(&out, t->p + ls, t->n - ls);
        break;
    }
    case 4: { /* a byte */
        static const char BYTES[] = {'\0', '\r', '#', '=', ',', ' ', '\t', 'x', '\n', '\xff', '-'};
        add(&out, t->p, at);
        add(&out, &BYTES[below(sizeof BYTES)], 1);
        add(&out, t->p + at, t->n - at);
        break;
    }
    default: /* truncate */
        add(&out, t->p, at);
        break;
    }
    free(t->p);
    *t = out;
}

size_t fuzz_generate(uint8_t *buf, size_t cap)
{
    text t = {0};
    if (below(2)) {
        orca_scenario *sc = NULL;
        orca_scene_kind kind = (orca_scene_kind)below(ORCA_SCENE_COUNT);
        if (orca_scenario_create_builtin(kind, 2 + (int)below(12), fuzz_rand(), NULL, &sc) == ORCA_OK) {
            size_t len = 0;
            char *mem = scene_text(sc, NULL, &len);
            add(&t, mem, len);
            free(mem);
            orca_scenario_destroy(sc);
        }
    } else {
        for (int k = 1 + (int)below(12); k > 0; --k) {
            statement(&t);
        }
    }
    for (int k = (int)below(5); k > 0; --k) {
        mutate(&t);
    }
    size_t n = t.n < cap ? t.n : cap;
    if (n) {
        memcpy(buf, t.p, n);
    }
    free(t.p);
    return n;
}
#endif
