/* SPDX-License-Identifier: MIT */
/* Scene files through the library (orca/scene_file.h): the three readers agree, a written
 * scenario reads back as the same scenario, refusals have the documented statuses, messages
 * and errno, the build's overrides and refusals, the buffer writer's sizes, and every failed
 * allocation is refused without a leak. The command's messages for every kind of bad line are
 * checked through `orca run` (test/cli_tests.sh), which prints the library's text. */
#if !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L /* popen: a stream that does not seek */
#endif
#include "test.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fail_alloc.h"
#include "text.h"

/* Every statement of the format at least once. */
static const char k_scene[] =
    "\xEF\xBB\xBF# a scene of every statement\r\n"
    "orca-scene 1\n"
    "name every statement\n"
    "dt 0.125\n"
    "seed 0x2a\n"
    "separation on\n"
    "density_speed on gamma=1.5\n"
    "navigation on\n"
    "goalset door 0 30 2 30 exit arrive=0.75\n"
    "goalset meet -20 0\n"
    "default radius 0.4\n"
    "default preferred_speed 1.25\n"
    "boundary -40 -40 40 -40 40 40 -40 40\n"
    "segment -10 10 10 10\n"
    "polyline\n"
    "  -30 20\n"
    "  -25 20   # a comment\n"
    "  -25 25\n"
    "end\n"
    "polygon 20 20 24 20 22 23\n"
    "agent 0 0 goal 5 5 via 1 1 2 3 loop arrive=0.5 radius=0.5 priority=2 layers=3 mask=0x5\n"
    "agent 3 0 prefvel 0.5 0 velocity=0.25,-0.25 locked=1\n"
    "agent -3 0 none max_neighbors=4\n"
    "agent 0 -3 goalset door preferred_speed=1.5\n"
    "grid 3 2 -20 -20 1.5 1.5 stagger goalset meet time_horizon=4\n";

static orca_scene_file *read_text(const char *text, const char *name)
{
    orca_scene_file *f = NULL;
    orca_status st = orca_scene_file_read_text(text, strlen(text), name, &f);
    if (st != ORCA_OK) {
        fprintf(stderr, "refused (%s): %s\n", orca_status_name(st),
                orca_scene_file_last_error(NULL));
    }
    return f;
}

static orca_scenario *build(orca_scene_file *f)
{
    orca_scenario *sc = NULL;
    orca_status st = orca_scene_file_build(f, NULL, &sc);
    if (st != ORCA_OK) {
        fprintf(stderr, "build refused (%s): %s\n", orca_status_name(st),
                orca_scene_file_last_error(f));
    }
    return sc;
}

/* The scenario's scene-file text (malloc'd), or NULL. */
static char *text_of(const orca_scenario *sc)
{
    size_t n = 0;
    if (orca_scene_file_write_text(sc, "test", NULL, 0, &n) != ORCA_OK) {
        return NULL;
    }
    char *t = malloc(n + 1);
    size_t again = 0;
    if (t && orca_scene_file_write_text(sc, "test", t, n + 1, &again) != ORCA_OK) {
        free(t);
        return NULL;
    }
    return t;
}

static int test_every_statement(void)
{
    orca_scene_file *f = read_text(k_scene, "every.txt");
    ENSURE(f);
    orca_scenario *sc = build(f);
    ENSURE(sc);
    orca_sim *sim = orca_scenario_sim(sc);
    ENSURE(strcmp(orca_scenario_name(sc), "every statement") == 0);
    ENSURE_BITS(orca_scenario_dt(sc), 0.125);
    ENSURE(orca_scenario_seed(sc) == 42);
    ENSURE(orca_sim_get_separation(sim) == 1 && orca_scenario_get_navigation(sc) == 1);
    orca_density_speed dens;
    ENSURE(orca_sim_get_density_speed(sim, &dens) == 1);
    ENSURE_BITS(dens.gamma, 1.5);
    ENSURE_BITS(dens.radius, orca_density_speed_default().radius);
    ENSURE(orca_sim_agent_count(sim) == 10 && orca_sim_boundary_count(sim) == 1);
    ENSURE(orca_sim_segment_count(sim) == 1 + 2 + 3);
    ENSURE(orca_scenario_goal_set_count(sc) == 2);
    int is_exit = 0;
    double arrive = 0;
    ENSURE(orca_scenario_goal_set_exit(sc, 0, &is_exit, &arrive) == ORCA_OK);
    ENSURE(is_exit == 1);
    ENSURE_BITS(arrive, 0.75);
    /* agent 0: waypoints, overrides and avoidance settings */
    orca_agent_def def;
    orca_goal goal;
    ENSURE(orca_agent_get(sim, orca_sim_agent_at(sim, 0), &def) == ORCA_OK);
    ENSURE_BITS(def.radius, 0.5);
    ENSURE(orca_scenario_agent_goal(sc, 0, &goal, NULL) == ORCA_OK);
    ENSURE(goal.kind == ORCA_GOAL_POINT);
    ENSURE_BITS(goal.preferred_speed, 1.25);
    orca_vec2 via[4];
    int n = 0, loop = 0;
    ENSURE(orca_scenario_agent_waypoints(sc, 0, via, 4, &n, &loop, &arrive) == ORCA_OK);
    ENSURE(n == 2 && loop == 1);
    ENSURE_BITS(via[1].y, 3.0);
    ENSURE_BITS(arrive, 0.5);
    orca_agent_avoidance av;
    ENSURE(orca_agent_get_avoidance(sim, orca_sim_agent_at(sim, 0), &av) == ORCA_OK);
    ENSURE(av.layers == 3 && av.mask == 5 && av.locked == 0);
    ENSURE_BITS(av.priority, 2.0);
    /* the grid: rows of 3, the odd one shifted by half a step, each agent on the grid's line */
    ENSURE(orca_agent_get(sim, orca_sim_agent_at(sim, 8), &def) == ORCA_OK);
    ENSURE_BITS(def.position.x, -20.0 + 1.5 * 1.5); /* row 1, i + h = 1.5 */
    ENSURE_BITS(def.position.y, -18.5);
    ENSURE_BITS(def.time_horizon, 4.0);
    ENSURE(orca_scenario_agent_goal(sc, 8, &goal, NULL) == ORCA_OK);
    ENSURE(goal.kind == ORCA_GOAL_SET && goal.goal_set == 1);
    /* the lines of the agents, in index order */
    static const int lines[10] = {21, 22, 23, 24, 25, 25, 25, 25, 25, 25};
    for (int i = 0; i < 10; ++i) {
        ENSURE_MSG(orca_scene_file_agent_line(f, i) == lines[i], "agent %d: line %d", i,
                   orca_scene_file_agent_line(f, i));
    }
    ENSURE(orca_scene_file_agent_line(f, 10) == 0 && orca_scene_file_agent_line(f, -1) == 0);
    ENSURE(orca_scene_file_agent_line(NULL, 0) == 0);
    /* it builds again, to the same state */
    orca_scenario *again = build(f);
    ENSURE(again);
    ENSURE(orca_scenario_hash(again) == orca_scenario_hash(sc));
    orca_scenario_destroy(again);
    for (int k = 0; k < 20; ++k) {
        ENSURE(orca_scenario_step(sc) == ORCA_OK);
    }
    orca_scenario_destroy(sc);
    orca_scene_file_destroy(f);
    return 0;
}

/* Written, read and built: the same scenario, and the same text again. */
static int test_write_read_back(void)
{
    for (int kind = -1; kind < ORCA_SCENE_COUNT; ++kind) {
        orca_scenario *sc = NULL;
        if (kind < 0) {
            orca_scene_file *f = read_text(k_scene, "every.txt");
            ENSURE(f);
            sc = build(f);
            orca_scene_file_destroy(f);
        } else {
            ENSURE(orca_scenario_create_builtin((orca_scene_kind)kind, 60, 9, NULL, &sc) ==
                   ORCA_OK);
        }
        ENSURE(sc);
        char *text = text_of(sc);
        ENSURE(text);
        orca_scene_file *f = read_text(text, "written.txt");
        ENSURE_MSG(f, "scene %d", kind);
        orca_scenario *back = build(f);
        ENSURE(back);
        ENSURE(orca_sim_hash(orca_scenario_sim(back)) == orca_sim_hash(orca_scenario_sim(sc)));
        ENSURE(orca_scenario_hash(back) == orca_scenario_hash(sc));
        ENSURE(orca_scenario_seed(back) == orca_scenario_seed(sc));
        ENSURE_BITS(orca_scenario_dt(back), orca_scenario_dt(sc));
        char *text2 = text_of(back);
        ENSURE(text2);
        ENSURE_MSG(strcmp(text, text2) == 0, "scene %d: the text changes when read back", kind);
        /* stepped the same */
        for (int k = 0; k < 10; ++k) {
            ENSURE(orca_scenario_step(sc) == ORCA_OK && orca_scenario_step(back) == ORCA_OK);
        }
        ENSURE(orca_scenario_hash(back) == orca_scenario_hash(sc));
        free(text);
        free(text2);
        orca_scene_file_destroy(f);
        orca_scenario_destroy(back);
        orca_scenario_destroy(sc);
    }
    return 0;
}

/* navigation's options and an exit's capacity: read, built, written back the same, and
 * the defaults not written. */
static int test_navigation_options(void)
{
    static const char text[] = "navigation on exits=quickest check=on\n"
                               "goalset a 0 10 exit capacity=2.5\n"
                               "goalset b 10 0 exit arrive=0.5 capacity=1\n"
                               "agent 0 0 goalset a\n"
                               "agent 1 0 goalset b\n";
    orca_scene_file *f = read_text(text, "nav.txt");
    ENSURE(f);
    orca_scenario *sc = build(f);
    ENSURE(sc);
    ENSURE(orca_scenario_get_navigation(sc) == 1 && orca_scenario_get_nav_check(sc) == 1);
    ENSURE(orca_scenario_get_exit_choice(sc) == ORCA_EXIT_QUICKEST);
    double capacity = 0.0, arrive = 0.0;
    int is_exit = 0;
    ENSURE(orca_scenario_goal_set_capacity(sc, 0, &capacity) == ORCA_OK);
    ENSURE_BITS(capacity, 2.5);
    ENSURE(orca_scenario_goal_set_capacity(sc, 1, &capacity) == ORCA_OK);
    ENSURE_BITS(capacity, ORCA_NAV_EXIT_CAPACITY);
    ENSURE(orca_scenario_goal_set_exit(sc, 1, &is_exit, &arrive) == ORCA_OK);
    ENSURE(is_exit == 1);
    ENSURE_BITS(arrive, 0.5);
    char *written = text_of(sc);
    ENSURE(written);
    ENSURE_MSG(strstr(written, "navigation on check=on exits=quickest\n") != NULL, "%s", written);
    ENSURE_MSG(strstr(written, "goalset a 0 10 exit capacity=2.5\n") != NULL, "%s", written);
    ENSURE_MSG(strstr(written, "goalset b 10 0 exit arrive=0.5\n") != NULL, "%s", written);
    orca_scene_file *g = read_text(written, "written.txt");
    ENSURE(g);
    orca_scenario *back = build(g);
    ENSURE(back);
    ENSURE(orca_scenario_hash(back) == orca_scenario_hash(sc));
    char *again = text_of(back);
    ENSURE(again && strcmp(again, written) == 0);
    free(again);
    free(written);
    orca_scenario_destroy(back);
    orca_scene_file_destroy(g);
    orca_scenario_destroy(sc);
    orca_scene_file_destroy(f);
    /* the defaults: 'navigation on' alone is the nearest exit without the check */
    f = read_text("navigation on check=off exits=nearest\nagent 0 0 goal 1 1\n", "d.txt");
    ENSURE(f);
    sc = build(f);
    ENSURE(sc);
    ENSURE(orca_scenario_get_nav_check(sc) == 0);
    ENSURE(orca_scenario_get_exit_choice(sc) == ORCA_EXIT_NEAREST);
    written = text_of(sc);
    ENSURE(written && strstr(written, "navigation on\n") != NULL);
    free(written);
    orca_scenario_destroy(sc);
    orca_scene_file_destroy(f);
    return 0;
}

/* The buffer writer's sizes; the stream writer writes the same bytes. */
static int test_write_sizes(void)
{
    orca_scenario *sc = NULL;
    ENSURE(orca_scenario_create_builtin(ORCA_SCENE_CORRIDOR, 8, 1, NULL, &sc) == ORCA_OK);
    size_t n = 0, m = 0;
    ENSURE(orca_scene_file_write_text(sc, NULL, NULL, 0, &n) == ORCA_OK);
    ENSURE(n > 100);
    char *buf = malloc(n + 1);
    ENSURE(buf);
    memset(buf, 'x', n + 1);
    ENSURE(orca_scene_file_write_text(sc, NULL, buf, n, &m) == ORCA_ERR_LIMIT);
    ENSURE(m == n && buf[0] == '\0');
    ENSURE(strstr(orca_scene_file_last_error(NULL), "buffer") != NULL);
    ENSURE(orca_scene_file_write_text(sc, NULL, buf, n + 1, &m) == ORCA_OK);
    ENSURE(m == n && strlen(buf) == n && orca_scene_file_last_error(NULL)[0] == '\0');
    ENSURE(strncmp(buf, "# orca scene file", 17) == 0);
    FILE *f = tmpfile();
    ENSURE(f);
    ENSURE(orca_scene_file_write(f, sc, NULL) == ORCA_OK);
    ENSURE(ftell(f) == (long)n);
    rewind(f);
    char *back = malloc(n + 1);
    ENSURE(back && fread(back, 1, n + 1, f) == n);
    ENSURE(memcmp(back, buf, n) == 0);
    fclose(f);
    free(back);
    free(buf);
    ENSURE(orca_scene_file_write(NULL, sc, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_scene_file_write_text(NULL, NULL, NULL, 0, &n) == ORCA_ERR_NULL);
    ENSURE(orca_scene_file_write_text(sc, NULL, NULL, 0, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_scene_file_write_text(sc, NULL, NULL, 5, &n) == ORCA_ERR_NULL);
    orca_scenario_destroy(sc);
    return 0;
}

/* A scene of n agent lines and more than one 64 KiB chunk, as a file: the path, the stream and
 * the text readers give the same scenario. */
static int test_three_readers(void)
{
    const char *path = "test_scene_file.tmp.txt";
    size_t cap = 1 << 20, len = 0;
    char *text = malloc(cap);
    ENSURE(text);
    len += (size_t)snprintf(text + len, cap - len, "name readers\nsegment -1 -1 1 -1\n");
    for (int i = 0; i < 4000; ++i) {
        len += (size_t)snprintf(text + len, cap - len, "agent %d.25 %d goal %d %d  # agent %d\n",
                                i % 97, i / 97, -(i % 89), i % 7, i);
    }
    FILE *w = fopen(path, "wb");
    ENSURE(w);
    ENSURE(fwrite(text, 1, len, w) == len && fclose(w) == 0);
    orca_scene_file *files[3] = {NULL, NULL, NULL};
    ENSURE(orca_scene_file_read(path, &files[0]) == ORCA_OK);
    FILE *r = fopen(path, "rb");
    ENSURE(r);
    ENSURE(orca_scene_file_read_stream(r, "<stream>", &files[1]) == ORCA_OK);
    fclose(r);
    ENSURE(orca_scene_file_read_text(text, len, "text", &files[2]) == ORCA_OK);
    uint64_t hash[3];
    for (int k = 0; k < 3; ++k) {
        orca_scenario *sc = build(files[k]);
        ENSURE(sc);
        ENSURE(orca_sim_agent_count(orca_scenario_sim(sc)) == 4000);
        ENSURE(orca_scene_file_agent_line(files[k], 3999) == 4002);
        ENSURE(orca_scenario_step(sc) == ORCA_OK);
        hash[k] = orca_scenario_hash(sc);
        orca_scenario_destroy(sc);
        orca_scene_file_destroy(files[k]);
    }
    ENSURE(hash[0] == hash[1] && hash[1] == hash[2]);
    /* the same file with a NUL byte after the first chunk: refused at its line */
    w = fopen(path, "wb");
    ENSURE(w);
    text[100000] = '\0';
    ENSURE(fwrite(text, 1, len, w) == len && fclose(w) == 0);
    int line = 1;
    for (size_t i = 0; i < 100000; ++i) {
        line += text[i] == '\n';
    }
    char want[128];
    snprintf(want, sizeof want, "%s:%d: NUL byte in the line (is this a text file?)", path, line);
    orca_scene_file *f = NULL;
    ENSURE(orca_scene_file_read(path, &f) == ORCA_ERR_FORMAT && f == NULL);
    ENSURE_MSG(strcmp(orca_scene_file_last_error(NULL), want) == 0, "%s",
               orca_scene_file_last_error(NULL));
    remove(path);
    free(text);
    return 0;
}

/* Bad text: the status and the whole message. */
static int test_refusals(void)
{
    static const struct {
        const char *text;
        orca_status status;
        const char *message;
    } cases[] = {
        {"agent 0 0 radius=-1\n", ORCA_ERR_FORMAT, "t.txt:1: radius must be > 0, got '-1'"},
        {"agent 0 0\nagent 1O 0\n", ORCA_ERR_FORMAT,
         "t.txt:2: x: expected a number, got '1O'"},
        {"agnet 0 0\n", ORCA_ERR_FORMAT,
         "t.txt:1: unknown statement 'agnet' (expected orca-scene, name, dt, seed, default, "
         "agent, grid, segment, polyline, polygon, boundary, separation, navigation, goalset, "
         "density_speed, pedestrian)"},
        {"dt 1\ndt 2\n", ORCA_ERR_FORMAT, "t.txt:2: dt given twice (first on line 1)"},
        {"dt 1e-400\n", ORCA_ERR_FORMAT, "t.txt:1: dt must be > 0, got '1e-400' (it rounds to 0)"},
        {"polygon\n0 0\n1 0\nagent 0 0\n", ORCA_ERR_FORMAT,
         "t.txt:4: 'agent' inside the polygon block started on line 1 (missing 'end'?)"},
        {"polyline\n0 0\n", ORCA_ERR_FORMAT, "t.txt:1: polyline block has no 'end'"},
        {"agent 0 0\nend\n", ORCA_ERR_FORMAT,
         "t.txt:2: 'end' without a polyline, polygon or boundary block"},
        {"", ORCA_ERR_FORMAT, "t.txt: the file is empty (add 'agent X Y ...' lines)"},
        {"# nothing\n", ORCA_ERR_FORMAT,
         "t.txt: the scene has no agents (add 'agent X Y ...' lines)"},
        {"grid 32768 32769 0 0 1 1\n", ORCA_ERR_LIMIT,
         "t.txt:1: grid: NX * NY = 1073774592 agents, more than the limit of 2^30 (1073741824) "
         "agents in a scene"},
        {"name a\x01z\n", ORCA_ERR_FORMAT,
         "t.txt:1: name: control character U+0001 at byte 2 (the name must be UTF-8 text without "
         "control characters)"},
        {"agent 0 0 goal 1 1 radus=2\n", ORCA_ERR_FORMAT,
         "t.txt:1: unknown agent parameter 'radus' (known: radius, max_speed, neighbor_dist, "
         "max_neighbors, time_horizon, obstacle_time_horizon, preferred_speed, velocity, arrive, "
         "stream, priority, layers, mask, locked)"},
        /* avoidance settings */
        {"agent 0 0 priority=0", ORCA_ERR_FORMAT,
         "t.txt:1: priority must be in [2^-30, 2^30], got '0'"},
        {"agent 0 0 priority=high", ORCA_ERR_FORMAT,
         "t.txt:1: priority: expected a number, got 'high'"},
        {"agent 0 0 layers=x", ORCA_ERR_FORMAT,
         "t.txt:1: layers: expected a whole number, got 'x'"},
        {"agent 0 0 locked=2", ORCA_ERR_FORMAT, "t.txt:1: locked must be 0 or 1, got '2'"},
        {"agent 0 0 mask=0x100000000", ORCA_ERR_FORMAT,
         "t.txt:1: mask must be a 32-bit mask (0 to 0xFFFFFFFF), got '0x100000000'"},
        {"agent 0 0 velocity=1e-2000000000000000000000000000000000000000000000000000000000000000"
         "000000000000000000000000000000000000000000000000000000000000000000000000,1",
         ORCA_ERR_FORMAT,
         "t.txt:1: velocity: number too long in '1e-2000000000000000000000000000000000...'"},
        {"agent 0 0 max_neighbors=1025", ORCA_ERR_FORMAT,
         "t.txt:1: max_neighbors must be between 0 and 1024, got '1025'"},
        /* goal clauses */
        {"agent 0 0 goalset", ORCA_ERR_FORMAT,
         "t.txt:1: goalset needs the name of a goal set: goalset NAME"},
        {"agent 0 0 goalset exit1", ORCA_ERR_FORMAT,
         "t.txt:1: agent: unknown goal set 'exit1' (declare it first: goalset NAME X1 Y1 [X2 Y2 "
         "...])"},
        {"agent 0 0 via 1 1", ORCA_ERR_FORMAT,
         "t.txt:1: agent: 'via' needs a goal point first (goal GX GY via X1 Y1 ... [loop])"},
        {"grid 2 2 0 0 1 1 stagger walk", ORCA_ERR_FORMAT,
         "t.txt:1: grid: expected 'goal', 'goalset', 'prefvel', 'none' or key=value after the "
         "grid's placement, got 'walk'"},
        /* options */
        {"separation maybe", ORCA_ERR_FORMAT,
         "t.txt:1: separation takes 'on' or 'off', got 'maybe'"},
        {"navigation on\nnavigation off", ORCA_ERR_FORMAT,
         "t.txt:2: navigation given twice (first on line 1)"},
        {"navigation yes", ORCA_ERR_FORMAT, "t.txt:1: navigation takes 'on' or 'off', got 'yes'"},
        {"navigation off check=on", ORCA_ERR_FORMAT,
         "t.txt:1: navigation off takes nothing after it, got 'check=on'"},
        {"navigation on check=yes", ORCA_ERR_FORMAT,
         "t.txt:1: navigation check= takes 'on' or 'off', got 'yes'"},
        {"navigation on exits=fastest", ORCA_ERR_FORMAT,
         "t.txt:1: navigation exits= takes nearest, calm or quickest, got 'fastest'"},
        {"navigation on check=on check=off", ORCA_ERR_FORMAT,
         "t.txt:1: navigation: after 'on' only check=on|off and exits=nearest|calm|quickest, "
         "each once, may follow, got 'check=off'"},
        {"navigation on calm", ORCA_ERR_FORMAT,
         "t.txt:1: navigation: after 'on' only check=on|off and exits=nearest|calm|quickest, "
         "each once, may follow, got 'calm'"},
        {"density_speed fast", ORCA_ERR_FORMAT,
         "t.txt:1: density_speed takes 'on' or 'off', got 'fast'"},
        {"density_speed off gamma=1", ORCA_ERR_FORMAT,
         "t.txt:1: density_speed off takes nothing after it, got 'gamma=1'"},
        {"density_speed on beta=1", ORCA_ERR_FORMAT,
         "t.txt:1: density_speed: expected radius=R, gamma=G or max_density=M, got 'beta=1'"},
        {"density_speed on gamma=1 gamma=2", ORCA_ERR_FORMAT,
         "t.txt:1: density_speed: gamma given twice"},
        {"density_speed on gamma=x", ORCA_ERR_FORMAT,
         "t.txt:1: density_speed gamma: expected a number, got 'x'"},
        {"seed -1", ORCA_ERR_FORMAT,
         "t.txt:1: seed: expected a whole number from 0 to 18446744073709551615, got '-1'"},
        /* goal sets */
        {"goalset g 0 0 exit arrive=x", ORCA_ERR_FORMAT,
         "t.txt:1: arrive: expected a number, got 'x'"},
        {"goalset g 0 0 exit arrive=5e7", ORCA_ERR_FORMAT,
         "t.txt:1: arrive must be 0 (the agent's radius) or between 2^-30 and 2^23 m, got '5e7'"},
        {"goalset g 0 0 arrive=1", ORCA_ERR_FORMAT,
         "t.txt:1: goalset: after the points only 'exit' and then 'arrive=D' and 'capacity=C' "
         "(each once) may follow, got 'arrive=1'"},
        {"goalset g 0 0 exit arrive=1 arrive=2", ORCA_ERR_FORMAT,
         "t.txt:1: goalset: after the points only 'exit' and then 'arrive=D' and 'capacity=C' "
         "(each once) may follow, got 'arrive=2'"},
        {"goalset g 0 0 capacity=1", ORCA_ERR_FORMAT,
         "t.txt:1: goalset: after the points only 'exit' and then 'arrive=D' and 'capacity=C' "
         "(each once) may follow, got 'capacity=1'"},
        {"goalset g 0 0 exit capacity=0", ORCA_ERR_FORMAT,
         "t.txt:1: capacity must be between 2^-30 and 2^30 agents a second, got '0'"},
        {"goalset g 0 0 exit capacity=inf", ORCA_ERR_FORMAT,
         "t.txt:1: capacity: expected a finite number, got 'inf'"},
        {"goalset g 0 0 exit capacity=z", ORCA_ERR_FORMAT,
         "t.txt:1: capacity: expected a number, got 'z'"},
        {"goalset g 0", ORCA_ERR_FORMAT,
         "t.txt:1: goalset takes a name and points: goalset NAME X1 Y1 [X2 Y2 ...] [exit "
         "[arrive=D] [capacity=C]], got 2 fields"},
        {"goalset g 0 y", ORCA_ERR_FORMAT,
         "t.txt:1: goalset point 1 y: expected a number, got 'y'"},
        {"goalset gggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggg 0 0",
         ORCA_ERR_FORMAT, "t.txt:1: goalset: the name has 64 characters, at most 63"},
        {"goalset g 0 0\ngoalset g 1 1", ORCA_ERR_FORMAT,
         "t.txt:2: goalset 'g' is declared twice (first on line 1)"},
        /* blocks */
        {"polygon\n0 0\nend 1\n", ORCA_ERR_FORMAT, "t.txt:3: 'end' takes nothing after it"},
        {"polygon\n0 0 1\n", ORCA_ERR_FORMAT,
         "t.txt:2: inside the polygon block started on line 1: expected 'X Y' or 'end', got 3 "
         "fields"},
        {"boundary\n0 0\nname x\n", ORCA_ERR_FORMAT,
         "t.txt:3: 'name' inside the boundary block started on line 1 (missing 'end'?)"},
        {"polyline 0 0\n", ORCA_ERR_FORMAT, "t.txt:1: polyline needs at least 2 points, got 1"},
        {"grid 2 2 0 0 1 2097152", ORCA_ERR_FORMAT,
         "t.txt:1: grid: point (0, 1) y = 2097152 must have magnitude below 2^21 (2097152)"},
    };
    orca_scene_file *keep = read_text("agent 0 0", "keep.txt");
    ENSURE(keep);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        orca_scene_file *f = keep; /* a refusal sets it to NULL */
        orca_status st =
            orca_scene_file_read_text(cases[k].text, strlen(cases[k].text), "t.txt", &f);
        ENSURE_MSG(st == cases[k].status && f == NULL, "case %zu: %s", k, orca_status_name(st));
        ENSURE_MSG(strcmp(orca_scene_file_last_error(NULL), cases[k].message) == 0,
                   "case %zu: '%s'", k, orca_scene_file_last_error(NULL));
    }
    orca_scene_file_destroy(keep);
    /* a NUL byte within the text, a line over 1 MiB, a text over 1 GiB (never read) */
    orca_scene_file *f = NULL;
    ENSURE(orca_scene_file_read_text("agent 0 0\n\0", 11, "t.txt", &f) == ORCA_ERR_FORMAT);
    ENSURE(strcmp(orca_scene_file_last_error(NULL), "t.txt:2: NUL byte in the line (is this a "
                                                    "text file?)") == 0);
    size_t big = ORCA_SCENE_LINE_MAX + 1;
    char *line = malloc(big + 20);
    ENSURE(line);
    memset(line, '#', big);
    memcpy(line + big, "\nagent 0 0\n", 12);
    for (int k = 0; k < 2; ++k) { /* without and with the newline after it */
        ENSURE(orca_scene_file_read_text(line, big + (size_t)k, "t.txt", &f) == ORCA_ERR_LIMIT);
        ENSURE(strncmp(orca_scene_file_last_error(NULL),
                       "t.txt:1: the line is longer than the limit of 1 MiB", 51) == 0);
    }
    line[0] = '\n'; /* a blank line, then a comment of exactly the limit */
    ENSURE(orca_scene_file_read_text(line, big + 11, "t.txt", &f) == ORCA_OK);
    ENSURE(orca_scene_file_agent_line(f, 0) == 3);
    orca_scene_file_destroy(f);
    free(line);
    ENSURE(orca_scene_file_read_text("agent 0 0\n", (size_t)ORCA_SCENE_FILE_MAX + 1, "t.txt",
                                     &f) == ORCA_ERR_LIMIT);
    ENSURE(strcmp(orca_scene_file_last_error(NULL), "t.txt: 1.0 GiB (1073741825 bytes) is more "
                                                    "than the limit of 1 GiB for a scene "
                                                    "file") == 0);
    /* NULL arguments */
    ENSURE(orca_scene_file_read_text(NULL, 1, "t.txt", &f) == ORCA_ERR_NULL);
    ENSURE(orca_scene_file_read_text("", 0, NULL, &f) == ORCA_ERR_NULL);
    ENSURE(orca_scene_file_read_text("", 0, "t.txt", NULL) == ORCA_ERR_NULL);
    ENSURE(orca_scene_file_read(NULL, &f) == ORCA_ERR_NULL);
    ENSURE(orca_scene_file_read("t.txt", NULL) == ORCA_ERR_NULL);
    ENSURE(orca_scene_file_read_stream(NULL, "s", &f) == ORCA_ERR_NULL);
    ENSURE(orca_scene_file_read_stream(stdin, NULL, &f) == ORCA_ERR_NULL);
    ENSURE(orca_scene_file_read_stream(stdin, "s", NULL) == ORCA_ERR_NULL);
    ENSURE(f == NULL);
    /* a success clears the thread's message */
    ENSURE(orca_scene_file_read_text("agent 0 0", 9, "t.txt", &f) == ORCA_OK && f);
    ENSURE(orca_scene_file_last_error(NULL)[0] == '\0');
    orca_scene_file_destroy(f);
    orca_scene_file_destroy(NULL);
    return 0;
}

/* Paths that are not files: ORCA_ERR_ARGUMENT with errno and the command's message. */
static int test_paths(void)
{
    orca_scene_file *f = NULL;
    errno = 0;
    ENSURE(orca_scene_file_read("no-such-scene.txt", &f) == ORCA_ERR_ARGUMENT && f == NULL);
    ENSURE(errno == ENOENT);
    char want[256];
    snprintf(want, sizeof want, "no-such-scene.txt: cannot open: %s", strerror(ENOENT));
    ENSURE_MSG(strcmp(orca_scene_file_last_error(NULL), want) == 0, "%s",
               orca_scene_file_last_error(NULL));
    errno = 0;
    ENSURE(orca_scene_file_read(".", &f) == ORCA_ERR_ARGUMENT && f == NULL);
    ENSURE(errno == EISDIR);
    ENSURE(strcmp(orca_scene_file_last_error(NULL), ".: is a directory") == 0);
    return 0;
}

/* Streams: one that cannot be read (ORCA_ERR_IO with errno), a regular file over the limit
 * (refused before it is read: sparse, no disk used), one that does not seek (counted as it is
 * read), and a write to a stream that refuses it. */
static int test_streams(void)
{
    const char *path = "test_scene_file.tmp.txt";
    FILE *w = fopen(path, "wb");
    ENSURE(w);
    ENSURE(fputs("agent 0 0\n", w) >= 0);
    orca_scene_file *f = NULL;
    errno = 0;
    ENSURE(orca_scene_file_read_stream(w, "w.txt", &f) == ORCA_ERR_IO && f == NULL);
    ENSURE(errno != 0);
    char want[256];
    snprintf(want, sizeof want, "w.txt: read error: %s", strerror(errno));
    ENSURE_MSG(strcmp(orca_scene_file_last_error(NULL), want) == 0, "%s",
               orca_scene_file_last_error(NULL));
    /* The stream is in an error state now; whether closing it then reports that is the C
     * library's choice (Microsoft's does, glibc's does not), so only the close itself. */
    fclose(w);
    /* the stream writer's failure: a stream open for reading only */
    FILE *r = fopen(path, "rb");
    ENSURE(r);
    orca_scenario *sc = NULL;
    ENSURE(orca_scenario_create_builtin(ORCA_SCENE_CIRCLE, 4, 1, NULL, &sc) == ORCA_OK);
    ENSURE(orca_scene_file_write(r, sc, NULL) == ORCA_ERR_IO);
    ENSURE(strncmp(orca_scene_file_last_error(NULL), "writing the scene: ", 19) == 0);
    fclose(r);
    orca_scenario_destroy(sc);
    /* 1 GiB and one byte, of which only the last is written */
    w = fopen(path, "wb");
    ENSURE(w);
    ENSURE(fseek(w, (long)ORCA_SCENE_FILE_MAX, SEEK_SET) == 0 && fputc('\n', w) == '\n');
    ENSURE(fclose(w) == 0);
    ENSURE(orca_scene_file_read(path, &f) == ORCA_ERR_LIMIT && f == NULL);
    snprintf(want, sizeof want, "%s: 1.0 GiB (1073741825 bytes) is more than the limit of 1 GiB "
                                "for a scene file", path);
    ENSURE_MSG(strcmp(orca_scene_file_last_error(NULL), want) == 0, "%s",
               orca_scene_file_last_error(NULL));
    remove(path);
#if !defined(_WIN32)
    FILE *p = popen("{ head -c 70000 /dev/zero | tr '\\0' '#'; printf '\\nagent 0 0\\n'; }", "r");
    ENSURE(p);
    ENSURE(orca_scene_file_read_stream(p, "<pipe>", &f) == ORCA_OK);
    ENSURE(orca_scene_file_agent_line(f, 0) == 2);
    orca_scene_file_destroy(f);
    ENSURE(pclose(p) == 0);
#endif
    return 0;
}

/* The number and text helpers the reader and the command share (src/text.h). */
static int test_text(void)
{
    char why[160], buf[64];
    long long v = 0;
    uint64_t u = 0;
    double d = 0;
    ENSURE(orca_parse_long("0XfF", 0, 1000, &v, why, sizeof why) == 0 && v == 255);
    ENSURE(orca_parse_long("-9223372036854775808", LLONG_MIN, 0, &v, why, sizeof why) == 0);
    ENSURE(v == LLONG_MIN);
    ENSURE(orca_parse_long("9223372036854775808", 0, LLONG_MAX, &v, why, sizeof why) == -2);
    ENSURE(strcmp(why, "must be between 0 and 9223372036854775807, got '9223372036854775808'") ==
           0);
    ENSURE(orca_parse_long("99999999999999999999", 0, 5, &v, why, sizeof why) == -2);
    ENSURE(orca_parse_long("0x", 0, 5, &v, why, sizeof why) == -1);
    ENSURE(strcmp(why, "expected a whole number, got '0x'") == 0);
    ENSURE(orca_parse_u64("+0xFFFFFFFFFFFFFFFF", &u, why, sizeof why) == 0 && u == UINT64_MAX);
    ENSURE(orca_parse_u64("18446744073709551616", &u, why, sizeof why) == -2);
    ENSURE(strcmp(why, "must be between 0 and 18446744073709551615, got '18446744073709551616'") ==
           0);
    ENSURE(orca_parse_double(" 1", &d, why, sizeof why) == -1);
    ENSURE(orca_parse_double("inf", &d, why, sizeof why) == -1);
    ENSURE(strcmp(why, "expected a finite number, got 'inf'") == 0);
    ENSURE(orca_parse_double("-1e999", &d, why, sizeof why) == -1);
    ENSURE(strcmp(why, "number out of range (magnitude beyond 1.8e308), got '-1e999'") == 0);
    ENSURE(orca_parse_double("0x1p-1080", &d, why, sizeof why) == 0 && d == 0.0);
    ENSURE(strcmp(orca_rounds_to_zero("0x1p-1080", d), " (it rounds to 0)") == 0);
    ENSURE(strcmp(orca_rounds_to_zero("-0x0.Ap-1080", d), " (it rounds to 0)") == 0);
    ENSURE(strcmp(orca_rounds_to_zero("0e5", d), "") == 0);
    /* quoting: long text cut before byte 37 at a character boundary */
    ENSURE(strcmp(orca_quote(buf, sizeof buf, "abc"), "'abc'") == 0);
    ENSURE(strcmp(orca_quote(buf, sizeof buf,
                             "0123456789012345678901234567890123\xC3\xA9\xC3\xA9\xC3\xA9xx"),
                  "'0123456789012345678901234567890123\xC3\xA9...'") == 0);
    /* UTF-8: one to four bytes; overlong, surrogate, beyond U+10FFFF, truncated refused */
    static const struct {
        const char *s;
        int len;
        uint32_t cp;
    } utf8[] = {{"A", 1, 0x41},          {"\xC3\xA9", 2, 0xE9},  {"\xE2\x82\xAC", 3, 0x20AC},
                {"\xF0\x9F\x98\x80", 4, 0x1F600}, {"\xC0\x80", 0, 0},     {"\xE0\x80\x80", 0, 0},
                {"\xED\xA0\x80", 0, 0},  {"\xF4\x90\x80\x80", 0, 0}, {"\xE2\x82", 0, 0},
                {"\x80", 0, 0},           {"\xFF", 0, 0}};
    for (size_t k = 0; k < sizeof utf8 / sizeof utf8[0]; ++k) {
        uint32_t cp = 0;
        int len = orca_utf8_next((const unsigned char *)utf8[k].s, &cp);
        ENSURE_MSG(len == utf8[k].len && (len == 0 || cp == utf8[k].cp), "case %zu: %d U+%04X", k,
                   len, (unsigned)cp);
    }
    ENSURE(orca_check_text("caf\xC3\xA9 \xE2\x82\xAC", why, sizeof why) == 0);
    ENSURE(orca_check_text("a\xEF\xBF\xBF", why, sizeof why) == -1);
    ENSURE(strcmp(why, "noncharacter U+FFFF at byte 2") == 0);
    ENSURE(orca_check_text("a\xC2\x85", why, sizeof why) == -1);
    ENSURE(strcmp(why, "control character U+0085 at byte 2") == 0);
    ENSURE(orca_check_text("\xFF", why, sizeof why) == -1);
    ENSURE(strcmp(why, "invalid UTF-8 at byte 1 (\\xff)") == 0);
    /* sizes */
    static const struct {
        unsigned long long n;
        const char *text;
    } sizes[] = {{0, "0 bytes"},       {1, "1 byte"},          {1023, "1023 bytes"},
                 {1024, "1 KiB"},      {1536, "1.5 KiB (1536 bytes)"}, {1u << 20, "1 MiB"},
                 {3ull << 40, "3 TiB"}};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
        orca_format_bytes(buf, sizeof buf, sizes[k].n);
        ENSURE_MSG(strcmp(buf, sizes[k].text) == 0, "%llu: '%s'", sizes[k].n, buf);
    }
    return 0;
}

/* orca_scene_build_def: dt and seed replaced, the simulation's setup; refusals name the line. */
static int test_build(void)
{
    orca_scene_file *f = read_text("dt 0.5\nseed 3\nagent 0 0 goal 4 0\nagent 4 0 goal 0 0\n",
                                   "b.txt");
    ENSURE(f);
    orca_scene_build_def def = orca_scene_build_def_default();
    ENSURE(def.use_dt == 0 && def.use_seed == 0 && def.sim.worker_count == 1);
    def.sim.worker_count = 2;
    def.use_seed = 1;
    def.seed = 77;
    orca_scenario *sc = NULL;
    ENSURE(orca_scene_file_build(f, &def, &sc) == ORCA_OK && sc);
    ENSURE(orca_scenario_seed(sc) == 77 && orca_sim_get_worker_count(orca_scenario_sim(sc)) == 2);
    ENSURE_BITS(orca_scenario_dt(sc), 0.5);
    orca_scenario_destroy(sc);
    def.use_dt = 1;
    def.dt = 0.25;
    ENSURE(orca_scene_file_build(f, &def, &sc) == ORCA_OK);
    ENSURE_BITS(orca_scenario_dt(sc), 0.25);
    orca_scenario_destroy(sc);
    /* a dt the scenario refuses: named with the file (not its dt line, which was replaced) */
    def.dt = -1;
    sc = NULL;
    ENSURE(orca_scene_file_build(f, &def, &sc) == ORCA_ERR_ARGUMENT && sc == NULL);
    ENSURE_MSG(strncmp(orca_scene_file_last_error(f),
                       "b.txt: creating the scenario (orca_scenario_create): ", 53) == 0,
               "%s", orca_scene_file_last_error(f));
    ENSURE(strstr(orca_scene_file_last_error(f), "(ORCA_ERR_ARGUMENT)") != NULL);
    ENSURE(orca_scene_file_build(f, NULL, NULL) == ORCA_ERR_NULL);
    ENSURE(orca_scene_file_build(NULL, NULL, &sc) == ORCA_ERR_NULL);
    orca_scene_file_destroy(f);
    /* the density parameters are the simulation's to check: refused when built, with the line */
    f = read_text("agent 0 0\ndensity_speed on radius=0\n", "d.txt");
    ENSURE(f);
    ENSURE(orca_scene_file_build(f, NULL, &sc) == ORCA_ERR_ARGUMENT);
    ENSURE_MSG(strcmp(orca_scene_file_last_error(f),
                      "d.txt:2: density radius must be in [2^-30, 2^23] m, got 0") == 0,
               "%s", orca_scene_file_last_error(f));
    orca_scene_file_destroy(f);
    /* what only the simulation can check: an agent outside the walkable area */
    f = read_text("boundary 0 0 10 0 10 10 0 10\nagent 5 5\n\nagent 30 5\n", "w.txt");
    ENSURE(f);
    ENSURE(orca_scene_file_build(f, NULL, &sc) == ORCA_ERR_ARGUMENT && sc == NULL);
    ENSURE_MSG(strncmp(orca_scene_file_last_error(f), "w.txt:4: agent 1: ", 18) == 0, "%s",
               orca_scene_file_last_error(f));
    orca_scene_file_destroy(f);
    return 0;
}

/* Every allocation of a read, a build and a write failing in turn: ORCA_ERR_MEMORY with a
 * message, nothing leaked, and the next try succeeds. */
static int test_allocation_failures(void)
{
    orca_allocator a = {fa_alloc, fa_resize, fa_release, NULL};
    ENSURE(orca_set_allocator(&a) == ORCA_OK);
    long live0 = g_live;
    int runs = 0;
    for (long k = 1; k < 100000; ++k) {
        g_calls = 0;
        g_failed = 0;
        g_fail_at = k;
        orca_scene_file *f = NULL;
        orca_scenario *sc = NULL;
        size_t n = 0;
        orca_status st = orca_scene_file_read_text(k_scene, strlen(k_scene), "m.txt", &f);
        const char *msg = orca_scene_file_last_error(NULL);
        if (st == ORCA_OK) {
            st = orca_scene_file_build(f, NULL, &sc);
            msg = orca_scene_file_last_error(f);
        }
        if (st == ORCA_OK) {
            st = orca_scene_file_write_text(sc, NULL, NULL, 0, &n);
            msg = orca_scene_file_last_error(NULL);
        }
        int reached = g_failed > 0;
        g_fail_at = 0;
        ENSURE_MSG(st == (reached ? ORCA_ERR_MEMORY : ORCA_OK), "allocation %ld failing: %s", k,
                   orca_status_name(st));
        ENSURE_MSG(!reached || msg[0], "allocation %ld failing: no message", k);
        orca_scenario_destroy(sc);
        orca_scene_file_destroy(f);
        ENSURE_MSG(g_live == live0, "allocation %ld failing: %ld blocks leaked", k,
                   g_live - live0);
        ++runs;
        if (!reached) {
            break;
        }
    }
    ENSURE(orca_set_allocator(NULL) == ORCA_OK);
    ENSURE(runs > 20);
    return 0;
}

const orca_test ORCA_TESTS[] = {
    {"every_statement", test_every_statement},
    {"write_read_back", test_write_read_back},
    {"navigation_options", test_navigation_options},
    {"write_sizes", test_write_sizes},
    {"three_readers", test_three_readers},
    {"refusals", test_refusals},
    {"paths", test_paths},
    {"streams", test_streams},
    {"text", test_text},
    {"build", test_build},
    {"allocation_failures", test_allocation_failures},
    {0, 0},
};
