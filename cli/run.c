/* SPDX-License-Identifier: MIT */
/* `orca run` and `orca scene`. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "snapfile.h"
#include "svg_scene.h"

void help_run(FILE *f)
{
    fputs(
        "Usage: orca run SCENE_FILE [options]\n"
        "       orca run --scene NAME [-n N] [--seed S] [options]\n"
        "\n"
        "Runs a scene file (docs/scene-format.md; '-' reads standard input) or a built-in\n"
        "scene, then prints a summary: agents, segments, steps, simulated time, arrival,\n"
        "deepest overlaps, mean speed, fallback count, wall time, throughput, state hash\n"
        "and the bits version it belongs to (the same bits version, the same hash for the\n"
        "same run, on every machine and in every orca release that has it).\n"
        "\n"
        "Scene:\n"
        "  --scene NAME        built-in scene: circle, crossing, wallgap, corridor, random\n"
        "  -n, --agents N      agents of the built-in scene (the scene may round N; default:\n"
        "                      the scene's own size, see docs/scenarios.md)\n"
        "  --seed S            seed, 0..2^64-1 (default 1): places the random scene and seeds\n"
        "                      the preferred-velocity perturbation; with a scene file it\n"
        "                      replaces the file's seed\n"
        "  --dt SECONDS        step length (default: the scene's, 0.25 for built-in scenes)\n"
        "\n"
        "Length of the run:\n"
        "  --steps N           run exactly N steps (0 is allowed)\n"
        "  --max-steps CAP     without --steps: run until every agent has arrived (is within\n"
        "                      its radius of its goal point, after its waypoints; an agent\n"
        "                      whose waypoints loop never arrives), at most CAP steps\n"
        "                      (default 20000)\n"
        "\n"
        "Execution:\n"
        "  -j, --workers N     worker threads, 1..64, or 0 for one per online CPU (default 1).\n"
        "                      The results are the same bits for any N.\n"
        "  --scalar            the scalar code only, no vector kernels or AVX2 code (they run\n"
        "                      on x86-64 CPUs with AVX2; the results are the same bits either\n"
        "                      way)\n"
        "\n"
        "Output:\n"
        "  --json              print the summary as one JSON object (stdout)\n"
        "  -q, --quiet         print no summary and no progress (--json still prints)\n"
        "  --csv FILE          trajectories: step,time,agent,x,y,vx,vy (numbers as %.17g)\n"
        "  --every K           CSV rows every K steps (default 1); the first and the last\n"
        "                      state are always written\n"
        "  --svg FILE          picture of the final state: walls, waypoint paths (dashed),\n"
        "                      trajectories, starts and goals, the agents as discs of the true\n"
        "                      radius, each agent coloured by the direction of its goal (as\n"
        "                      the demo page), scale bar and a caption with the key figures.\n"
        "                      Trajectories cover the whole run, sampled evenly (every step,\n"
        "                      then every 2nd, 4th, ... as the run gets longer; the legend\n"
        "                      says how often)\n"
        "  --svg-trail SECONDS draw only each agent's last SECONDS (> 0), fading, instead\n"
        "                      of its whole trajectory: how the agents move at the end\n"
        "  --save FILE         write the scenario's snapshot after the run (orca_scenario_save:\n"
        "                      agents, walls, goals, waypoints, navigation, exits, dt, seed and\n"
        "                      the record of arrivals, overlaps and fallbacks); one larger\n"
        "                      than 1 GiB (what --load reads; about 6.4 million agents) is\n"
        "                      refused before the first step\n"
        "  --load FILE         continue a saved run: restore the snapshot before the first step\n"
        "                      ('-' reads standard input; at most 1 GiB). Give the scene it was\n"
        "                      saved from (the same file or built-in scene, -n, --dt, --seed);\n"
        "                      another scene's is refused. --steps then counts the additional\n"
        "                      steps, and N steps, --save, --load, M steps give the bits and\n"
        "                      the summary's arrival, overlaps, fallbacks and exits of N+M\n"
        "                      steps (mean speed, boundaries, diagnostics and times cover this\n"
        "                      run). Simulation snapshots of orca 0.3 (ORCASNAP) load too:\n"
        "                      then the summary covers this run only.\n"
        "\n",
        f);
    fputs(
        "Diagnostics (docs/extensions.md):\n"
        "  --diagnostics       record per-agent diagnostics every step and print their counts:\n"
        "                      neighbour lists cut at max_neighbors, blocked agents (wanting\n"
        "                      to move, moving at most a tenth of the wanted speed), locked\n"
        "                      agents (JSON: diagnostics). Same bits; the step runs the\n"
        "                      extensions' exact neighbour search, slower.\n"
        "\n"
        "Coincident agents (docs/extensions.md):\n"
        "  --separation        separate agents that stand at exactly the same point (the\n"
        "                      higher index of a pair steps the other way), as the scene\n"
        "                      statement 'separation on' does; on without the option when a\n"
        "                      boundary loop or avoidance settings are in use. Without it such\n"
        "                      agents never part (the algorithm's bits); the run warns when\n"
        "                      agents start at one point.\n"
        "\n"
        "Density-dependent speed (docs/extensions.md):\n"
        "  --density-speed     slow each agent with the local density of its neighbour list\n"
        "                      (Weidmann's fundamental diagram: radius 2 m, gamma 1.913,\n"
        "                      max density 5.4 per m^2), as the scene statement\n"
        "                      'density_speed on' does; a statement's own parameters are\n"
        "                      kept. Give the agents neighbor_dist >= 2, max_neighbors\n"
        "                      >= 64 for densities up to 4 per m^2 and a time horizon of\n"
        "                      2 to 3 s (a long one bunches the crowd; JSON: density_speed).\n"
        "\n"
        "Pedestrian model (docs/pedestrians.md):\n"
        "  --pedestrian        the pedestrian preset, as the scene statement 'pedestrian on'\n"
        "                      does: the model with its defaults (time gap 0.5 s, buffer\n"
        "                      0.02 m, counter reach 2 m, at most 4 headway half-planes; a\n"
        "                      statement's own parameters are kept), goal-set agents in their\n"
        "                      set's stream, and for a scene file the recommended agent\n"
        "                      (radius 0.18 m, 32 neighbours within 2 m, horizons 2 and 0.5 s,\n"
        "                      free speeds drawn from N(1.34, 0.26) m/s) where it gives none,\n"
        "                      dt 0.05 s where it has no 'dt'. Built-in scenes keep their\n"
        "                      agents and dt. Not with --density-speed (JSON: pedestrian;\n"
        "                      --diagnostics adds the headway half-planes and the agents in\n"
        "                      counter mode).\n"
        "\n"
        "Navigation (docs/navigation.md; for scenes with 'navigation on'):\n"
        "  --nav-check         the leg check, as 'navigation on check=on': an agent on its\n"
        "                      last leg that made no progress for 4 s and whose straight line\n"
        "                      to its goal is blocked by a wall plans again from where it\n"
        "                      stands (the new path is taken when more than 1 m longer,\n"
        "                      or at any length after 8 s without progress)\n"
        "  --exit-choice MODE  how goal-set agents choose their point, as 'navigation on\n"
        "                      exits=MODE': nearest (the nearest by path, the default), calm\n"
        "                      (the quickest walk, kept unless another is quicker by a margin)\n"
        "                      or quickest (the walk and the queue ahead; reviewed each 1 s\n"
        "                      without progress). Both are saved in --save's snapshot (JSON:\n"
        "                      nav_check, exit_choice).\n"
        "\n"
        "Spatial queries on the final state (docs/extensions.md; agent indices, exact):\n"
        "  --near X,Y,R        the agents within R m of (X, Y), nearest first (ties: lower\n"
        "                      index first); |X|, |Y| < 2^21, R in [0, 2^23]\n"
        "  --nearest X,Y,K     the K agents nearest to (X, Y), in the same order\n"
        "  --box X0,Y0,X1,Y1   the agents with X0 <= x <= X1 and Y0 <= y <= Y1, by index\n"
        "                      The summary shows the first 20 of each answer, --json all.\n"
        "  -h, --help          this text\n"
        "\n",
        f);
    fputs(
        "Output files: '-' is standard output for one of --csv, --svg and --save (then no\n"
        "summary is printed). Every output is opened before the first step, so a path that\n"
        "cannot be written fails at once. A file is written to a temporary file next to it\n"
        "(FILE.tmp.XXXXXX, so the directory must be writable) that replaces FILE only when\n"
        "the run succeeded and everything was written: a failed or interrupted run leaves\n"
        "FILE as it was and no partial file.\n"
        "Devices and pipes (/dev/null or Windows' NUL, a FIFO) are written directly. On\n"
        "Windows FILE is replaced with MoveFileEx. Two outputs may not\n"
        "name one file, nor an output the scene file; --save may replace the --load\n"
        "snapshot (a run continued in place).\n"
        "\n"
        "Input limits: scene files up to 1 GiB, lines up to 1 MiB; snapshots up to 1 GiB\n"
        "(docs/scene-format.md). A directory or a larger input is refused with exit status 2.\n"
        "\n"
        "The summary says why the run stopped: every agent arrived, the step cap\n"
        "(--max-steps) was reached, or the --steps were done (JSON: stop_reason). Agents on\n"
        "looping waypoints never arrive: without --steps such a run goes on to the cap and\n"
        "says so (JSON: looping).\n"
        "Progress is shown on stderr when stderr is a terminal.\n"
        "Exit status: 0 success (also when the step cap stopped a run before every agent\n"
        "arrived), 2 bad usage, scene file or snapshot, 1 runtime failure (a refused step,\n"
        "an output file that cannot be written, out of memory).\n"
        "\n"
        "Examples:\n"
        "  orca run --scene circle -n 100 --svg demo.svg\n"
        "  orca run --scene circle -n 100 --steps 1500 --svg demo.svg --svg-trail 60\n"
        "  orca scene crossing -o cross.txt && orca run cross.txt --json\n"
        "  orca run --scene random -n 10000 -j 0 --steps 200\n"
        "  orca run --scene corridor --steps 50 --save half.snap\n"
        "  orca run --scene corridor --load half.snap --steps 50\n",
        f);
}

void help_scene(FILE *f)
{
    fputs("Usage: orca scene NAME [-n N] [--seed S] [--dt SECONDS] [--density-speed]\n"
          "                  [--pedestrian] [-o FILE]\n"
          "\n"
          "Writes the built-in scene NAME (circle, crossing, wallgap, corridor, random) as a\n"
          "scene file (docs/scene-format.md) to FILE or standard output, to start your own\n"
          "scene from. Numbers are written with 17 significant digits, so\n"
          "  orca scene circle -o c.txt && orca run c.txt\n"
          "gives the same state hash as 'orca run --scene circle'.\n"
          "\n"
          "  -n, --agents N      agents (the scene may round N; default: the scene's size)\n"
          "  --seed S            seed (default 1)\n"
          "  --dt SECONDS        step length written to the file (default 0.25)\n"
          "  --density-speed     write 'density_speed on' with the default parameters\n"
          "                      (docs/extensions.md, \"Density-dependent speed\")\n"
          "  --pedestrian        write 'pedestrian on' with the model's parameters\n"
          "                      (docs/pedestrians.md; the scene's agents keep theirs)\n"
          "  -o, --output FILE   output file (default: standard output; '-' too). It is\n"
          "                      written to FILE.tmp.XXXXXX and renamed to FILE when complete,\n"
          "                      so a failure leaves an existing FILE as it was\n"
          "  -h, --help          this text\n",
          f);
}

/* --- common scene setup ------------------------------------------------------------------- */

typedef struct scene_opts {
    const char *file;
    int builtin; /* -1: none */
    long long agents;
    int have_agents;
    uint64_t seed;
    int have_seed;
    double dt;
    int have_dt;
    int separation; /* orca run --separation (docs/extensions.md, "Coincident agents") */
    int density;    /* --density-speed (docs/extensions.md, "Density-dependent speed") */
    int pedestrian; /* --pedestrian (docs/pedestrians.md) */
    int nav_check;  /* --nav-check (docs/navigation.md, "Following a path") */
    int exit_choice; /* --exit-choice MODE (docs/navigation.md, "Exit choice"); -1: not given */
    int loading;    /* orca run --load: the snapshot's agents replace the file's starts */
} scene_opts;

/* --nav-check and --exit-choice: set on the scenario after the scene (or snapshot), as the
 * scene's statements would (the values were checked when parsed). */
static void nav_options(const scene_opts *o, orca_scenario *sc)
{
    if (o->nav_check) {
        orca_scenario_set_nav_check(sc, 1);
    }
    if (o->exit_choice >= 0) {
        orca_scenario_set_exit_choice(sc, o->exit_choice);
    }
}

/* --density-speed: on with the defaults unless the scene (or snapshot) already turned it on
 * with its own parameters; refused (exit status 2, the library's message) when the scene has
 * the pedestrian model on. */
static int density_option(const scene_opts *o, orca_sim *sim)
{
    if (!o->density || orca_sim_get_density_speed(sim, NULL)) {
        return EXIT_OK;
    }
    orca_density_speed p = orca_density_speed_default();
    orca_status st = orca_sim_set_density_speed(sim, &p);
    if (st != ORCA_OK) {
        cli_lib_error(st, orca_sim_last_error(sim), "--density-speed");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* --pedestrian on a built-in scene or a snapshot: the preset on with the model's defaults
 * unless the snapshot already has the model on with its own parameters (a scene file takes
 * it in its build: orca_scene_build_def.pedestrian). --density-speed with it is refused
 * before the scene is built (run_check_options); a snapshot with the density-dependent speed
 * refuses it with the library's message. */
static int pedestrian_option(const scene_opts *o, orca_scenario *sc)
{
    if (!o->pedestrian || orca_sim_get_pedestrian(orca_scenario_sim(sc), NULL)) {
        return EXIT_OK;
    }
    orca_pedestrian p = orca_pedestrian_default();
    orca_status st = orca_scenario_set_pedestrian(sc, &p);
    if (st != ORCA_OK) {
        cli_lib_error(st, orca_scenario_last_error(sc), "--pedestrian");
        return st == ORCA_ERR_MEMORY ? EXIT_RUNTIME : EXIT_USAGE;
    }
    return EXIT_OK;
}

/* Builds the scenario. Returns an exit status (0 on success). */
static int make_scenario(const scene_opts *o, const orca_sim_def *sim_def, orca_scenario **out,
                         char *source, size_t source_size)
{
    if (o->file) {
        const char *name = strcmp(o->file, "-") == 0 ? "<stdin>" : o->file;
        orca_scene_file *file = NULL;
        int rc = cli_scene_file_read(o->file, &file);
        if (rc != EXIT_OK) {
            return rc;
        }
        orca_scene_build_def def = orca_scene_build_def_default();
        def.sim = sim_def ? *sim_def : def.sim;
        def.use_dt = o->have_dt;
        def.dt = o->dt;
        def.use_seed = o->have_seed;
        def.seed = o->seed;
        def.pedestrian = o->pedestrian;
        orca_status st = orca_scene_file_build(file, &def, out);
        snprintf(source, source_size, "scene file %s", name);
        if (st == ORCA_OK && o->separation) {
            orca_sim_set_separation(orca_scenario_sim(*out), 1); /* 1 is always accepted */
        }
        if (st == ORCA_OK && (rc = density_option(o, orca_scenario_sim(*out))) != EXIT_OK) {
            orca_scenario_destroy(*out);
            *out = NULL;
            orca_scene_file_destroy(file);
            return rc;
        }
        if (st == ORCA_OK) {
            nav_options(o, *out);
        }
        if (st == ORCA_OK && !o->loading) {
            cli_warn_file_coincident(file, name, orca_scenario_sim(*out), stderr);
        }
        if (st != ORCA_OK) {
            cli_print_message(orca_scene_file_last_error(file));
        }
        orca_scene_file_destroy(file);
        return st == ORCA_OK ? EXIT_OK : cli_scene_file_exit(st);
    }
    uint64_t seed = o->have_seed ? o->seed : CLI_DEFAULT_SEED;
    const char *scene_name = orca_scene_name((orca_scene_kind)o->builtin);
    orca_scenario *sc = NULL;
    orca_status st = orca_scenario_create_builtin((orca_scene_kind)o->builtin,
                                                  o->have_agents ? (int)o->agents : 0, seed,
                                                  sim_def, &sc);
    if (st != ORCA_OK) {
        /* No scenario to ask: the library's message is orca_scenario_last_error(NULL). */
        if (o->have_agents) {
            cli_lib_error(st, orca_scenario_last_error(NULL), "building scene %s with %lld agent%s",
                          scene_name, o->agents, o->agents == 1 ? "" : "s");
        } else {
            cli_lib_error(st, orca_scenario_last_error(NULL), "building scene %s", scene_name);
        }
        return st == ORCA_ERR_MEMORY ? EXIT_RUNTIME : EXIT_USAGE;
    }
    if (o->have_dt) {
        /* The built-in scenes use dt 0.25 and the scenario has no setter: rebuild with the
         * same agents (same order, so the same perturbation) and the requested dt. */
        orca_scenario *c = NULL;
        char err[600];
        st = scene_clone(sc, sim_def, o->dt, seed, &c, err, sizeof err);
        orca_scenario_destroy(sc);
        if (st != ORCA_OK) {
            cli_error("--dt %.17g: scene %s: %s", o->dt, scene_name, err);
            return st == ORCA_ERR_MEMORY ? EXIT_RUNTIME : EXIT_USAGE;
        }
        sc = c;
    }
    snprintf(source, source_size, "built-in scene, seed %llu", (unsigned long long)seed);
    if (o->separation) {
        orca_sim_set_separation(orca_scenario_sim(sc), 1); /* 1 is always accepted */
    }
    nav_options(o, sc);
    int rc = density_option(o, orca_scenario_sim(sc));
    if (rc == EXIT_OK) {
        rc = pedestrian_option(o, sc);
    }
    if (rc != EXIT_OK) {
        orca_scenario_destroy(sc);
        return rc;
    }
    *out = sc;
    return EXIT_OK;
}

/* Handles the scene options shared by run and scene. Returns 1 if consumed, 0 if not this
 * option, -1 on a bad value (message printed). */
enum { O_SCENE, O_AGENTS, O_SEED, O_DT };
static int scene_option(scene_opts *o, int which, const char *name, const char *value)
{
    long long v;
    switch (which) {
    case O_SCENE:
        o->builtin = cli_scene_kind(name, value);
        return o->builtin < 0 ? -1 : 1;
    case O_AGENTS:
        if (cli_opt_long(name, value, 1, 2147483647, &v) != 0) {
            return -1;
        }
        o->agents = v;
        o->have_agents = 1;
        return 1;
    case O_SEED:
        if (cli_opt_u64(name, value, &o->seed) != 0) {
            return -1;
        }
        o->have_seed = 1;
        return 1;
    case O_DT:
        if (cli_opt_double(name, value, &o->dt) != 0) {
            return -1;
        }
        if (!(o->dt > 0.0)) {
            cli_error("%s: must be > 0, got '%s'%s", name, value,
                      cli_rounds_to_zero(value, o->dt));
            return -1;
        }
        o->have_dt = 1;
        return 1;
    default:
        return 0;
    }
}

/* --- orca scene ------------------------------------------------------------------------------ */

int cmd_scene(int argc, char **argv)
{
    static const cli_opt opts[] = {{"scene", 0, 1},  {"agents", 'n', 1}, {"seed", 0, 1},
                                   {"dt", 0, 1},     {"output", 'o', 1}, {"help", 'h', 0},
                                   {"density-speed", 0, 0}, {"pedestrian", 0, 0}, {NULL, 0, 0}};
    cli_args a = {argc, argv, 1, "scene", 0};
    scene_opts so;
    memset(&so, 0, sizeof so);
    so.builtin = -1;
    const char *output = NULL;
    const char *value, *name;
    int k;
    while ((k = cli_next(&a, opts, &value, &name)) != CLI_END) {
        if (k == CLI_ERROR) {
            return EXIT_USAGE;
        }
        if (k == CLI_POSITIONAL) {
            if (so.builtin >= 0) {
                cli_usage_error("scene", "scene: one scene name only (got '%s' too)", value);
                return EXIT_USAGE;
            }
            if (scene_option(&so, O_SCENE, "scene", value) < 0) {
                return EXIT_USAGE;
            }
            continue;
        }
        if (k <= O_DT) {
            if (scene_option(&so, k, name, value) < 0) {
                return EXIT_USAGE;
            }
        } else if (k == 4) {
            if (value[0] == '\0') {
                cli_usage_error("scene", "%s: empty file name", name);
                return EXIT_USAGE;
            }
            output = value;
        } else if (k == 6) {
            so.density = 1;
        } else if (k == 7) {
            so.pedestrian = 1;
        } else {
            help_scene(stdout);
            return EXIT_OK;
        }
    }
    if (so.builtin < 0) {
        cli_usage_error("scene", "scene: which scene? (circle, crossing, wallgap, corridor, "
                                 "random)");
        return EXIT_USAGE;
    }
    if (so.pedestrian && so.density) {
        cli_usage_error("scene", "scene: --pedestrian and --density-speed cannot go together "
                                 "(both set the walking speed: docs/pedestrians.md)");
        return EXIT_USAGE;
    }
    orca_scenario *sc = NULL;
    char source[600];
    int rc = make_scenario(&so, NULL, &sc, source, sizeof source);
    if (rc != EXIT_OK) {
        return rc;
    }
    cli_out out;
    if (cli_out_open(&out, "-o", output ? output : "-", 1) != 0) {
        orca_scenario_destroy(sc);
        return EXIT_RUNTIME;
    }
    char comment[256];
    int agents = orca_sim_agent_count(orca_scenario_sim(sc));
    snprintf(comment, sizeof comment,
             "written by orca %s: built-in scene %s, %d agent%s, seed %llu", orca_version(),
             orca_scenario_name(sc), agents, agents == 1 ? "" : "s",
             (unsigned long long)orca_scenario_seed(sc));
    int wrc = orca_scene_file_write(out.f, sc, comment) != ORCA_OK;
    orca_scenario_destroy(sc);
    if (wrc != 0) {
        cli_error("%s: could not write the scene (%s)", output ? output : "standard output",
                  ferror(out.f) ? strerror(errno) : "could not read the scenario");
        cli_out_abort(&out);
        return EXIT_RUNTIME;
    }
    if (cli_out_commit(&out) != 0) {
        return EXIT_RUNTIME;
    }
    return EXIT_OK;
}

/* --- orca run -------------------------------------------------------------------------------- */

typedef struct run_opts {
    scene_opts scene;
    long long steps;
    int have_steps;
    long long max_steps;
    int have_max; /* --max-steps given (else the default cap) */
    long long workers;
    int json, quiet;
    const char *csv, *svg, *save, *load;
    double svg_trail; /* --svg-trail SECONDS: the picture's trails (0: whole trajectories) */
    long long every;
    int have_every;
    int scalar; /* --scalar: vector kernels off */
    int diagnostics; /* --diagnostics: per-agent diagnostics each step (docs/extensions.md) */
    /* --near X,Y,R, --nearest X,Y,K, --box X0,Y0,X1,Y1: spatial queries on the final state
     * (docs/extensions.md) */
    int have_query[3];
    double query[3][4];
} run_opts;

/* The spatial queries of orca run, in the order of their output. */
enum { Q_NEAR, Q_NEAREST, Q_BOX, Q_KINDS };
static const char *const k_query_option[Q_KINDS] = {"--near", "--nearest", "--box"};
static const char *const k_query_key[Q_KINDS] = {"near", "nearest", "box"};

/* The answer of one query: agent indices (all of them), and their number. */
typedef struct query_answer {
    int *agents;
    int count;
} query_answer;

/* Parses "A,B,C[,D]" into count doubles; for --nearest the third is a whole number. */
static int parse_query(int kind, const char *name, const char *value, double *out)
{
    int want = kind == Q_BOX ? 4 : 3;
    const char *forms[Q_KINDS] = {"X,Y,RADIUS", "X,Y,K", "X0,Y0,X1,Y1"};
    char item[128], why[160];
    const char *p = value;
    for (int i = 0; i < want; ++i) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if ((i < want - 1 && !end) || (i == want - 1 && end) || len >= sizeof item) {
            cli_usage_error("run", "%s: expected %s, got '%s'", name, forms[kind], value);
            return -1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        if (kind == Q_NEAREST && i == 2) {
            long long k;
            if (cli_parse_long(item, 0, 2147483647LL, &k, why, sizeof why) != 0) {
                cli_usage_error("run", "%s: K %s", name, why);
                return -1;
            }
            out[i] = (double)k;
        } else if (cli_parse_double(item, &out[i], why, sizeof why) != 0) {
            cli_usage_error("run", "%s: %s %s", name,
                            kind == Q_BOX ? (const char *[]){"X0", "Y0", "X1", "Y1"}[i]
                                          : (const char *[]){"X", "Y", "RADIUS"}[i],
                            why);
            return -1;
        }
        p = end ? end + 1 : p + len;
    }
    return 0;
}

/* Runs query kind on sim. With answer NULL only checks the arguments (the library's own
 * checks, before the first step); else fills answer (agents malloc'ed, all of them). */
static orca_status run_query(orca_sim *sim, int kind, const double *q, query_answer *answer)
{
    orca_vec2 a = {q[0], q[1]};
    int count = 0;
    orca_status st;
    if (kind == Q_NEAREST) {
        int k = answer ? (int)q[2] : 0;
        int *buf = k > 0 ? malloc((size_t)k * sizeof *buf) : NULL;
        if (k > 0 && !buf) {
            return ORCA_ERR_MEMORY;
        }
        st = orca_sim_query_nearest(sim, a, k, buf, &count);
        if (answer) {
            answer->agents = buf;
            answer->count = count;
        } else {
            free(buf);
        }
        return st;
    }
    orca_vec2 b = {q[2], q[3]};
    st = kind == Q_NEAR ? orca_sim_query_radius(sim, a, q[2], NULL, 0, &count)
                        : orca_sim_query_box(sim, a, b, NULL, 0, &count);
    if (st != ORCA_OK || !answer) {
        return st;
    }
    int *buf = malloc((size_t)(count > 0 ? count : 1) * sizeof *buf);
    if (!buf) {
        return ORCA_ERR_MEMORY;
    }
    st = kind == Q_NEAR ? orca_sim_query_radius(sim, a, q[2], buf, count, &count)
                        : orca_sim_query_box(sim, a, b, buf, count, &count);
    answer->agents = buf;
    answer->count = count;
    return st;
}

/* The state measured against the boundaries (orca_sim_measure_boundary) into the running
 * largest intrusion and outside count; -1 after the error (out of memory), the progress line
 * cleared first when one is shown. */
static int measure_boundary(orca_sim *sim, double *deepest, int *outside, int progress)
{
    double deep = 0.0;
    int out = 0;
    if (orca_sim_measure_boundary(sim, &deep, &out) != ORCA_OK) {
        if (progress) {
            fputs("\r\033[K", stderr);
        }
        cli_error("step %llu: measuring the agents against the boundaries: %s",
                  (unsigned long long)orca_sim_step_count(sim), orca_sim_last_error(sim));
        return -1;
    }
    *deepest = deep > *deepest ? deep : *deepest;
    *outside = out > *outside ? out : *outside;
    return 0;
}

static int write_csv_rows(FILE *f, orca_sim *sim, double dt)
{
    int n = orca_sim_agent_count(sim);
    uint64_t step = orca_sim_step_count(sim);
    double t = (double)step * dt;
    for (int i = 0; i < n; ++i) {
        orca_agent_id id = orca_sim_agent_at(sim, i);
        orca_vec2 p, v;
        if (orca_agent_get_position(sim, id, &p) != ORCA_OK ||
            orca_agent_get_velocity(sim, id, &v) != ORCA_OK) {
            return -1;
        }
        fprintf(f, "%llu,%.17g,%d,%.17g,%.17g,%.17g,%.17g\n", (unsigned long long)step, t, i,
                p.x, p.y, v.x, v.y);
    }
    return ferror(f) ? -1 : 0;
}

/* Sum of |v| over the agents (the CLI's own statistic; libm is fine here). */
static double speed_sum(orca_sim *sim)
{
    int n = orca_sim_agent_count(sim);
    double s = 0.0;
    for (int i = 0; i < n; ++i) {
        orca_vec2 v;
        if (orca_agent_get_velocity(sim, orca_sim_agent_at(sim, i), &v) == ORCA_OK) {
            s += hypot(v.x, v.y);
        }
    }
    return s;
}

static void print_json_double(FILE *f, double v)
{
    if (isfinite(v)) {
        fprintf(f, "%.17g", v);
    } else {
        fputs("null", f);
    }
}

typedef struct run_result {
    const char *name;
    const char *source;
    int agents, segments, workers;
    int vector; /* the vector kernels were used */
    int extended; /* the step ran the extensions' scalar path (docs/extensions.md) */
    int separation; /* coincident agents were separated (orca_sim_separation_active) */
    int density;    /* the density-dependent speed was on; its parameters below */
    orca_density_speed density_params;
    int pedestrian; /* the pedestrian model was on; its parameters below */
    orca_pedestrian pedestrian_params;
    int navigation; /* navigation on (docs/navigation.md); the counts below when on */
    int nav_check;   /* the leg check */
    int exit_choice; /* orca_exit_choice */
    orca_nav_counts counts; /* over the whole run, agents that left included */
    int exits;           /* goal sets that are exits; the exits' counts above when > 0 */
    int64_t exited_last_step;
    const orca_scenario *sc; /* for the exits' departures */
    double dt;
    uint64_t seed;
    uint64_t first_step, last_step, steps;
    /* the steps the scenario's record (arrival, overlaps, fallbacks, exits) covers: this
     * run's, or since step 0 when it continues a scenario snapshot */
    uint64_t record_steps;
    int until_arrived;
    long long max_steps;
    int max_steps_given; /* --max-steps on the command line (else the default cap) */
    int stop;            /* why the run stopped: STOP_* */
    int looping;         /* agents on looping waypoints: they never arrive */
    int arrived;
    int64_t all_arrived_step;
    double max_agent_overlap, max_wall_overlap;
    int boundaries;           /* boundary loops (docs/extensions.md); the two below when > 0 */
    double max_boundary_intrusion; /* deepest (r - distance) / r over all steps */
    int max_outside;          /* most agents outside the walkable area in one state */
    double mean_speed;
    uint64_t fallback_total;
    int diagnostics; /* --diagnostics: the two below are set */
    orca_step_diagnostics diag_total, diag_last;
    double wall_time, step_time;
    double rate;
    char hash[17];
    const query_answer *queries; /* Q_KINDS answers (agents NULL: not asked) */
} run_result;

/* Why a run stopped (the summary says it; JSON stop_reason). */
enum { STOP_STEPS, STOP_ARRIVED, STOP_CAP };
static const char *const k_stop_names[] = {"steps", "all_arrived", "step_cap"};

/* "until all arrived", "stopped by the step cap, --max-steps 10", "as asked by --steps";
 * at the cap with agents on looping waypoints, why the run could not end otherwise. */
static void format_stop(const run_result *r, char *buf, size_t size)
{
    char cap[80];
    if (r->max_steps_given) {
        snprintf(cap, sizeof cap, "the step cap, --max-steps %lld", r->max_steps);
    } else {
        snprintf(cap, sizeof cap, "the default step cap %lld (--max-steps)", r->max_steps);
    }
    if (r->stop == STOP_ARRIVED) {
        snprintf(buf, size, "until all arrived");
    } else if (r->stop == STOP_CAP && r->looping > 0) {
        snprintf(buf, size, "stopped at %s: %d agent%s follow%s looping waypoints and never "
                            "arrive%s; give --steps N",
                 cap, r->looping, r->looping == 1 ? "" : "s", r->looping == 1 ? "s" : "",
                 r->looping == 1 ? "s" : "");
    } else if (r->stop == STOP_CAP) {
        snprintf(buf, size, "stopped by %s", cap);
    } else {
        snprintf(buf, size, "as asked by --steps");
    }
}

/* The figures of the summary's arrival line and the picture's caption (svg.h). */
static svg_figures figures_of(const run_result *r)
{
    svg_figures fig;
    memset(&fig, 0, sizeof fig);
    fig.name = r->name;
    fig.source = r->source;
    fig.agents = r->agents;
    fig.arrived = r->arrived;
    fig.looping = r->looping;
    fig.segments = r->segments;
    fig.boundaries = r->boundaries;
    fig.stopped_by_cap = r->stop == STOP_CAP;
    fig.all_arrived_step = r->all_arrived_step;
    fig.last_step = r->last_step;
    fig.dt = r->dt;
    fig.agent_overlap = r->max_agent_overlap;
    fig.wall_overlap = r->max_wall_overlap;
    fig.fallbacks = r->fallback_total;
    fig.hash = r->hash;
    return fig;
}

/* "all 40 agents arrived at step 377 (t = 94.25 s)", ... (svg_format_arrival) */
static void format_arrival(const run_result *r, char *buf, size_t size)
{
    svg_figures fig = figures_of(r);
    svg_format_arrival(&fig, buf, size);
}

/* Whether the steps ran the extended path (docs/extensions.md, "When the extended path
 * runs"; with diagnostics its scalar form): diagnostics on, the separation of coincident agents (the option, a boundary
 * loop), the density-dependent speed, or an agent not at the avoidance defaults. */
static int extended_path(const orca_sim *sim, int diagnostics)
{
    /* orca_sim_separation_active covers the option, a boundary loop, the density-dependent
     * speed and avoidance settings away from the defaults: with diagnostics, every reason the
     * extended path runs */
    return diagnostics || orca_sim_separation_active(sim);
}

/* The exits' lines: who left, who stands at an exit when the run stopped (they leave at the
 * next step's start: counted as arrived, not yet as exited), and each exit point's
 * departures (the first 16 points of a set; --json has all). */
static void print_text_exits(const run_result *r)
{
    const orca_nav_counts *c = &r->counts;
    if (c->exited > 0) {
        printf("  exits             %d agent%s left by the exits, the last at step %lld (%.6g s)",
               c->exited, c->exited == 1 ? "" : "s", (long long)r->exited_last_step,
               (double)r->exited_last_step * r->dt);
    } else {
        printf("  exits             no agent left by the exits");
    }
    if (c->at_exits > 0) {
        printf("; %d at %s exit when the run stopped (%s at the next step)", c->at_exits,
               c->at_exits == 1 ? "its" : "their", c->at_exits == 1 ? "it leaves" : "they leave");
    }
    printf("\n");
    for (int set = 0; set < orca_scenario_goal_set_count(r->sc); ++set) {
        int is_exit = 0, count = 0;
        const char *name = NULL;
        orca_vec2 pts[16];
        if (orca_scenario_goal_set_exit(r->sc, set, &is_exit, NULL) != ORCA_OK || !is_exit ||
            orca_scenario_goal_set_get(r->sc, set, &name, pts, 16, &count) != ORCA_OK) {
            continue;
        }
        for (int k = 0; k < count && k < 16; ++k) {
            int left = 0;
            int64_t last = -1;
            orca_scenario_exit_departures(r->sc, set, k, &left, &last);
            printf("    %s %d (%g, %g)  %d left", name, k, pts[k].x, pts[k].y, left);
            if (last >= 0) {
                printf(", the last at %.6g s", (double)last * r->dt);
            }
            printf("\n");
        }
        if (count > 16) {
            printf("    %s: %d more points (all of them in --json)\n", name, count - 16);
        }
    }
}

/* The summary's lines of the extensions in use: separation, density, the pedestrian model,
 * exits, navigation. */
static void print_text_extensions(const run_result *r)
{
    if (r->separation) {
        /* active by the option, a boundary loop or avoidance settings (orca_sim_separation_active) */
        printf("  separation        active: agents at one point are parted (docs/extensions.md)\n");
    }
    if (r->density) {
        printf("  density speed     on: radius %.6g m, gamma %.6g m^-2, max density %.6g m^-2 "
               "(docs/extensions.md)\n",
               r->density_params.radius, r->density_params.gamma, r->density_params.max_density);
    }
    if (r->pedestrian) {
        printf("  pedestrian        on: time gap %.6g s, buffer %.6g m, counter reach %.6g m, at "
               "most %d headway half-plane%s (docs/pedestrians.md)\n",
               r->pedestrian_params.time_gap, r->pedestrian_params.buffer,
               r->pedestrian_params.counter_reach, r->pedestrian_params.max_planes,
               r->pedestrian_params.max_planes == 1 ? "" : "s");
        if (r->diagnostics) {
            printf("  headway           %lld headway half-planes, %lld agent-steps in counter "
                   "mode; last step: %d, %d\n",
                   (long long)r->diag_total.headway, (long long)r->diag_total.counter,
                   r->diag_last.headway, r->diag_last.counter);
        }
    }
    if (r->exits > 0) {
        print_text_exits(r);
    }
    if (r->navigation) {
        const orca_nav_counts *c = &r->counts;
        printf("  navigation        on%s, exit choice %s: %d agent%s without a path; over the "
               "run %lld plan%s, %lld re-routing%s, %lld replan%s (docs/navigation.md)\n",
               r->nav_check ? " with the leg check" : "", orca_exit_choice_name(r->exit_choice),
               c->unreachable, c->unreachable == 1 ? "" : "s", (long long)c->plans,
               c->plans == 1 ? "" : "s", (long long)c->reroutes, c->reroutes == 1 ? "" : "s",
               (long long)c->replans, c->replans == 1 ? "" : "s");
        if (c->exit_changes > 0) {
            printf("  exit changes      %lld by %d agent%s (at most %d by one), %lld back to a "
                   "point left\n",
                   (long long)c->exit_changes, c->agents_changed,
                   c->agents_changed == 1 ? "" : "s", c->most_changes,
                   (long long)c->exit_returns);
        }
    }
}

/* The queries' answers: the first 20 agents of each (--json has all). */
static void print_text_queries(const run_result *r, const run_opts *o)
{
    for (int kind = 0; kind < Q_KINDS; ++kind) {
        const query_answer *q = &r->queries[kind];
        const double *v = o->query[kind];
        if (!o->have_query[kind]) {
            continue;
        }
        printf("  %-17s ", k_query_option[kind]);
        if (kind == Q_NEAR) {
            printf("%d agent%s within %g m of (%g, %g)", q->count,
                   q->count == 1 ? "" : "s", v[2], v[0], v[1]);
        } else if (kind == Q_NEAREST) {
            printf("the %d agent%s nearest to (%g, %g)", q->count, q->count == 1 ? "" : "s",
                   v[0], v[1]);
        } else {
            printf("%d agent%s in (%g, %g)-(%g, %g)", q->count,
                   q->count == 1 ? "" : "s", v[0], v[1], v[2], v[3]);
        }
        int shown_n = q->count < 20 ? q->count : 20;
        printf("%s", shown_n > 0 ? ":" : "");
        for (int i = 0; i < shown_n; ++i) {
            printf(" %d", q->agents[i]);
        }
        printf("%s\n", q->count > shown_n ? " ... (all of them in --json)" : "");
    }
}

static void print_text(const run_result *r, const run_opts *o)
{
    char arrival[300];
    format_arrival(r, arrival, sizeof arrival);
    char shown[1200];
    printf("orca run: %s (%s)\n", r->name, cli_printable(shown, sizeof shown, r->source));
    printf("  agents            %d\n", r->agents);
    printf("  segments          %d\n", r->segments);
    char stop[300];
    format_stop(r, stop, sizeof stop);
    if (r->first_step > 0) {
        printf("  steps             %llu (%s; step %llu to %llu, continued from --load), dt %g "
               "s\n",
               (unsigned long long)r->steps, stop, (unsigned long long)r->first_step,
               (unsigned long long)r->last_step, r->dt);
    } else {
        printf("  steps             %llu (%s), dt %g s\n", (unsigned long long)r->steps, stop,
               r->dt);
    }
    printf("  simulated time    %.6g s\n", (double)r->last_step * r->dt);
    printf("  arrival           %s\n", arrival);
    printf("  deepest overlap   agent-agent %.4g, agent-wall %.4g (fraction of radius; 0 = none)\n",
           r->max_agent_overlap, r->max_wall_overlap);
    if (r->boundaries > 0) {
        printf("  boundaries        %d loop%s; deepest intrusion %.4g (fraction of radius), at "
               "most %d agent%s outside (every state checked)\n",
               r->boundaries, r->boundaries == 1 ? "" : "s", r->max_boundary_intrusion,
               r->max_outside, r->max_outside == 1 ? "" : "s");
    }
    if (r->first_step > 0) {
        printf("  mean speed        %.4g m/s (all agents, the %llu steps of this run)\n",
               r->mean_speed, (unsigned long long)r->steps);
    } else {
        printf("  mean speed        %.4g m/s (all agents, all steps)\n", r->mean_speed);
    }
    double agent_steps = (double)r->agents * (double)r->record_steps;
    printf("  fallback          %llu agent-steps (%.3g%%)\n",
           (unsigned long long)r->fallback_total,
           agent_steps > 0 ? 100.0 * (double)r->fallback_total / agent_steps : 0.0);
    if (r->diagnostics) {
        printf("  diagnostics       neighbour lists cut %lld, blocked %lld, locked %lld "
               "agent-steps; last step: %d cut, %d blocked, %d fallback, %d locked\n",
               (long long)r->diag_total.cut, (long long)r->diag_total.blocked,
               (long long)r->diag_total.locked, r->diag_last.cut, r->diag_last.blocked,
               r->diag_last.fallback, r->diag_last.locked);
    }
    printf("  wall time         %.3f s (stepping %.3f s, %d worker%s, %s)\n", r->wall_time,
           r->step_time, r->workers, r->workers == 1 ? "" : "s",
           r->extended ? (r->diagnostics ? "extended path with diagnostics, scalar code"
                                         : r->vector ? "extended path, AVX2 kernels"
                                                     : "extended path, scalar code")
                       : r->vector ? "AVX2 kernels" : "scalar code");
    print_text_extensions(r);
    printf("  throughput        %.4g agent-steps/s\n", r->rate);
    printf("  state hash        %s (bits version %d)\n", r->hash, orca_bits_version());
    if (o->csv) {
        printf("  trajectories      %s\n", cli_printable(shown, sizeof shown, o->csv));
    }
    if (o->svg) {
        printf("  picture           %s\n", cli_printable(shown, sizeof shown, o->svg));
    }
    if (o->save) {
        printf("  snapshot          %s\n", cli_printable(shown, sizeof shown, o->save));
    }
    print_text_queries(r, o);
}

/* "exited", "exited_last_step", "at_exits" and "exits": each exit point's departures. */
static void print_json_exits(FILE *f, const run_result *r)
{
    fprintf(f, ",\"exited\":%d,\"exited_last_step\":%lld,\"at_exits\":%d,\"exits\":[",
            r->counts.exited, (long long)r->exited_last_step, r->counts.at_exits);
    int first = 1;
    for (int set = 0; set < orca_scenario_goal_set_count(r->sc); ++set) {
        int is_exit = 0, count = 0;
        const char *name = NULL;
        if (orca_scenario_goal_set_exit(r->sc, set, &is_exit, NULL) != ORCA_OK || !is_exit ||
            orca_scenario_goal_set_get(r->sc, set, &name, NULL, 0, &count) != ORCA_OK) {
            continue;
        }
        orca_vec2 *pts = malloc((size_t)count * sizeof *pts);
        if (pts) {
            orca_scenario_goal_set_get(r->sc, set, NULL, pts, count, NULL);
        }
        for (int k = 0; k < count; ++k) {
            int left = 0;
            int64_t last = -1;
            orca_scenario_exit_departures(r->sc, set, k, &left, &last);
            fprintf(f, "%s{\"set\":", first ? "" : ",");
            cli_json_string(f, name);
            fprintf(f, ",\"point\":%d", k);
            if (pts) {
                fputs(",\"x\":", f);
                print_json_double(f, pts[k].x);
                fputs(",\"y\":", f);
                print_json_double(f, pts[k].y);
            }
            fprintf(f, ",\"departed\":%d,\"last_departure_step\":", left);
            if (last >= 0) {
                fprintf(f, "%lld", (long long)last);
            } else {
                fputs("null", f);
            }
            fputs("}", f);
            first = 0;
        }
        free(pts);
    }
    fputs("]", f);
}

/* The JSON keys of the execution and the extensions: kernels, path, separation, density, the
 * pedestrian model, exits, navigation. */
static void print_json_extensions(FILE *f, const run_result *r)
{
    fprintf(f, ",\"vector_kernels\":%s", r->vector ? "true" : "false");
    fprintf(f, ",\"extended_path\":%s", r->extended ? "true" : "false");
    fprintf(f, ",\"separation\":%s", r->separation ? "true" : "false");
    fprintf(f, ",\"density_speed\":%s", r->density ? "true" : "false");
    if (r->density) {
        fprintf(f, ",\"density_radius\":");
        print_json_double(f, r->density_params.radius);
        fprintf(f, ",\"density_gamma\":");
        print_json_double(f, r->density_params.gamma);
        fprintf(f, ",\"density_max_density\":");
        print_json_double(f, r->density_params.max_density);
    }
    fprintf(f, ",\"pedestrian\":%s", r->pedestrian ? "true" : "false");
    if (r->pedestrian) {
        fprintf(f, ",\"pedestrian_time_gap\":");
        print_json_double(f, r->pedestrian_params.time_gap);
        fprintf(f, ",\"pedestrian_buffer\":");
        print_json_double(f, r->pedestrian_params.buffer);
        fprintf(f, ",\"pedestrian_counter_reach\":");
        print_json_double(f, r->pedestrian_params.counter_reach);
        fprintf(f, ",\"pedestrian_max_planes\":%d", r->pedestrian_params.max_planes);
    }
    if (r->exits > 0) {
        print_json_exits(f, r);
    }
    fprintf(f, ",\"navigation\":%s", r->navigation ? "true" : "false");
    if (r->navigation) {
        const orca_nav_counts *c = &r->counts;
        fprintf(f,
                ",\"nav_check\":%s,\"exit_choice\":\"%s\",\"nav_unreachable\":%d,"
                "\"nav_plans\":%lld,\"nav_reroutes\":%lld,\"nav_replans\":%lld,"
                "\"nav_exit_changes\":%lld,\"nav_exit_returns\":%lld,"
                "\"nav_agents_changed\":%d,\"nav_most_changes\":%d",
                r->nav_check ? "true" : "false", orca_exit_choice_name(r->exit_choice),
                c->unreachable, (long long)c->plans, (long long)c->reroutes,
                (long long)c->replans, (long long)c->exit_changes, (long long)c->exit_returns,
                c->agents_changed, c->most_changes);
    }
}

/* Each query asked, with its values, count and every agent. */
static void print_json_queries(FILE *f, const run_result *r, const run_opts *o)
{
    for (int kind = 0; kind < Q_KINDS; ++kind) {
        const query_answer *q = &r->queries[kind];
        const double *v = o->query[kind];
        if (!o->have_query[kind]) {
            continue;
        }
        fprintf(f, ",\"%s\":{", k_query_key[kind]);
        const char *names[Q_KINDS][4] = {{"x", "y", "radius", NULL},
                                         {"x", "y", "k", NULL},
                                         {"x0", "y0", "x1", "y1"}};
        for (int i = 0; i < 4 && names[kind][i]; ++i) {
            fprintf(f, "\"%s\":", names[kind][i]);
            print_json_double(f, v[i]);
            fputs(",", f);
        }
        fprintf(f, "\"count\":%d,\"agents\":[", q->count);
        for (int i = 0; i < q->count; ++i) {
            fprintf(f, "%s%d", i ? "," : "", q->agents[i]);
        }
        fputs("]}", f);
    }
}

static void print_json(const run_result *r, const run_opts *o)
{
    FILE *f = stdout;
    fputs("{\"scene\":", f);
    cli_json_string(f, r->name);
    fputs(",\"source\":", f);
    cli_json_string(f, r->source);
    fprintf(f, ",\"agents\":%d,\"segments\":%d,\"workers\":%d,\"dt\":", r->agents, r->segments,
            r->workers);
    print_json_double(f, r->dt);
    fprintf(f, ",\"seed\":%llu,\"first_step\":%llu,\"last_step\":%llu,\"steps\":%llu",
            (unsigned long long)r->seed, (unsigned long long)r->first_step,
            (unsigned long long)r->last_step, (unsigned long long)r->steps);
    fprintf(f, ",\"until_arrived\":%s,\"stop_reason\":\"%s\"",
            r->until_arrived ? "true" : "false", k_stop_names[r->stop]);
    if (r->until_arrived) {
        fprintf(f, ",\"max_steps\":%lld", r->max_steps);
    }
    fputs(",\"simulated_time\":", f);
    print_json_double(f, (double)r->last_step * r->dt);
    fprintf(f, ",\"arrived\":%d,\"not_arrived\":%d,\"looping\":%d,\"all_arrived\":%s",
            r->arrived, r->agents - r->arrived, r->looping,
            r->all_arrived_step >= 0 ? "true" : "false");
    if (r->all_arrived_step >= 0) {
        fprintf(f, ",\"all_arrived_step\":%lld,\"all_arrived_time\":",
                (long long)r->all_arrived_step);
        print_json_double(f, (double)r->all_arrived_step * r->dt);
    } else {
        fputs(",\"all_arrived_step\":null,\"all_arrived_time\":null", f);
    }
    fputs(",\"max_agent_overlap\":", f);
    print_json_double(f, r->max_agent_overlap);
    fputs(",\"max_wall_overlap\":", f);
    print_json_double(f, r->max_wall_overlap);
    if (r->boundaries > 0) {
        fprintf(f, ",\"boundaries\":%d,\"max_boundary_intrusion\":", r->boundaries);
        print_json_double(f, r->max_boundary_intrusion);
        fprintf(f, ",\"max_outside\":%d", r->max_outside);
    }
    print_json_extensions(f, r);
    fputs(",\"mean_speed\":", f);
    print_json_double(f, r->mean_speed);
    fprintf(f, ",\"fallback_total\":%llu", (unsigned long long)r->fallback_total);
    if (r->diagnostics) {
        fprintf(f,
                ",\"diagnostics\":{\"cut_agent_steps\":%lld,\"blocked_agent_steps\":%lld,"
                "\"locked_agent_steps\":%lld,\"fallback_agent_steps\":%lld,\"last_step\":{"
                "\"cut\":%d,\"blocked\":%d,\"fallback\":%d,\"locked\":%d}}",
                (long long)r->diag_total.cut, (long long)r->diag_total.blocked,
                (long long)r->diag_total.locked, (long long)r->diag_total.fallback,
                r->diag_last.cut, r->diag_last.blocked, r->diag_last.fallback,
                r->diag_last.locked);
    }
    fputs(",\"wall_time\":", f);
    print_json_double(f, r->wall_time);
    fputs(",\"step_time\":", f);
    print_json_double(f, r->step_time);
    fputs(",\"agent_steps_per_second\":", f);
    print_json_double(f, r->rate);
    fprintf(f, ",\"hash\":\"%s\",\"bits_version\":%d", r->hash, orca_bits_version());
    const char *files[3] = {o->csv, o->svg, o->save};
    const char *keys[3] = {"csv", "svg", "snapshot"};
    for (int i = 0; i < 3; ++i) {
        if (files[i]) {
            fprintf(f, ",\"%s\":", keys[i]);
            cli_json_string(f, files[i]);
        }
    }
    print_json_queries(f, r, o);
    fputs("}\n", f);
}

static int has_goal_point(orca_scenario *sc)
{
    int n = orca_sim_agent_count(orca_scenario_sim(sc));
    for (int i = 0; i < n; ++i) {
        orca_goal g;
        if (orca_scenario_agent_goal(sc, i, &g, NULL) == ORCA_OK &&
            (g.kind == ORCA_GOAL_POINT || g.kind == ORCA_GOAL_SET)) {
            return 1;
        }
    }
    return 0;
}

enum {
    R_SCENE = O_SCENE,
    R_AGENTS = O_AGENTS,
    R_SEED = O_SEED,
    R_DT = O_DT,
    R_STEPS,
    R_MAX_STEPS,
    R_WORKERS,
    R_JSON,
    R_QUIET,
    R_CSV,
    R_EVERY,
    R_SVG,
    R_SAVE,
    R_LOAD,
    R_SCALAR,
    R_HELP,
    R_NEAR,
    R_NEAREST,
    R_BOX,
    R_DIAGNOSTICS,
    R_SEPARATION,
    R_DENSITY,
    R_SVG_TRAIL,
    R_NAV_CHECK,
    R_EXIT_CHOICE,
    R_PEDESTRIAN
};

/* cmd_run's steps return an exit status, or RUN_GO when the run goes on. */
#define RUN_GO (-1)

/* An output path for --csv, --svg, --save, -o: not empty. */
static int check_path(const char *name, const char *value)
{
    if (value[0] == '\0') {
        cli_usage_error("run", "%s: empty file name", name);
        return -1;
    }
    return 0;
}

/* The scene file: the one positional argument. Returns 0, or -1 (message printed). */
static int run_positional(run_opts *o, const char *value)
{
    if (o->scene.file) {
        cli_usage_error("run", "run: one scene file only (got '%s' and '%s')", o->scene.file,
                        value);
        return -1;
    }
    if (value[0] == '\0') {
        cli_usage_error("run", "run: empty scene file name");
        return -1;
    }
    o->scene.file = value;
    return 0;
}

/* One option of orca run (k: its R_ index). Returns 0, -1 on a bad value (message printed). */
static int run_option(run_opts *o, int k, const char *name, const char *value)
{
    int bad = 0;
    switch (k) {
    case R_SCENE:
    case R_AGENTS:
    case R_SEED:
    case R_DT: bad = scene_option(&o->scene, k, name, value) < 0; break;
    case R_STEPS:
        bad = cli_opt_long(name, value, 0, 1000000000000LL, &o->steps) != 0;
        o->have_steps = 1;
        break;
    case R_MAX_STEPS:
        bad = cli_opt_long(name, value, 1, 1000000000000LL, &o->max_steps) != 0;
        o->have_max = 1;
        break;
    case R_WORKERS: bad = cli_opt_long(name, value, 0, ORCA_MAX_WORKERS, &o->workers) != 0; break;
    case R_JSON: o->json = 1; break;
    case R_QUIET: o->quiet = 1; break;
    case R_CSV:
        bad = check_path(name, value) != 0;
        o->csv = value;
        break;
    case R_EVERY:
        bad = cli_opt_long(name, value, 1, 1000000000000LL, &o->every) != 0;
        o->have_every = 1;
        break;
    case R_SVG:
        bad = check_path(name, value) != 0;
        o->svg = value;
        break;
    case R_SVG_TRAIL:
        bad = cli_opt_double(name, value, &o->svg_trail) != 0;
        if (!bad && !(o->svg_trail > 0.0)) {
            cli_usage_error("run", "%s: must be > 0 seconds, got '%s'%s", name, value,
                            cli_rounds_to_zero(value, o->svg_trail));
            bad = 1;
        }
        break;
    case R_SAVE:
        bad = check_path(name, value) != 0;
        o->save = value;
        break;
    case R_LOAD:
        bad = check_path(name, value) != 0;
        o->load = value;
        o->scene.loading = 1;
        break;
    case R_SCALAR: o->scalar = 1; break;
    case R_DIAGNOSTICS: o->diagnostics = 1; break;
    case R_SEPARATION: o->scene.separation = 1; break;
    case R_DENSITY: o->scene.density = 1; break;
    case R_NAV_CHECK: o->scene.nav_check = 1; break;
    case R_EXIT_CHOICE:
        o->scene.exit_choice = orca_exit_choice_from_name(value);
        if (o->scene.exit_choice < 0) {
            cli_usage_error("run", "%s takes nearest, calm or quickest, got '%s'", name, value);
            bad = 1;
        }
        break;
    case R_PEDESTRIAN: o->scene.pedestrian = 1; break;
    case R_NEAR:
    case R_NEAREST:
    case R_BOX: {
        int kind = k - R_NEAR;
        if (o->have_query[kind]) {
            cli_usage_error("run", "%s given twice", name);
            return -1;
        }
        bad = parse_query(kind, name, value, o->query[kind]) != 0;
        o->have_query[kind] = 1;
        break;
    }
    default: break;
    }
    return bad ? -1 : 0;
}

/* Options that exclude or need each other. Returns 0, or -1 (message printed). */
static int run_check_options(const run_opts *o)
{
    const char *why = NULL;
    if (o->scene.file && o->scene.builtin >= 0) {
        why = "run: give a scene file or --scene, not both";
    } else if (!o->scene.file && o->scene.builtin < 0) {
        why = "run: which scene? Give a scene file or --scene NAME";
    } else if (o->scene.file && o->scene.have_agents) {
        why = "run: --agents applies to built-in scenes only";
    } else if (o->have_steps && o->have_max) {
        why = "run: --steps and --max-steps exclude each other";
    } else if (o->have_every && !o->csv) {
        why = "run: --every needs --csv";
    } else if (o->svg_trail > 0.0 && !o->svg) {
        why = "run: --svg-trail needs --svg";
    } else if (o->scene.pedestrian && o->scene.density) {
        why = "run: --pedestrian and --density-speed cannot go together (both set the walking "
              "speed: docs/pedestrians.md)";
    } else if (o->load && o->scene.file && strcmp(o->load, "-") == 0 &&
               strcmp(o->scene.file, "-") == 0) {
        why = "run: the scene file and --load cannot both be '-' (standard input)";
    }
    if (why) {
        cli_usage_error("run", "%s", why);
        return -1;
    }
    return 0;
}

/* The output files: at most one on standard output (then it carries nothing else, so the
 * summary is off), no two on the same file (the second would replace the first), none over
 * an input. Returns 0, or -1 (message printed). */
static int run_check_outputs(run_opts *o)
{
    const char *out_paths[3] = {o->csv, o->svg, o->save};
    const char *out_names[3] = {"--csv", "--svg", "--save"};
    int on_stdout = -1;
    for (int i = 0; i < 3; ++i) {
        if (!out_paths[i]) {
            continue;
        }
        if (strcmp(out_paths[i], "-") == 0) {
            if (on_stdout >= 0) {
                cli_usage_error("run", "run: %s - and %s - both ask for standard output",
                                out_names[on_stdout], out_names[i]);
                return -1;
            }
            if (o->json) {
                cli_usage_error("run", "run: %s - (standard output) and --json exclude each other",
                                out_names[i]);
                return -1;
            }
            on_stdout = i;
            continue;
        }
        for (int j = 0; j < i; ++j) {
            if (out_paths[j] && cli_same_output(out_paths[i], out_paths[j])) {
                cli_usage_error("run", "run: %s and %s name the same file '%s'", out_names[j],
                                out_names[i], out_paths[i]);
                return -1;
            }
        }
        /* An output over an input is a slip (--csv scene.txt), except --save over the
         * snapshot --load read: continuing a run in place, safe as the file is replaced
         * only at the end. */
        if (o->scene.file && strcmp(o->scene.file, "-") != 0 &&
            cli_same_output(out_paths[i], o->scene.file)) {
            cli_usage_error("run", "run: %s '%s' would replace the scene file", out_names[i],
                            out_paths[i]);
            return -1;
        }
        if (o->load && i != 2 && strcmp(o->load, "-") != 0 &&
            cli_same_output(out_paths[i], o->load)) {
            cli_usage_error("run", "run: %s '%s' would replace the snapshot --load reads",
                            out_names[i], out_paths[i]);
            return -1;
        }
    }
    if (on_stdout >= 0) {
        o->quiet = 1; /* standard output carries that output only */
    }
    return 0;
}

/* Reads the command line into o: RUN_GO, or the exit status (--help: EXIT_OK). */
static int run_parse(run_opts *o, int argc, char **argv)
{
    static const cli_opt opts[] = {
        {"scene", 0, 1},     {"agents", 'n', 1}, {"seed", 0, 1},    {"dt", 0, 1},
        {"steps", 0, 1},     {"max-steps", 0, 1}, {"workers", 'j', 1}, {"json", 0, 0},
        {"quiet", 'q', 0},   {"csv", 0, 1},      {"every", 0, 1},   {"svg", 0, 1},
        {"save", 0, 1},      {"load", 0, 1},     {"scalar", 0, 0},  {"help", 'h', 0},
        {"near", 0, 1},      {"nearest", 0, 1},  {"box", 0, 1},     {"diagnostics", 0, 0},
        {"separation", 0, 0}, {"density-speed", 0, 0}, {"svg-trail", 0, 1},
        {"nav-check", 0, 0},  {"exit-choice", 0, 1}, {"pedestrian", 0, 0},
        {NULL, 0, 0}};
    memset(o, 0, sizeof *o);
    o->scene.builtin = -1;
    o->scene.exit_choice = -1;
    o->max_steps = CLI_DEFAULT_MAX_STEPS;
    o->workers = 1;
    o->every = 1;
    cli_args a = {argc, argv, 1, "run", 0};
    const char *value, *name;
    int k;
    while ((k = cli_next(&a, opts, &value, &name)) != CLI_END) {
        if (k == CLI_ERROR) {
            return EXIT_USAGE;
        }
        if (k == R_HELP) {
            help_run(stdout);
            return EXIT_OK;
        }
        int bad = k == CLI_POSITIONAL ? run_positional(o, value) : run_option(o, k, name, value);
        if (bad) {
            return EXIT_USAGE;
        }
    }
    if (run_check_options(o) != 0 || run_check_outputs(o) != 0) {
        return EXIT_USAGE;
    }
    if (o->workers == 0) {
        o->workers = cli_cpu_count();
        if (o->workers > ORCA_MAX_WORKERS) {
            o->workers = ORCA_MAX_WORKERS;
        }
    }
    return RUN_GO;
}

/* What one `orca run` holds from the scene to the summary: the options, the scenario, the
 * outputs (opened before the first step, replaced only when everything is written) and the
 * figures the loop gathers. */
typedef struct run_state {
    run_opts o;
    orca_scenario *sc;
    orca_sim *sim;
    char source[600];
    double t_begin;
    cli_out csv_out, svg_out, save_out;
    FILE *csv;
    char *csv_buf;
    svg_scene *svg;
    query_answer answers[Q_KINDS];
    /* gathered by the loop */
    int agents; /* in the simulation at the start of the run */
    int exited_before; /* agents that had left by exits before it (a loaded snapshot's) */
    uint64_t record_start; /* the step the scenario's record starts at (0, or a --load's) */
    int progress;
    uint64_t first_step, done_steps, last_csv_step;
    double speed_total, step_time;
    int boundaries; /* with boundaries every state is measured against them */
    double bnd_deepest;
    int bnd_outside;
    /* --diagnostics: totals over the run (agent-steps) and the last step's counts */
    orca_step_diagnostics diag_total, diag_last;
} run_state;

/* --load: the snapshot, then the options the snapshot may have changed, and a warning for
 * agents that stand at one point. */
static int run_load(run_state *s)
{
    int whole_run = 0;
    int rc = snapfile_load(s->o.load, s->sc, &whole_run);
    if (rc != EXIT_OK) {
        return rc;
    }
    s->record_start = whole_run ? 0 : orca_sim_step_count(s->sim);
    /* The snapshot holds the option as saved; --separation turns it on again. */
    if (s->o.scene.separation) {
        orca_sim_set_separation(s->sim, 1);
    }
    nav_options(&s->o.scene, s->sc); /* the leg check and the exit choice */
    rc = density_option(&s->o.scene, s->sim); /* likewise the density-dependent speed */
    if (rc == EXIT_OK) {
        rc = pedestrian_option(&s->o.scene, s->sc); /* and the pedestrian model */
    }
    if (rc != EXIT_OK) {
        return rc;
    }
    char where[600];
    snprintf(where, sizeof where, "snapshot %s",
             strcmp(s->o.load, "-") == 0 ? "<stdin>" : s->o.load);
    cli_warn_coincident(orca_sim_positions(s->sim), orca_sim_agent_count(s->sim), NULL, where,
                        s->sim, stderr);
    return EXIT_OK;
}

/* The scene (built, with --load restored), the execution options, and the checks that need
 * it: the queries' values, a goal to arrive at. */
static int run_build(run_state *s)
{
    orca_sim_def sim_def = orca_sim_def_default();
    sim_def.worker_count = (int)s->o.workers;
    int rc = make_scenario(&s->o.scene, &sim_def, &s->sc, s->source, sizeof s->source);
    if (rc != EXIT_OK) {
        return rc;
    }
    s->sim = orca_scenario_sim(s->sc);
    if (s->o.scalar) {
        orca_sim_set_vector_kernels(s->sim, 0);
    }
    if (s->o.diagnostics && orca_sim_set_diagnostics(s->sim, 1) != ORCA_OK) {
        cli_error("--diagnostics: %s", orca_sim_last_error(s->sim));
        return EXIT_RUNTIME;
    }
    if (s->o.load && (rc = run_load(s)) != EXIT_OK) {
        return rc;
    }
    /* The queries' values are checked by the library before the first step. */
    for (int kind = 0; kind < Q_KINDS; ++kind) {
        if (s->o.have_query[kind] && run_query(s->sim, kind, s->o.query[kind], NULL) != ORCA_OK) {
            cli_usage_error("run", "%s: %s", k_query_option[kind], orca_sim_last_error(s->sim));
            return EXIT_USAGE;
        }
    }
    if (!s->o.have_steps && !has_goal_point(s->sc)) {
        cli_usage_error("run", "run: no agent has a goal point, so 'until all arrived' would "
                               "stop at once; give --steps N");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* Every output is opened (its temporary file created) before the first step, so that an
 * unwritable path fails at once; none replaces its file before the run has succeeded. The
 * CSV gets its header and the first state. */
static int run_open_outputs(run_state *s)
{
    if (s->o.save) {
        int rc = snapfile_check_size(s->sc);
        if (rc != EXIT_OK) {
            return rc;
        }
        if (cli_out_open(&s->save_out, "--save", s->o.save, 1) != 0) {
            return EXIT_RUNTIME;
        }
    }
    if (s->o.svg) {
        if (cli_out_open(&s->svg_out, "--svg", s->o.svg, 1) != 0) {
            return EXIT_RUNTIME;
        }
        s->svg = svg_scene_create(s->sc, s->o.svg_trail);
        if (!s->svg) {
            cli_error("--svg: out of memory recording trajectories (or the agents could not be "
                      "read)");
            return EXIT_RUNTIME;
        }
    }
    if (s->o.csv) {
        if (cli_out_open(&s->csv_out, "--csv", s->o.csv, 1) != 0) {
            return EXIT_RUNTIME;
        }
        s->csv = s->csv_out.f;
        s->csv_buf = s->csv == stdout ? NULL : malloc(1 << 20);
        if (s->csv_buf) {
            setvbuf(s->csv, s->csv_buf, _IOFBF, 1 << 20);
        }
        fputs("step,time,agent,x,y,vx,vy\n", s->csv);
        if (write_csv_rows(s->csv, s->sim, orca_scenario_dt(s->sc)) != 0) {
            cli_error("--csv: %s: write failed: %s", s->o.csv, strerror(errno));
            return EXIT_RUNTIME;
        }
    }
    return EXIT_OK;
}

/* The progress line on stderr (a terminal only): cleared before a message and at the end. */
static void clear_progress(const run_state *s)
{
    if (s->progress) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
}

static void show_progress(const run_state *s)
{
    int n = s->agents;
    fprintf(stderr, "\rorca: step %llu, %d/%d arrived, %.3g agent-steps/s\033[K",
            (unsigned long long)orca_sim_step_count(s->sim), orca_scenario_arrived_count(s->sc),
            n, s->step_time > 0 ? (double)n * (double)s->done_steps / s->step_time : 0.0);
    fflush(stderr);
}

/* What the run records after each step: the mean speed's sum, the boundaries' measures, the
 * diagnostics, the CSV rows (every --every steps) and the picture's samples. */
static int record_step(run_state *s)
{
    s->speed_total += speed_sum(s->sim);
    if (s->boundaries > 0 &&
        measure_boundary(s->sim, &s->bnd_deepest, &s->bnd_outside, s->progress) != 0) {
        return EXIT_RUNTIME;
    }
    if (s->o.diagnostics && orca_sim_step_diagnostics(s->sim, &s->diag_last) == ORCA_OK) {
        s->diag_total.agents += s->diag_last.agents;
        s->diag_total.fallback += s->diag_last.fallback;
        s->diag_total.cut += s->diag_last.cut;
        s->diag_total.blocked += s->diag_last.blocked;
        s->diag_total.locked += s->diag_last.locked;
        s->diag_total.headway += s->diag_last.headway;
        s->diag_total.counter += s->diag_last.counter;
    }
    if (s->csv && s->done_steps % (uint64_t)s->o.every == 0) {
        if (write_csv_rows(s->csv, s->sim, orca_scenario_dt(s->sc)) != 0) {
            cli_error("--csv: %s: write failed: %s", s->o.csv, strerror(errno));
            return EXIT_RUNTIME;
        }
        s->last_csv_step = s->done_steps;
    }
    if (s->svg && svg_scene_sample(s->svg, s->done_steps) != 0) {
        cli_error("--svg: could not read the agents");
        return EXIT_RUNTIME;
    }
    return EXIT_OK;
}

/* The steps: --steps of them, or until every agent has arrived within --max-steps. The CSV
 * ends with the last state. */
static int run_loop(run_state *s)
{
    s->agents = orca_sim_agent_count(s->sim);
    orca_scenario_exited(s->sc, &s->exited_before, NULL);
    s->progress = !s->o.quiet && cli_stderr_is_terminal();
    s->first_step = orca_sim_step_count(s->sim);
    s->boundaries = orca_sim_boundary_count(s->sim);
    if (s->boundaries > 0 && measure_boundary(s->sim, &s->bnd_deepest, &s->bnd_outside, 0) != 0) {
        return EXIT_RUNTIME;
    }
    uint64_t limit = (uint64_t)(s->o.have_steps ? s->o.steps : s->o.max_steps);
    double next_progress = cli_now() + 0.2;
    while (s->done_steps < limit) {
        if (!s->o.have_steps && orca_scenario_all_arrived_step(s->sc) >= 0) {
            break;
        }
        double t0 = cli_now();
        orca_status st = orca_scenario_step(s->sc);
        double t1 = cli_now();
        s->step_time += t1 - t0;
        if (st != ORCA_OK) {
            clear_progress(s);
            cli_error("step %llu: %s", (unsigned long long)orca_sim_step_count(s->sim),
                      orca_scenario_last_error(s->sc));
            return EXIT_RUNTIME;
        }
        ++s->done_steps;
        int rc = record_step(s);
        if (rc != EXIT_OK) {
            return rc;
        }
        if (s->progress && t1 >= next_progress) {
            next_progress = t1 + 0.2;
            show_progress(s);
        }
    }
    clear_progress(s);
    if (s->csv && s->last_csv_step != s->done_steps &&
        write_csv_rows(s->csv, s->sim, orca_scenario_dt(s->sc)) != 0) {
        cli_error("--csv: %s: write failed: %s", s->o.csv, strerror(errno));
        return EXIT_RUNTIME;
    }
    return EXIT_OK;
}

/* The scenario's extensions in the summary: looping waypoints (of the agents in the
 * simulation now), exits and navigation (over the whole run). */
static void result_extensions(orca_scenario *sc, run_result *r)
{
    int n = orca_sim_agent_count(orca_scenario_sim(sc));
    for (int i = 0; i < n; ++i) {
        int count = 0, loop = 0;
        if (orca_scenario_agent_waypoints(sc, i, NULL, 0, &count, &loop, NULL) == ORCA_OK &&
            count > 0 && loop) {
            r->looping++;
        }
    }
    for (int gs = 0; gs < orca_scenario_goal_set_count(sc); ++gs) {
        int is_exit = 0;
        if (orca_scenario_goal_set_exit(sc, gs, &is_exit, NULL) == ORCA_OK && is_exit) {
            r->exits++;
        }
    }
    orca_scenario_exited(sc, NULL, &r->exited_last_step);
    r->sc = sc;
    r->navigation = orca_scenario_get_navigation(sc);
    r->nav_check = orca_scenario_get_nav_check(sc);
    r->exit_choice = orca_scenario_get_exit_choice(sc);
    orca_scenario_nav_counts(sc, &r->counts); /* over the whole run, those that left too */
}

/* The summary's figures for the final state. */
static int run_result_of(run_state *s, run_result *r)
{
    orca_scenario *sc = s->sc;
    orca_sim *sim = s->sim;
    int n = s->agents;
    double dt = orca_scenario_dt(sc);
    r->name = orca_scenario_name(sc);
    r->source = s->source;
    r->agents = n + s->exited_before; /* the scene's agents, as r->arrived counts them */
    r->segments = orca_sim_segment_count(sim);
    r->workers = orca_sim_get_worker_count(sim);
    r->vector = orca_sim_get_vector_kernels(sim);
    r->extended = extended_path(sim, s->o.diagnostics);
    r->separation = orca_sim_separation_active(sim);
    r->density = orca_sim_get_density_speed(sim, &r->density_params);
    r->pedestrian = orca_sim_get_pedestrian(sim, &r->pedestrian_params);
    result_extensions(sc, r);
    r->dt = dt;
    r->seed = orca_scenario_seed(sc);
    r->first_step = s->first_step;
    r->last_step = orca_sim_step_count(sim);
    r->steps = s->done_steps;
    r->record_steps = r->last_step - s->record_start;
    r->until_arrived = !s->o.have_steps;
    r->max_steps = s->o.max_steps;
    r->max_steps_given = s->o.have_max;
    r->arrived = r->counts.arrived; /* those that left by exits included */
    r->all_arrived_step = orca_scenario_all_arrived_step(sc);
    r->max_agent_overlap = orca_scenario_max_agent_overlap(sc);
    r->max_wall_overlap = orca_scenario_max_wall_overlap(sc);
    r->boundaries = s->boundaries;
    r->max_boundary_intrusion = s->bnd_deepest;
    r->max_outside = s->bnd_outside;
    if (s->done_steps == 0) {
        /* No step ran, so the record may not hold the current state yet (it does after a
         * loaded scenario snapshot): measure it directly. */
        double agent = 0.0, wall = 0.0;
        if (orca_sim_measure_overlap(sim, &agent, &wall) != ORCA_OK) {
            cli_error("measuring the overlaps: %s", orca_sim_last_error(sim));
            return EXIT_RUNTIME;
        }
        r->max_agent_overlap = fmax(r->max_agent_overlap, agent);
        r->max_wall_overlap = fmax(r->max_wall_overlap, wall);
        if (r->all_arrived_step < 0 && r->arrived == r->agents) {
            r->all_arrived_step = (int64_t)r->last_step;
        }
    }
    /* Why the run stopped: the loop ends at the step limit or (until all arrived) at the
     * arrival; arrival on the very last allowed step counts as arrival. */
    if (s->o.have_steps) {
        r->stop = STOP_STEPS;
    } else {
        r->stop = r->all_arrived_step >= 0 ? STOP_ARRIVED : STOP_CAP;
    }
    double agent_steps = (double)n * (double)s->done_steps;
    r->mean_speed = s->done_steps > 0 && n > 0 ? s->speed_total / agent_steps : 0.0;
    r->fallback_total = orca_scenario_fallback_total(sc);
    r->diagnostics = s->o.diagnostics;
    r->diag_total = s->diag_total;
    r->diag_last = s->diag_last;
    r->step_time = s->step_time;
    r->rate = s->step_time > 0 ? agent_steps / s->step_time : 0.0;
    cli_hex64(orca_scenario_hash(sc), r->hash); /* orca_sim_hash without waypoints */
    r->queries = s->answers;
    return EXIT_OK;
}

/* The queries on the final state (their values were checked before the first step). */
static int run_answer_queries(run_state *s)
{
    for (int kind = 0; kind < Q_KINDS; ++kind) {
        if (s->o.have_query[kind] &&
            run_query(s->sim, kind, s->o.query[kind], &s->answers[kind]) != ORCA_OK) {
            const char *why = orca_sim_last_error(s->sim);
            cli_error("%s: %s", k_query_option[kind], why[0] ? why : "out of memory");
            return EXIT_RUNTIME;
        }
    }
    return EXIT_OK;
}

/* The picture, its caption from the summary's figures. */
static int write_picture(run_state *s, const run_result *r)
{
    svg_figures fig = figures_of(r);
    fig.description = s->o.scene.file ? NULL : svg_scene_description(s->o.scene.builtin);
    if (svg_scene_write(s->svg, &fig, s->svg_out.f) != 0) {
        cli_error("--svg: %s: write failed: %s", s->o.svg,
                  ferror(s->svg_out.f) ? strerror(errno) : "could not read the agents");
        return EXIT_RUNTIME;
    }
    return EXIT_OK;
}

/* The snapshot and the picture, then every output closed (flushed, synced) and only then the
 * files replaced: a failure before that leaves every target as it was. */
static int run_write_outputs(run_state *s, const run_result *r)
{
    int rc;
    if (s->o.save && (rc = snapfile_save(&s->save_out, s->sc)) != EXIT_OK) {
        return rc;
    }
    if (s->svg && (rc = write_picture(s, r)) != EXIT_OK) {
        return rc;
    }
    cli_out *outs[3] = {&s->csv_out, &s->svg_out, &s->save_out};
    for (int i = 0; i < 3; ++i) {
        if (cli_out_close(outs[i]) != 0) {
            return EXIT_RUNTIME;
        }
    }
    for (int i = 0; i < 3; ++i) {
        if (cli_out_commit(outs[i]) != 0) {
            return EXIT_RUNTIME;
        }
    }
    return EXIT_OK;
}

static void run_free(run_state *s)
{
    for (int kind = 0; kind < Q_KINDS; ++kind) {
        free(s->answers[kind].agents);
    }
    cli_out_abort(&s->csv_out);
    cli_out_abort(&s->svg_out);
    cli_out_abort(&s->save_out);
    free(s->csv_buf);
    svg_scene_destroy(s->svg);
    orca_scenario_destroy(s->sc);
}

/* orca run: the options, the scene, its outputs opened, the steps, the figures, the outputs
 * written, the summary. */
int cmd_run(int argc, char **argv)
{
    run_state s;
    memset(&s, 0, sizeof s);
    int rc = run_parse(&s.o, argc, argv);
    if (rc != RUN_GO) {
        return rc;
    }
    s.t_begin = cli_now();
    run_result r;
    memset(&r, 0, sizeof r);
    rc = run_build(&s);
    if (rc == EXIT_OK) {
        rc = run_open_outputs(&s);
    }
    if (rc == EXIT_OK) {
        rc = run_loop(&s);
    }
    if (rc == EXIT_OK) {
        rc = run_result_of(&s, &r);
    }
    if (rc == EXIT_OK) {
        rc = run_answer_queries(&s);
    }
    if (rc == EXIT_OK) {
        rc = run_write_outputs(&s, &r);
    }
    if (rc == EXIT_OK) {
        r.wall_time = cli_now() - s.t_begin;
        if (s.o.json) {
            print_json(&r, &s.o);
        } else if (!s.o.quiet) {
            print_text(&r, &s.o);
        }
    }
    run_free(&s);
    return rc;
}
