/* SPDX-License-Identifier: MIT */
/* orca on MPI's checkpoints and restarts (docs/mpi.md, "Checkpoints"): each rank's part and
 * rank 0's manifest, every byte verified on restart. */
#include "mpi_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snap_io.h"

#define CKPT_VERSION 5u /* 3: avoidance settings, streams, the options; 4: waypoints; 5:
                           navigation (the paths after the records; its settings, counts, the
                           sets' capacities and the exits' departures and outflows in the
                           manifest) */
#define CKPT_MAGIC_MANIFEST "ORCAMPIM"
#define CKPT_MAGIC_PART "ORCAMPIP"
/* --- checkpoints ------------------------------------------------------------------------- */

/* Every value little-endian (snap_io.h), so a checkpoint restarts on any machine. Each file
 * ends with the FNV-1a checksum of its other bytes; the manifest holds each part's checksum
 * (its digest), the run's identifier and the state hash, so that a restart refuses any byte
 * that differs from what was written (docs/mpi.md, "Checkpoints"). */
#define CKPT_RECORD (23 * 8)
/* magic, version, run id, rank, ranks, step, count, paths */
#define CKPT_PART_HEADER (8 + 7 * 8)
#define CKPT_MANIFEST_HEADER (8 + MF_WORDS * 8) /* magic, then the words of manifest_field */
#define CKPT_WAYPOINT_ROW (8 * 8) /* first, count, loop, arrive, goal, start */
#define CKPT_PATH 4200

/* The manifest's words after its magic, in file order (docs/mpi.md lists them); the names
 * are what a refusal calls them. */
enum {
    MF_VERSION, MF_RANKS, MF_STEPS, MF_NEXT_KEY, MF_NEXT_RULE_KEY, MF_DT, MF_SEED, MF_AGENTS,
    MF_AGENT_OVERLAP, MF_WALL_OVERLAP, MF_FALLBACKS, MF_DIAGNOSTICS, MF_RUN_ID, MF_STATE_HASH,
    MF_SEGMENTS, MF_OPTIONS, MF_DEN_RADIUS, MF_DEN_GAMMA, MF_DEN_MAX, MF_PED_TIME_GAP,
    MF_PED_BUFFER, MF_PED_REACH, MF_PED_PLANES, MF_LOOPS, MF_LOOP_POINTS, MF_SETS,
    MF_SET_POINTS, MF_EXITED, MF_EXITED_LAST, MF_WAYPOINTS, MF_WAYPOINT_POINTS, MF_NAV,
    MF_EXIT_CHOICE, MF_RETIRED, MF_WORDS = MF_RETIRED + NAV_COUNTS
};
/* MF_NAV's bits: navigation on, the leg check, the walls changed since the paths were planned
 * (every path is planned again at the next step) */
#define MF_NAV_ON 1u
#define MF_NAV_CHECK 2u
#define MF_NAV_WALLS 4u
/* MF_OPTIONS's bits: the separation option, the density-dependent speed, the pedestrian model */
#define MF_OPT_SEP 1u
#define MF_OPT_DEN 2u
#define MF_OPT_PED 4u
static const char *const manifest_field[MF_WORDS] = {
    "version",  "ranks",         "steps",        "next_key",  "next_rule_key",
    "dt",       "seed",          "agents",       "agent_overlap", "wall_overlap",
    "fallbacks", "diagnostics",  "run_id",       "state_hash", "segments",
    "options",  "density_radius", "density_gamma", "density_max", "pedestrian_time_gap",
    "pedestrian_buffer", "pedestrian_counter_reach", "pedestrian_max_planes", "loops",
    "loop_points", "sets", "set_points", "exited", "exited_last_step", "waypoint_rows",
    "waypoint_points", "navigation", "exit_choice", "nav_plans", "nav_reroutes", "nav_replans",
    "nav_exit_changes", "nav_exit_returns", "nav_agents_changed", "nav_most_changes"};

static void put_record(snap_writer *w, const mpi_agent *a)
{
    put_u64(w, a->key);
    put_u64(w, a->rule_key);
    put_vec(w, a->def.position);
    put_vec(w, a->def.velocity);
    put_vec(w, a->def.preferred_velocity);
    put_f64(w, a->def.radius);
    put_f64(w, a->def.max_speed);
    put_f64(w, a->def.neighbor_dist);
    put_u64(w, (uint64_t)(int64_t)a->def.max_neighbors);
    put_f64(w, a->def.time_horizon);
    put_f64(w, a->def.obstacle_time_horizon);
    put_u64(w, (uint64_t)(int64_t)a->goal.kind);
    put_vec(w, a->goal.target);
    put_f64(w, a->goal.preferred_speed);
    put_u64(w, (uint64_t)(int64_t)a->goal.goal_set);
    put_f64(w, a->ext.priority);
    put_u64(w, (uint64_t)a->ext.layers << 32 | a->ext.mask);
    put_u64(w, (uint64_t)(uint32_t)a->ext.locked << 32 | (uint32_t)a->stream);
    put_u64(w, (uint64_t)(uint32_t)a->wp_row << 32 | (uint32_t)a->wp_index);
}

static void get_record(snap_reader *r, mpi_agent *a)
{
    memset(a, 0, sizeof *a);
    a->key = get_u64(r);
    a->rule_key = get_u64(r);
    a->def.position = get_vec(r);
    a->def.velocity = get_vec(r);
    a->def.preferred_velocity = get_vec(r);
    a->def.radius = bits_f64(get_u64(r));
    a->def.max_speed = bits_f64(get_u64(r));
    a->def.neighbor_dist = bits_f64(get_u64(r));
    a->def.max_neighbors = (int)(int64_t)get_u64(r);
    a->def.time_horizon = bits_f64(get_u64(r));
    a->def.obstacle_time_horizon = bits_f64(get_u64(r));
    a->goal.kind = (orca_goal_kind)(int64_t)get_u64(r);
    a->goal.target = get_vec(r);
    a->goal.preferred_speed = bits_f64(get_u64(r));
    a->goal.goal_set = (int)(int64_t)get_u64(r);
    a->ext.priority = bits_f64(get_u64(r));
    uint64_t lm = get_u64(r), ls = get_u64(r);
    a->ext.layers = (uint32_t)(lm >> 32);
    a->ext.mask = (uint32_t)lm;
    a->ext.locked = (int32_t)(uint32_t)(ls >> 32);
    a->stream = (int32_t)(uint32_t)ls;
    uint64_t wp = get_u64(r);
    a->wp_row = (int32_t)(uint32_t)(wp >> 32);
    a->wp_index = (int32_t)(uint32_t)wp;
}

static void part_name(char *out, size_t size, const char *dir, uint64_t steps, int rank)
{
    snprintf(out, size, "%s/step-%llu-part-%05d.bin", dir, (unsigned long long)steps, rank);
}

/* Whether path names a file directly in dir as part_name writes it (dir, a slash, a name
 * without one): a checkpoint written elsewhere keeps its parts. */
static int in_dir(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && path[n] == '/' && !strchr(path + n + 1, '/');
}

/* Writes bytes to path through a temporary file renamed into place; the OS's reason in the
 * message when it cannot. */
static orca_status write_file(orca_mpi *m, const char *path, const unsigned char *bytes,
                              size_t size)
{
    char tmp[CKPT_PATH + 8];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        return mpi_local_fail(m, ORCA_ERR_IO, "cannot write %.400s: %s", tmp, strerror(errno));
    }
    int ok = fwrite(bytes, 1, size, f) == size;
    int err = ok ? 0 : errno;
    if (fclose(f) != 0 && ok) {
        ok = 0;
        err = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = 0;
        err = errno;
    }
    if (!ok) {
        remove(tmp);
        return mpi_local_fail(m, ORCA_ERR_IO, "cannot write %.400s: %s", path,
                              err ? strerror(err) : "write failed");
    }
    return ORCA_OK;
}

orca_status orca_mpi_check_directory(orca_mpi *m, const char *dir)
{
    if (!m) {
        return ORCA_ERR_NULL;
    }
    m->error[0] = '\0';
    orca_status st = ORCA_OK;
    if (!dir || !dir[0] || strlen(dir) > 4000) {
        st = mpi_local_fail(m, ORCA_ERR_ARGUMENT,
                            "checkpoint directory is NULL, empty or too long");
    } else {
        /* a file of this rank's own: ranks on one file system do not race for one name */
        char probe[CKPT_PATH];
        snprintf(probe, sizeof probe, "%s/.orca-mpi-probe-%05d", dir, m->rank);
        FILE *f = fopen(probe, "wb");
        int err = f ? 0 : errno;
        if (f && (fputc('\n', f) == EOF || fclose(f) != 0)) {
            err = errno ? errno : EIO;
        }
        if (err) {
            st = mpi_local_fail(m, ORCA_ERR_IO,
                                "checkpoint directory %.400s: cannot write a file in it: %s",
                                dir, strerror(err));
        }
        remove(probe);
    }
    return mpi_agree(m, st);
}

/* Collective: this rank's part (header, its agents in key order, checksum) written to dir;
 * *digest its checksum. */
static orca_status write_part(orca_mpi *m, const char *dir, uint64_t *digest)
{
    /* with navigation each record's path follows the records: a word (its word count, 0 for
     * none) and its words (mpi_nav_record_put) */
    size_t paths = 0;
    for (int64_t i = 0; m->nav && i < m->own_n; ++i) {
        paths += mpi_nav_record_words(&m->own[i]);
    }
    size_t size = CKPT_PART_HEADER + (size_t)m->own_n * CKPT_RECORD + paths * 8 + 8;
    unsigned char *buf = malloc(size);
    orca_status st = ORCA_OK;
    if (!buf) {
        st = mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (%zu bytes for the checkpoint)",
                            size);
    } else {
        snap_writer w = {buf};
        memcpy(w.p, CKPT_MAGIC_PART, 8);
        w.p += 8;
        put_u64(&w, CKPT_VERSION);
        put_u64(&w, m->run_id);
        put_u64(&w, (uint64_t)m->rank);
        put_u64(&w, (uint64_t)m->size);
        put_u64(&w, m->steps);
        put_u64(&w, (uint64_t)m->own_n);
        put_u64(&w, (uint64_t)paths);
        for (int64_t i = 0; i < m->own_n; ++i) {
            put_record(&w, &m->own[i]);
        }
        for (int64_t i = 0; m->nav && i < m->own_n; ++i) {
            w.p = mpi_nav_record_put(&m->own[i], w.p);
        }
        *digest = checksum(buf, size - 8);
        put_u64(&w, *digest);
        char path[CKPT_PATH];
        part_name(path, sizeof path, dir, m->steps, m->rank);
        st = write_file(m, path, buf, size);
        free(buf);
    }
    return mpi_agree(m, st);
}

orca_status orca_mpi_checkpoint(orca_mpi *m, const char *dir)
{
    if (!m) {
        return ORCA_ERR_NULL;
    }
    m->error[0] = '\0';
    orca_status st = ORCA_OK;
    if (!dir || strlen(dir) > 4000) {
        st = mpi_local_fail(m, ORCA_ERR_ARGUMENT, "checkpoint directory is NULL or too long");
    }
    st = mpi_agree(m, st);
    uint64_t state = st == ORCA_OK ? orca_mpi_hash(m, &st) : 0;
    uint64_t digest = 0;
    if (st == ORCA_OK) {
        st = write_part(m, dir, &digest);
    }
    if (st != ORCA_OK) {
        return st;
    }
    uint64_t *digests = m->rank == 0 ? malloc((size_t)m->size * sizeof *digests) : NULL;
    st = mpi_agree(m, m->rank != 0 || digests ? ORCA_OK
                                          : mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory"));
    if (st != ORCA_OK) {
        return st;
    }
    MPI_Gather(&digest, 1, MPI_UINT64_T, digests, 1, MPI_UINT64_T, 0, m->comm);
    long long loc = m->fallbacks, fb = 0;
    MPI_Reduce(&loc, &fb, 1, MPI_LONG_LONG, MPI_SUM, 0, m->comm);
    double ov[2] = {m->agent_overlap, m->wall_overlap}, gov[2] = {0, 0};
    MPI_Reduce(ov, gov, 2, MPI_DOUBLE, MPI_MAX, 0, m->comm);
    long long mine = m->own_n, total = 0, exited = 0, last = -1;
    MPI_Reduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, m->comm);
    long long my_exited = m->exited, my_last = m->exited_last_step;
    MPI_Reduce(&my_exited, &exited, 1, MPI_LONG_LONG, MPI_SUM, 0, m->comm);
    MPI_Reduce(&my_last, &last, 1, MPI_LONG_LONG, MPI_MAX, 0, m->comm);
    /* navigation's counts of dropped paths (sums, the most a maximum) and the exits'
     * departures (sums, the last a maximum), over the ranks */
    long long ret[NAV_COUNTS] = {0}, gret[NAV_COUNTS] = {0};
    int check = 0, choice = 0, nav = mpi_nav_settings(m, &check, &choice);
    int walls = mpi_nav_walls_pending(m); /* (the same on every rank) */
    for (int k = 0; nav && k < NAV_COUNTS; ++k) {
        ret[k] = mpi_nav_retired(m)[k];
    }
    MPI_Reduce(ret, gret, NAV_COUNTS - 1, MPI_LONG_LONG, MPI_SUM, 0, m->comm);
    MPI_Reduce(&ret[NAV_COUNTS - 1], &gret[NAV_COUNTS - 1], 1, MPI_LONG_LONG, MPI_MAX, 0,
               m->comm);
    size_t sp = (size_t)m->set_points;
    /* each point's departures here and in all, its last here and in all */
    long long *dep = malloc((4 * sp + 1) * sizeof *dep);
    st = mpi_agree(m, dep ? ORCA_OK : mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory"));
    if (st != ORCA_OK) {
        free(digests);
        free(dep);
        return st;
    }
    long long *gleft = dep + sp, *mylast = dep + 2 * sp, *glast = dep + 3 * sp;
    for (size_t k = 0; k < sp; ++k) {
        dep[k] = m->set_left[k];
        mylast[k] = m->set_last[k];
    }
    MPI_Reduce(dep, gleft, (int)sp, MPI_LONG_LONG, MPI_SUM, 0, m->comm);
    MPI_Reduce(mylast, glast, (int)sp, MPI_LONG_LONG, MPI_MAX, 0, m->comm);
    /* the manifest, last: it names the checkpoint's step and its parts' digests */
    if (m->rank == 0) {
        size_t ms = CKPT_MANIFEST_HEADER + (size_t)m->seg_n * 32 + (size_t)m->bnd_n * 8 +
                    (size_t)m->bnd_points * 16 + (size_t)m->set_n * 32 +
                    (size_t)m->set_points * 40 + (size_t)m->wp.n * CKPT_WAYPOINT_ROW +
                    (size_t)m->wp.points * 16 + (size_t)m->size * 8 + 8;
        unsigned char *mb = malloc(ms);
        if (!mb) {
            st = mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (manifest)");
        } else {
            snap_writer w = {mb};
            memcpy(w.p, CKPT_MAGIC_MANIFEST, 8);
            w.p += 8;
            uint64_t word[MF_WORDS] = {
                CKPT_VERSION,        (uint64_t)m->size, m->steps,
                m->next_key,         m->next_rule_key,  f64_bits(m->def.dt),
                m->def.seed,         (uint64_t)total,   f64_bits(gov[0]),
                f64_bits(gov[1]),    (uint64_t)fb,      (uint64_t)m->def.diagnostics,
                m->run_id,           state,             (uint64_t)m->seg_n,
                (m->opt.separation ? MF_OPT_SEP : 0) | (m->opt.density_on ? MF_OPT_DEN : 0) |
                    (m->opt.ped_on ? MF_OPT_PED : 0),
                f64_bits(m->opt.density.radius), f64_bits(m->opt.density.gamma),
                f64_bits(m->opt.density.max_density), f64_bits(m->opt.ped.time_gap),
                f64_bits(m->opt.ped.buffer), f64_bits(m->opt.ped.counter_reach),
                (uint64_t)(int64_t)m->opt.ped.max_planes, (uint64_t)m->bnd_n,
                (uint64_t)m->bnd_points, (uint64_t)m->set_n, (uint64_t)m->set_points,
                (uint64_t)exited, (uint64_t)(int64_t)last, (uint64_t)m->wp.n,
                (uint64_t)m->wp.points,
                (nav ? MF_NAV_ON : 0) | (check ? MF_NAV_CHECK : 0) |
                    (walls ? MF_NAV_WALLS : 0),
                (uint64_t)choice};
            for (int k = 0; k < NAV_COUNTS; ++k) {
                word[MF_RETIRED + k] = (uint64_t)gret[k];
            }
            for (int k = 0; k < MF_WORDS; ++k) {
                put_u64(&w, word[k]);
            }
            for (int32_t k = 0; k < m->seg_n; ++k) {
                put_vec(&w, m->seg_a[k]);
                put_vec(&w, m->seg_b[k]);
            }
            for (int32_t l = 0; l < m->bnd_n; ++l) {
                put_u64(&w, (uint64_t)m->bnd_len[l]);
            }
            for (int32_t k = 0; k < m->bnd_points; ++k) {
                put_vec(&w, m->bnd_pt[k]);
            }
            const double *cap = mpi_nav_capacities(m), *flow = mpi_nav_flows_now(m);
            for (int32_t k = 0; k < m->set_n; ++k) {
                put_u64(&w, (uint64_t)m->set_count[k]);
                put_u64(&w, (uint64_t)m->set_exit[k]);
                put_f64(&w, m->set_arrive[k]);
                put_f64(&w, cap ? cap[k] : ORCA_NAV_EXIT_CAPACITY);
            }
            for (int32_t k = 0; k < m->set_points; ++k) {
                put_vec(&w, m->set_pt[k]);
            }
            for (int32_t k = 0; k < m->set_points; ++k) {
                put_u64(&w, (uint64_t)gleft[k]);
                put_u64(&w, (uint64_t)glast[k]);
                put_f64(&w, flow ? flow[k] : 0.0);
            }
            const mpi_wp_table *t = &m->wp;
            for (int32_t k = 0; k < t->n; ++k) {
                put_u64(&w, (uint64_t)t->first[k]);
                put_u64(&w, (uint64_t)t->count[k]);
                put_u64(&w, (uint64_t)t->loop[k]);
                put_f64(&w, t->arrive[k]);
                put_vec(&w, t->goal[k]);
                put_vec(&w, t->start[k]);
            }
            for (int64_t k = 0; k < t->points; ++k) {
                put_vec(&w, t->pt[k]);
            }
            for (int r = 0; r < m->size; ++r) {
                put_u64(&w, digests[r]);
            }
            put_u64(&w, checksum(mb, ms - 8));
            char path[CKPT_PATH];
            snprintf(path, sizeof path, "%s/manifest.bin", dir);
            st = write_file(m, path, mb, ms);
            free(mb);
        }
    }
    free(digests);
    free(dep);
    st = mpi_agree(m, st);
    if (st == ORCA_OK) {
        /* the manifest names the new parts now: this rank's part of its last checkpoint in
         * this directory is no longer needed */
        char path[CKPT_PATH];
        part_name(path, sizeof path, dir, m->steps, m->rank);
        if (m->last_part[0] && strcmp(m->last_part, path) != 0 && in_dir(m->last_part, dir)) {
            remove(m->last_part);
        }
        snprintf(m->last_part, sizeof m->last_part, "%s", path);
    }
    return st;
}

/* Reads a whole file (at most 2^40 bytes); NULL with the message set. */
static unsigned char *read_file(const char *path, size_t *size, char *err, size_t errsize)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errsize, "cannot open %.400s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    unsigned char *b = malloc(cap);
    while (b) {
        size_t got = fread(b + n, 1, cap - n, f);
        n += got;
        if (n < cap) {
            break;
        }
        unsigned char *nb = cap < ((size_t)1 << 40) ? realloc(b, cap * 2) : NULL;
        if (!nb) {
            free(b);
            b = NULL;
            break;
        }
        b = nb;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!b || bad) {
        free(b);
        snprintf(err, errsize, bad ? "cannot read %.400s" : "out of memory reading %.400s", path);
        return NULL;
    }
    *size = n;
    return b;
}

static int cmp_key(const void *a, const void *b)
{
    uint64_t x = ((const mpi_agent *)a)->key, y = ((const mpi_agent *)b)->key;
    return (x > y) - (x < y);
}

/* A checkpoint's manifest as read and checked. */
typedef struct manifest {
    uint64_t word[MF_WORDS];
    const unsigned char *segments; /* seg_n * 32 bytes */
    const unsigned char *loops;    /* loops * 8 bytes of lengths, then loop_points * 16 */
    const unsigned char *sets;     /* sets * 32 bytes (count, exit, arrive, capacity),
                                      set_points * 16, then set_points * 24 (departures, the
                                      last's step, the outflow) */
    const unsigned char *waypoints; /* waypoint_rows * CKPT_WAYPOINT_ROW, waypoint_points * 16 */
    const unsigned char *digests;  /* ranks * 8 bytes */
} manifest;

/* The run's options from the manifest's words. */
static mpi_options options_of(const uint64_t *v)
{
    mpi_options o;
    memset(&o, 0, sizeof o);
    o.separation = (v[MF_OPTIONS] & MF_OPT_SEP) != 0;
    o.density_on = (v[MF_OPTIONS] & MF_OPT_DEN) != 0;
    o.density.radius = bits_f64(v[MF_DEN_RADIUS]);
    o.density.gamma = bits_f64(v[MF_DEN_GAMMA]);
    o.density.max_density = bits_f64(v[MF_DEN_MAX]);
    o.ped_on = (v[MF_OPTIONS] & MF_OPT_PED) != 0;
    o.ped.time_gap = bits_f64(v[MF_PED_TIME_GAP]);
    o.ped.buffer = bits_f64(v[MF_PED_BUFFER]);
    o.ped.counter_reach = bits_f64(v[MF_PED_REACH]);
    o.ped.max_planes = (int)(int64_t)v[MF_PED_PLANES];
    return o;
}

/* The first option word out of range (each parameter alone against the library's own check,
 * on a simulation made for it, the others at their defaults), or -1. */
static int options_bad(const uint64_t *v)
{
    if (v[MF_OPTIONS] > (MF_OPT_SEP | MF_OPT_DEN | MF_OPT_PED)) {
        return MF_OPTIONS;
    }
    mpi_options o = options_of(v);
    orca_sim *probe = NULL;
    if (orca_sim_create(NULL, &probe) != ORCA_OK) {
        return MF_OPTIONS; /* (out of memory: refused all the same) */
    }
    int bad = -1;
    if (o.density_on) {
        orca_density_speed t[3] = {ORCA_DENSITY_SPEED_DEFAULT, ORCA_DENSITY_SPEED_DEFAULT,
                                   ORCA_DENSITY_SPEED_DEFAULT};
        t[0].radius = o.density.radius;
        t[1].gamma = o.density.gamma;
        t[2].max_density = o.density.max_density;
        for (int k = 0; k < 3 && bad < 0; ++k) {
            bad = orca_sim_set_density_speed(probe, &t[k]) != ORCA_OK ? MF_DEN_RADIUS + k : -1;
        }
    }
    if (o.ped_on && bad < 0) {
        orca_pedestrian t[4] = {ORCA_PEDESTRIAN_DEFAULT, ORCA_PEDESTRIAN_DEFAULT,
                                ORCA_PEDESTRIAN_DEFAULT, ORCA_PEDESTRIAN_DEFAULT};
        t[0].time_gap = o.ped.time_gap;
        t[1].buffer = o.ped.buffer;
        t[2].counter_reach = o.ped.counter_reach;
        t[3].max_planes = (int64_t)v[MF_PED_PLANES] == o.ped.max_planes ? o.ped.max_planes : 0;
        for (int k = 0; k < 4 && bad < 0; ++k) {
            bad = orca_sim_set_pedestrian(probe, &t[k]) != ORCA_OK ? MF_PED_TIME_GAP + k : -1;
        }
    }
    orca_sim_destroy(probe);
    return bad;
}

/* Checks the manifest's bytes (mb, ms bytes, from path): the magic, the sizes its counts
 * give, the checksum, then each value's range; 0 with the message in err naming the field. */
static int manifest_ok(const char *path, const unsigned char *mb, size_t ms, manifest *out,
                       char *err, size_t errsize)
{
    if (ms < CKPT_MANIFEST_HEADER + 8 || memcmp(mb, CKPT_MAGIC_MANIFEST, 8) != 0) {
        snprintf(err, errsize, "%.400s is not an orca MPI checkpoint manifest (%zu bytes, magic)",
                 path, ms);
        return 0;
    }
    snap_reader r = {mb + 8};
    uint64_t *v = out->word;
    for (int k = 0; k < MF_WORDS; ++k) {
        v[k] = get_u64(&r);
    }
    if (v[MF_VERSION] != CKPT_VERSION) {
        snprintf(err, errsize, "%.400s: field version: %llu, this orca reads %u", path,
                 (unsigned long long)v[MF_VERSION], CKPT_VERSION);
        return 0;
    }
    if (v[MF_RANKS] < 1 || v[MF_RANKS] > (1u << 24) || v[MF_SEGMENTS] > (uint64_t)INT32_MAX ||
        v[MF_LOOPS] > (uint64_t)INT32_MAX || v[MF_LOOP_POINTS] > (uint64_t)INT32_MAX ||
        v[MF_SETS] > (uint64_t)INT32_MAX || v[MF_SET_POINTS] > (uint64_t)INT32_MAX ||
        v[MF_WAYPOINTS] > (uint64_t)INT32_MAX || v[MF_WAYPOINT_POINTS] > ((uint64_t)1 << 40) ||
        ms != CKPT_MANIFEST_HEADER + v[MF_SEGMENTS] * 32 + v[MF_LOOPS] * 8 +
                  v[MF_LOOP_POINTS] * 16 + v[MF_SETS] * 32 + v[MF_SET_POINTS] * 40 +
                  v[MF_WAYPOINTS] * CKPT_WAYPOINT_ROW + v[MF_WAYPOINT_POINTS] * 16 +
                  v[MF_RANKS] * 8 + 8) {
        snprintf(err, errsize,
                 "%.200s: fields ranks (%llu), segments (%llu), loops (%llu), loop_points (%llu), "
                 "sets (%llu), set_points (%llu), waypoint_rows (%llu) and waypoint_points (%llu) "
                 "do not give its size, %zu bytes (truncated or corrupt)",
                 path, (unsigned long long)v[MF_RANKS], (unsigned long long)v[MF_SEGMENTS],
                 (unsigned long long)v[MF_LOOPS], (unsigned long long)v[MF_LOOP_POINTS],
                 (unsigned long long)v[MF_SETS], (unsigned long long)v[MF_SET_POINTS],
                 (unsigned long long)v[MF_WAYPOINTS], (unsigned long long)v[MF_WAYPOINT_POINTS],
                 ms);
        return 0;
    }
    snap_reader tail = {mb + ms - 8};
    if (get_u64(&tail) != checksum(mb, ms - 8)) {
        snprintf(err, errsize, "%.400s: field checksum: it does not match the bytes (corrupt)",
                 path);
        return 0;
    }
    /* the values (a manifest written by another program, or by a faulty one) */
    double dt = bits_f64(v[MF_DT]), ao = bits_f64(v[MF_AGENT_OVERLAP]),
           wo = bits_f64(v[MF_WALL_OVERLAP]);
    int bad = -1;
    if (!(dt >= 0x1p-30 && dt <= 0x1p20)) {
        bad = MF_DT;
    } else if (v[MF_NEXT_KEY] > ((uint64_t)1 << 62) || v[MF_NEXT_RULE_KEY] > ((uint64_t)1 << 62)) {
        bad = v[MF_NEXT_KEY] > ((uint64_t)1 << 62) ? MF_NEXT_KEY : MF_NEXT_RULE_KEY;
    } else if (v[MF_AGENTS] > v[MF_NEXT_KEY]) {
        bad = MF_AGENTS;
    } else if (!(ao >= 0.0 && ao <= 1e300) || !(wo >= 0.0 && wo <= 1e300)) {
        bad = !(ao >= 0.0 && ao <= 1e300) ? MF_AGENT_OVERLAP : MF_WALL_OVERLAP;
    } else if (v[MF_FALLBACKS] > ((uint64_t)1 << 62) || v[MF_DIAGNOSTICS] > 1) {
        bad = v[MF_DIAGNOSTICS] > 1 ? MF_DIAGNOSTICS : MF_FALLBACKS;
    } else if (v[MF_NAV] > (MF_NAV_ON | MF_NAV_CHECK | MF_NAV_WALLS) ||
               (v[MF_NAV] != 0 && !(v[MF_NAV] & MF_NAV_ON)) ||
               v[MF_EXIT_CHOICE] > ORCA_EXIT_QUICKEST ||
               (!(v[MF_NAV] & MF_NAV_ON) && v[MF_EXIT_CHOICE] != 0)) {
        bad = v[MF_NAV] > (MF_NAV_ON | MF_NAV_CHECK | MF_NAV_WALLS) ||
                      (v[MF_NAV] != 0 && !(v[MF_NAV] & MF_NAV_ON))
                  ? MF_NAV
                  : MF_EXIT_CHOICE;
    } else {
        bad = options_bad(v);
    }
    for (int k = 0; bad < 0 && k < NAV_COUNTS; ++k) {
        bad = v[MF_RETIRED + k] > ((uint64_t)1 << 62) ? MF_RETIRED + k : -1;
    }
    if (bad >= 0) {
        snprintf(err, errsize, "%.400s: field %s: value 0x%016llx out of range", path,
                 manifest_field[bad], (unsigned long long)v[bad]);
        return 0;
    }
    out->segments = mb + CKPT_MANIFEST_HEADER;
    out->loops = out->segments + v[MF_SEGMENTS] * 32;
    out->sets = out->loops + v[MF_LOOPS] * 8 + v[MF_LOOP_POINTS] * 16;
    out->waypoints = out->sets + v[MF_SETS] * 32 + v[MF_SET_POINTS] * 40;
    out->digests = out->waypoints + v[MF_WAYPOINTS] * CKPT_WAYPOINT_ROW +
                   v[MF_WAYPOINT_POINTS] * 16;
    return 1;
}

/* Whether record a's waypoint fields fit the run's table: no row and index 0, or a row of
 * the table with an index up to its count, a point goal and that index's target. */
static int record_waypoints_ok(const orca_mpi *m, const mpi_agent *a)
{
    if (a->wp_row == -1) {
        return a->wp_index == 0;
    }
    if (a->wp_row < 0 || a->wp_row >= m->wp.n || a->wp_index < 0 ||
        a->wp_index > m->wp.count[a->wp_row] || a->goal.kind != ORCA_GOAL_POINT) {
        return 0;
    }
    orca_vec2 t = mpi_waypoints_target(m, a->wp_row, a->wp_index);
    return memcmp(&t, &a->goal.target, sizeof t) == 0;
}

/* Local: reads part f of the checkpoint in dir into own, checking it against the manifest:
 * its checksum, each header field, its digest, every agent's values and keys. */
static orca_status read_part(orca_mpi *m, const char *dir, const manifest *mf, int f)
{
    char pp[CKPT_PATH];
    part_name(pp, sizeof pp, dir, m->steps, f);
    size_t size = 0;
    unsigned char *b = read_file(pp, &size, m->error, sizeof m->error);
    if (!b) {
        return ORCA_ERR_FORMAT;
    }
    orca_status st = ORCA_OK;
    uint64_t h[7] = {0};
    static const char *const field[7] = {"version", "run_id", "rank", "ranks",
                                         "step",    "count",  "paths"};
    uint64_t want[7] = {CKPT_VERSION, mf->word[MF_RUN_ID], (uint64_t)f, mf->word[MF_RANKS],
                        m->steps, 0, 0};
    snap_reader dr = {mf->digests + (size_t)f * 8};
    uint64_t digest = get_u64(&dr);
    if (size < CKPT_PART_HEADER + 8 || memcmp(b, CKPT_MAGIC_PART, 8) != 0) {
        st = mpi_local_fail(m, ORCA_ERR_FORMAT,
                            "%.400s is not an orca MPI checkpoint part (%zu bytes, magic)", pp, size);
    } else {
        snap_reader r = {b + 8};
        for (int k = 0; k < 7; ++k) {
            h[k] = get_u64(&r);
        }
        want[5] = h[5];
        int nav = (mf->word[MF_NAV] & MF_NAV_ON) != 0;
        want[6] = nav ? h[6] : 0; /* with navigation: the words of the paths */
        snap_reader tail = {b + size - 8};
        uint64_t sum = get_u64(&tail);
        if (h[5] > (uint64_t)INT32_MAX || h[6] > ((uint64_t)1 << 40) ||
            size != CKPT_PART_HEADER + h[5] * CKPT_RECORD + h[6] * 8 + 8) {
            st = mpi_local_fail(m, ORCA_ERR_FORMAT,
                                "%.400s: fields count and paths: %llu agents and %llu words "
                                "of paths do not give its size, %zu bytes (truncated or "
                                "corrupt)",
                                pp, (unsigned long long)h[5], (unsigned long long)h[6], size);
        } else if (sum != checksum(b, size - 8)) {
            st = mpi_local_fail(m, ORCA_ERR_FORMAT,
                                "%.400s: field checksum: it does not match the bytes (corrupt)", pp);
        }
        for (int k = 0; k < 7 && st == ORCA_OK; ++k) {
            if (h[k] != want[k]) {
                st = mpi_local_fail(m, ORCA_ERR_FORMAT,
                                    "%.400s: field %s: %llu, the manifest's checkpoint has %llu%s", pp,
                                    field[k], (unsigned long long)h[k], (unsigned long long)want[k],
                                    k == 1 ? " (a part of another run)" : "");
            }
        }
        if (st == ORCA_OK && sum != digest) {
            st = mpi_local_fail(m, ORCA_ERR_FORMAT,
                                "%.400s: field checksum: %016llx, the manifest's digest of part %d is "
                                "%016llx (a part of another checkpoint)",
                                pp, (unsigned long long)sum, f, (unsigned long long)digest);
        }
    }
    if (st == ORCA_OK) {
        st = RESERVE(m, own, own_cap, m->own_n + (int64_t)h[5] + 1);
    }
    /* one simulation checks every record's definition (not one made per record) */
    orca_sim *probe = NULL;
    if (st == ORCA_OK && orca_sim_create(NULL, &probe) != ORCA_OK) {
        st = mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory");
    }
    snap_reader r = {b + CKPT_PART_HEADER};
    const unsigned char *paths = b + CKPT_PART_HEADER + h[5] * CKPT_RECORD;
    const unsigned char *end = paths + h[6] * 8;
    for (uint64_t i = 0; i < h[5] && st == ORCA_OK; ++i) {
        mpi_agent a;
        get_record(&r, &a);
        if (h[6] > 0 && mpi_nav_record_get(m, &paths, (size_t)(end - paths), &a) != ORCA_OK) {
            char msg[sizeof m->error];
            snprintf(msg, sizeof msg, "%s", m->error);
            st = mpi_local_fail(m, ORCA_ERR_FORMAT, "%.200s: record %llu's path: %.250s", pp,
                                (unsigned long long)i, msg);
            break;
        }
        orca_status cs = mpi_check_agent(m, probe, &a.def, &a.goal, 0);
        if (cs == ORCA_OK &&
            (!(a.ext.priority >= ORCA_PRIORITY_MIN && a.ext.priority <= ORCA_PRIORITY_MAX) ||
             (a.ext.locked != 0 && a.ext.locked != 1) || a.stream < -1)) {
            cs = mpi_local_fail(m, ORCA_ERR_FORMAT,
                                "priority %.17g, locked %d or stream %ld out of range",
                                a.ext.priority, (int)a.ext.locked, (long)a.stream);
        }
        if (cs == ORCA_OK && !record_waypoints_ok(m, &a)) {
            cs = mpi_local_fail(m, ORCA_ERR_FORMAT,
                                "waypoint row %ld, index %ld or target out of range",
                                (long)a.wp_row, (long)a.wp_index);
        }
        if (cs == ORCA_OK && (a.key >= m->next_key || a.rule_key >= m->next_rule_key)) {
            cs = mpi_local_fail(m, ORCA_ERR_FORMAT, "key %llu beyond the manifest's next key",
                                (unsigned long long)a.key);
        }
        if (cs != ORCA_OK) {
            char msg[sizeof m->error];
            snprintf(msg, sizeof msg, "%s", m->error);
            st = mpi_local_fail(m, ORCA_ERR_FORMAT, "%.200s: record %llu: %.250s", pp,
                                (unsigned long long)i, msg);
            mpi_nav_free_path(&a);
            break;
        }
        m->own[m->own_n++] = a;
    }
    if (st == ORCA_OK && paths != end) {
        st = mpi_local_fail(m, ORCA_ERR_FORMAT,
                            "%.400s: field paths: %llu words, its records' paths take %llu", pp,
                            (unsigned long long)h[6],
                            (unsigned long long)((size_t)(paths - (end - h[6] * 8)) / 8));
    }
    orca_sim_destroy(probe);
    free(b);
    return st;
}

/* Collective: the manifest's boundary loops as the run's, each checked by the library's own
 * check of a new loop (on a simulation made for it, the loops added in order). */
static orca_status read_loops(orca_mpi *m, const manifest *mf)
{
    int32_t n = (int32_t)mf->word[MF_LOOPS], points = (int32_t)mf->word[MF_LOOP_POINTS];
    int32_t *len = malloc(((size_t)n + 1) * sizeof *len);
    orca_vec2 *pts = malloc(((size_t)points + 1) * sizeof *pts);
    orca_sim *probe = NULL;
    orca_status st = len && pts && orca_sim_create(NULL, &probe) == ORCA_OK
                         ? ORCA_OK
                         : mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (boundaries)");
    snap_reader r = {mf->loops};
    int64_t sum = 0;
    for (int32_t l = 0; l < n && st == ORCA_OK; ++l) {
        uint64_t c = get_u64(&r);
        sum += (int64_t)(c > (uint64_t)INT32_MAX ? INT32_MAX : c);
        len[l] = (int32_t)(c > (uint64_t)INT32_MAX ? 0 : c);
        if (c < 3 || sum > points) {
            st = mpi_local_fail(m, ORCA_ERR_FORMAT, "loop %d: %llu points (of %d in all)", (int)l,
                                (unsigned long long)c, (int)points);
        }
    }
    if (st == ORCA_OK && sum != points) {
        st = mpi_local_fail(m, ORCA_ERR_FORMAT, "the loops' lengths add up to %lld, not %d",
                            (long long)sum, (int)points);
    }
    for (int32_t k = 0; k < points && st == ORCA_OK; ++k) {
        pts[k] = get_vec(&r);
    }
    for (int32_t l = 0, at = 0; l < n && st == ORCA_OK; at += len[l++]) {
        if ((st = orca_sim_add_boundary(probe, pts + at, len[l], NULL)) != ORCA_OK) {
            mpi_local_fail(m, ORCA_ERR_FORMAT, "loop %d: %s", (int)l, orca_sim_last_error(probe));
            st = ORCA_ERR_FORMAT;
        }
    }
    if (st == ORCA_OK && !mpi_set_loops(m, len, pts, n, points)) {
        st = mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (boundaries)");
    }
    orca_sim_destroy(probe);
    free(len);
    free(pts);
    return mpi_agree(m, st);
}

/* Collective: the manifest's goal sets as the run's, each checked as
 * orca_scenario_add_goal_set and orca_scenario_set_goal_set_exit check one, and its exit
 * counts (kept by rank 0). */
static orca_status read_sets(orca_mpi *m, const manifest *mf, double *capacity, double *flow)
{
    int32_t n = (int32_t)mf->word[MF_SETS], points = (int32_t)mf->word[MF_SET_POINTS];
    int32_t *count = malloc(((size_t)n + 1) * sizeof *count);
    int32_t *exit = malloc(((size_t)n + 1) * sizeof *exit);
    double *arrive = malloc(((size_t)n + 1) * sizeof *arrive);
    orca_vec2 *pts = malloc(((size_t)points + 1) * sizeof *pts);
    orca_status st = count && exit && arrive && pts && capacity && flow
                         ? ORCA_OK
                         : mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (sets)");
    snap_reader r = {mf->sets};
    int64_t sum = 0;
    for (int32_t k = 0; k < n && st == ORCA_OK; ++k) {
        uint64_t c = get_u64(&r), x = get_u64(&r);
        double a = bits_f64(get_u64(&r)), cap = bits_f64(get_u64(&r));
        count[k] = (int32_t)(c <= ORCA_NAV_GOALS_MAX ? c : 0);
        exit[k] = (int32_t)x;
        arrive[k] = a;
        capacity[k] = cap;
        sum += count[k];
        if (c < 1 || c > ORCA_NAV_GOALS_MAX || x > 1 ||
            !(a == 0 || (a >= 0x1p-30 && a <= 0x1p23)) || !(cap >= 0x1p-30 && cap <= 0x1p30) ||
            sum > points) {
            st = mpi_local_fail(m, ORCA_ERR_FORMAT,
                                "set %d: %llu points, exit %llu, arrive distance %.17g or capacity "
                                "%.17g out of range",
                                (int)k, (unsigned long long)c, (unsigned long long)x, a, cap);
        }
    }
    if (st == ORCA_OK && sum != points) {
        st = mpi_local_fail(m, ORCA_ERR_FORMAT, "the sets' point counts add up to %lld, not %d",
                            (long long)sum, (int)points);
    }
    for (int32_t k = 0; k < points && st == ORCA_OK; ++k) {
        pts[k] = get_vec(&r);
        if (!(fabs(pts[k].x) < ORCA_COORD_LIMIT && fabs(pts[k].y) < ORCA_COORD_LIMIT)) {
            st = mpi_local_fail(m, ORCA_ERR_FORMAT, "set point %d (%.17g, %.17g) out of range",
                                (int)k, pts[k].x, pts[k].y);
        }
    }
    if (st == ORCA_OK && !mpi_set_sets(m, count, exit, arrive, pts, n, points)) {
        st = mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (sets)");
    }
    /* each point's departures and the step of its last, kept by rank 0 */
    for (int32_t k = 0; k < points && st == ORCA_OK; ++k) {
        uint64_t left = get_u64(&r);
        int64_t at = (int64_t)get_u64(&r);
        flow[k] = bits_f64(get_u64(&r));
        if (left > mf->word[MF_EXITED] || at < -1 || at > (int64_t)mf->word[MF_STEPS] ||
            !(flow[k] >= 0.0 && flow[k] <= 0x1p40)) {
            st = mpi_local_fail(m, ORCA_ERR_FORMAT,
                                "set point %d: departures %llu, last departure %lld or outflow "
                                "%.17g out of range",
                                (int)k, (unsigned long long)left, (long long)at, flow[k]);
        } else if (m->rank == 0) {
            m->set_left[k] = (int64_t)left;
            m->set_last[k] = at;
        }
    }
    int64_t last = (int64_t)mf->word[MF_EXITED_LAST];
    if (st == ORCA_OK && (mf->word[MF_EXITED] > mf->word[MF_NEXT_KEY] || last < -1 ||
                          last > (int64_t)mf->word[MF_STEPS])) {
        st = mpi_local_fail(m, ORCA_ERR_FORMAT, "exited %llu or exited_last_step %lld out of range",
                            (unsigned long long)mf->word[MF_EXITED], (long long)last);
    }
    if (st == ORCA_OK && m->rank == 0) {
        m->exited = (int64_t)mf->word[MF_EXITED];
        m->exited_last_step = last;
    }
    free(count);
    free(exit);
    free(arrive);
    free(pts);
    return mpi_agree(m, st);
}

/* A coordinate pair the scenario takes (finite, magnitude below ORCA_COORD_LIMIT). */
static int coord_ok(orca_vec2 p)
{
    return fabs(p.x) < ORCA_COORD_LIMIT && fabs(p.y) < ORCA_COORD_LIMIT;
}

/* Collective: the manifest's waypoint table as the run's, each row checked as
 * orca_scenario_set_waypoints checks an agent's waypoints. */
static orca_status read_waypoints(orca_mpi *m, const manifest *mf)
{
    mpi_wp_table t;
    if (!mpi_wp_table_alloc(&t, (int32_t)mf->word[MF_WAYPOINTS],
                            (int64_t)mf->word[MF_WAYPOINT_POINTS])) {
        return mpi_agree(m, mpi_local_fail(m, ORCA_ERR_MEMORY, "out of memory (waypoints)"));
    }
    orca_status st = ORCA_OK;
    snap_reader r = {mf->waypoints};
    uint64_t points = (uint64_t)t.points;
    for (int32_t k = 0; k < t.n && st == ORCA_OK; ++k) {
        uint64_t f = get_u64(&r), c = get_u64(&r), l = get_u64(&r);
        double a = bits_f64(get_u64(&r));
        t.goal[k] = get_vec(&r);
        t.start[k] = get_vec(&r);
        t.first[k] = (int64_t)f;
        t.count[k] = (int32_t)c;
        t.loop[k] = (int32_t)l;
        t.arrive[k] = a;
        if (c < 1 || c > ORCA_WAYPOINTS_MAX || f > points || c > points - f || l > 1 ||
            !(a == 0 || (a >= 0x1p-30 && a <= 0x1p23)) || !coord_ok(t.goal[k]) ||
            !coord_ok(t.start[k])) {
            st = mpi_local_fail(m, ORCA_ERR_FORMAT,
                                "waypoint row %d: first %llu, %llu points, loop %llu, arrive "
                                "distance %.17g, goal or start out of range",
                                (int)k, (unsigned long long)f, (unsigned long long)c,
                                (unsigned long long)l, a);
        }
    }
    for (int64_t k = 0; k < t.points && st == ORCA_OK; ++k) {
        t.pt[k] = get_vec(&r);
        if (!coord_ok(t.pt[k])) {
            st = mpi_local_fail(m, ORCA_ERR_FORMAT, "waypoint %lld (%.17g, %.17g) out of range",
                                (long long)k, t.pt[k].x, t.pt[k].y);
        }
    }
    if (st == ORCA_OK) {
        mpi_wp_table_free(&m->wp);
        m->wp = t;
    } else {
        mpi_wp_table_free(&t);
    }
    return mpi_agree(m, st);
}

orca_status orca_mpi_restart(MPI_Comm comm, const char *dir, const orca_mpi_def *def,
                             orca_mpi **out)
{
    if (!out) {
        return ORCA_ERR_NULL;
    }
    *out = NULL;
    mpi_create_error[0] = '\0';
    char path[CKPT_PATH];
    snprintf(path, sizeof path, "%s/manifest.bin", dir ? dir : "(null)");
    size_t ms = 0;
    unsigned char *mb = dir && strlen(dir) <= 4000
                            ? read_file(path, &ms, mpi_create_error, sizeof mpi_create_error)
                            : NULL;
    if (!mb && !mpi_create_error[0]) {
        snprintf(mpi_create_error, sizeof mpi_create_error,
                 "checkpoint directory is NULL or too long");
    }
    manifest mf;
    memset(&mf, 0, sizeof mf);
    if (mb && !manifest_ok(path, mb, ms, &mf, mpi_create_error, sizeof mpi_create_error)) {
        free(mb);
        mb = NULL;
    }
    if (!mpi_agree_create(comm, mb != NULL)) {
        free(mb);
        return ORCA_ERR_FORMAT;
    }
    orca_mpi_def d = def ? *def : orca_mpi_def_default();
    d.dt = bits_f64(mf.word[MF_DT]);
    d.seed = mf.word[MF_SEED];
    orca_mpi *m = NULL;
    orca_status st = orca_mpi_create(comm, &d, &m);
    if (st != ORCA_OK) {
        free(mb);
        return st;
    }
    m->run_id = mf.word[MF_RUN_ID];
    m->opt = options_of(mf.word);
    double *capacity = malloc((mf.word[MF_SETS] + 1) * sizeof *capacity);
    double *flow = malloc((mf.word[MF_SET_POINTS] + 1) * sizeof *flow);
    snap_reader r = {mf.segments};
    for (uint64_t k = 0; k < mf.word[MF_SEGMENTS] && st == ORCA_OK; ++k) {
        orca_vec2 a = get_vec(&r), b = get_vec(&r);
        st = orca_mpi_add_segment(m, a, b);
    }
    if (st != ORCA_OK) {
        snprintf(mpi_create_error, sizeof mpi_create_error, "%.300s: field segments: %.180s", path,
                 m->error);
        snprintf(m->error, sizeof m->error, "%s", mpi_create_error);
    } else if ((st = read_loops(m, &mf)) != ORCA_OK) {
        snprintf(mpi_create_error, sizeof mpi_create_error, "%.300s: field loops: %.180s", path,
                 m->error);
        snprintf(m->error, sizeof m->error, "%s", mpi_create_error);
    } else if ((st = read_sets(m, &mf, capacity, flow)) != ORCA_OK) {
        snprintf(mpi_create_error, sizeof mpi_create_error, "%.300s: field sets: %.180s", path,
                 m->error);
        snprintf(m->error, sizeof m->error, "%s", mpi_create_error);
    } else if ((st = read_waypoints(m, &mf)) != ORCA_OK) {
        snprintf(mpi_create_error, sizeof mpi_create_error,
                 "%.300s: field waypoint_rows: %.180s", path, m->error);
        snprintf(m->error, sizeof m->error, "%s", mpi_create_error);
    } else if (mf.word[MF_NAV] & MF_NAV_ON) {
        st = mpi_agree(m, mpi_nav_create(m, (mf.word[MF_NAV] & MF_NAV_CHECK) != 0,
                                         (int)mf.word[MF_EXIT_CHOICE], capacity, flow));
        if (st == ORCA_OK) {
            mpi_nav_set_walls_changed(m, (mf.word[MF_NAV] & MF_NAV_WALLS) != 0);
        }
        for (int k = 0; st == ORCA_OK && m->rank == 0 && k < NAV_COUNTS; ++k) {
            mpi_nav_retired(m)[k] = (int64_t)mf.word[MF_RETIRED + k];
        }
    }
    m->steps = mf.word[MF_STEPS];
    m->next_key = mf.word[MF_NEXT_KEY];
    m->next_rule_key = mf.word[MF_NEXT_RULE_KEY];
    int old_ranks = (int)mf.word[MF_RANKS];
    if (m->rank == 0) {
        m->agent_overlap = bits_f64(mf.word[MF_AGENT_OVERLAP]);
        m->wall_overlap = bits_f64(mf.word[MF_WALL_OVERLAP]);
        m->fallbacks = (int64_t)mf.word[MF_FALLBACKS];
    }
    /* this rank reads parts rank, rank + size, ... */
    for (int f = m->rank; f < old_ranks && st == ORCA_OK; f += m->size) {
        st = read_part(m, dir, &mf, f);
    }
    st = mpi_agree(m, st);
    if (st == ORCA_OK) {
        qsort(m->own, (size_t)m->own_n, sizeof *m->own, cmp_key);
        long long mine = m->own_n, total = 0;
        MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, m->comm);
        if ((uint64_t)total != mf.word[MF_AGENTS]) {
            mpi_local_fail(m, ORCA_ERR_FORMAT,
                           "%.400s: field agents: %llu, its parts hold %lld agent%s", path,
                           (unsigned long long)mf.word[MF_AGENTS], total, total == 1 ? "" : "s");
            st = ORCA_ERR_FORMAT;
        }
        st = mpi_agree(m, m->rank == 0 ? st : ORCA_OK);
    }
    if (st == ORCA_OK) {
        st = orca_mpi_rebalance(m);
    }
    if (st == ORCA_OK) {
        /* the restored state is the one the manifest describes */
        uint64_t h = orca_mpi_hash(m, &st);
        if (st == ORCA_OK && h != mf.word[MF_STATE_HASH]) {
            mpi_local_fail(m, ORCA_ERR_FORMAT,
                           "%.400s: field state_hash: %016llx, the restored state's hash is %016llx",
                           path, (unsigned long long)mf.word[MF_STATE_HASH], (unsigned long long)h);
            st = mpi_agree(m, m->rank == 0 ? ORCA_ERR_FORMAT : ORCA_OK);
        }
    }
    free(mb);
    free(capacity);
    free(flow);
    return mpi_finish_create(m, st, out);
}
