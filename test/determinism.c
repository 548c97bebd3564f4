/* SPDX-License-Identifier: MIT */
/* The determinism workload shared by test_determinism.c (the golden check in the suite) and
 * determinism_main.c (the program the cross-target matrix builds): every built-in scenario
 * for a fixed number of steps, for several worker counts. It writes one line per scenario,
 * "<scene> agents=<N> steps=<S> hash=<16 hex digits>", and a line "MISMATCH ..." if two worker
 * counts disagree, so a build without threads prints the same text. */
#include <inttypes.h>
#include <orca/orca.h>
#include <stdio.h>

typedef struct det_case {
    orca_scene_kind kind;
    int agents;
    int steps;
} det_case;

static const det_case DET_CASES[] = {
    {ORCA_SCENE_CIRCLE, 100, 400},
    {ORCA_SCENE_CROSSING, 0, 300},
    {ORCA_SCENE_WALL_GAP, 0, 300},
    {ORCA_SCENE_CORRIDOR, 0, 300},
    {ORCA_SCENE_RANDOM, 1000, 60},
};

/* Worker counts, each with the vector kernels where the CPU has them (1) or with the scalar
 * code only (0): both must give the same bits. */
typedef struct det_variant {
    int workers;
    int vector;
} det_variant;

#ifdef ORCA_NO_THREADS
static const det_variant DET_VARIANTS[] = {{1, 1}, {1, 0}};
#else
static const det_variant DET_VARIANTS[] = {{1, 1}, {1, 0}, {2, 1}, {2, 0}, {3, 1}, {4, 1}, {8, 1}};
#endif

/* Runs one case in one variant; returns 0 and the hash, or -1 on an error. */
static int det_run(const det_case *c, const det_variant *v, uint64_t *hash, int *agents)
{
    orca_sim_def def = orca_sim_def_default();
    def.worker_count = v->workers;
    orca_scenario *sc = NULL;
    if (orca_scenario_create_builtin(c->kind, c->agents, 1, &def, &sc) != ORCA_OK) {
        return -1;
    }
    orca_sim_set_vector_kernels(orca_scenario_sim(sc), v->vector);
    for (int k = 0; k < c->steps; ++k) {
        if (orca_scenario_step(sc) != ORCA_OK) {
            orca_scenario_destroy(sc);
            return -1;
        }
    }
    *hash = orca_sim_hash(orca_scenario_sim(sc));
    *agents = orca_sim_agent_count(orca_scenario_sim(sc));
    orca_scenario_destroy(sc);
    return 0;
}

/* Writes the workload's lines to out; returns the number of failures (errors, mismatches). */
static int det_write(FILE *out)
{
    int failures = 0;
    for (size_t i = 0; i < sizeof DET_CASES / sizeof DET_CASES[0]; ++i) {
        const det_case *c = &DET_CASES[i];
        uint64_t first = 0;
        int agents = 0;
        for (size_t w = 0; w < sizeof DET_VARIANTS / sizeof DET_VARIANTS[0]; ++w) {
            const det_variant *v = &DET_VARIANTS[w];
            uint64_t h;
            int n;
            if (det_run(c, v, &h, &n) != 0) {
                fprintf(out, "ERROR %s workers=%d%s\n", orca_scene_name(c->kind), v->workers,
                        v->vector ? "" : " scalar");
                ++failures;
                break;
            }
            if (w == 0) {
                first = h;
                agents = n;
            } else if (h != first) {
                fprintf(out, "MISMATCH %s workers=%d%s hash=%016" PRIx64 "\n",
                        orca_scene_name(c->kind), v->workers, v->vector ? "" : " scalar", h);
                ++failures;
            }
        }
        fprintf(out, "%s agents=%d steps=%d hash=%016" PRIx64 "\n", orca_scene_name(c->kind), agents,
                c->steps, first);
    }
    return failures;
}
