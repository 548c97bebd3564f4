/* SPDX-License-Identifier: MIT */
/* The command's own work around scene files and scenarios (the files themselves are read,
 * built and written by the library: orca/scene_file.h): the exit status of a refused file, the
 * warning about agents that start at one point, and the rebuild of a scenario with another
 * dt. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

int cli_scene_file_exit(orca_status st)
{
    return st == ORCA_ERR_MEMORY || st == ORCA_ERR_IO ? EXIT_RUNTIME : EXIT_USAGE;
}

int cli_scene_file_read(const char *path, orca_scene_file **out)
{
    orca_status st;
    if (strcmp(path, "-") == 0) {
        /* Standard input as every input of the command is opened (a closed descriptor or a
         * directory is bad input), then read by the library. */
        int fd;
        long long regular;
        char err[600];
        if (cli_open_input(path, &fd, &regular, err, sizeof err) != CLI_READ_OK) {
            cli_print_message(err);
            return EXIT_USAGE;
        }
        st = orca_scene_file_read_stream(stdin, "<stdin>", out);
    } else {
        st = orca_scene_file_read(path, out);
    }
    if (st != ORCA_OK) {
        cli_print_message(orca_scene_file_last_error(NULL));
        return cli_scene_file_exit(st);
    }
    return EXIT_OK;
}

/* --- coincident starts -------------------------------------------------------------------- */

/* Agent indices ordered by position (x, then y, compared as numbers), then index. */
static const orca_vec2 *g_sort_pos;
static int by_position(const void *pa, const void *pb)
{
    int i = *(const int *)pa, j = *(const int *)pb;
    const orca_vec2 *p = &g_sort_pos[i], *q = &g_sort_pos[j];
    if (p->x != q->x) {
        return p->x < q->x ? -1 : 1;
    }
    if (p->y != q->y) {
        return p->y < q->y ? -1 : 1;
    }
    return i < j ? -1 : i > j;
}

int cli_warn_coincident(const orca_vec2 *pos, int n, const int *lines, const char *where,
                        const orca_sim *sim, FILE *out)
{
    if (n < 2 || (sim && orca_sim_separation_active(sim))) {
        return 0;
    }
    int *order = malloc((size_t)n * sizeof *order);
    if (!order) {
        return 0; /* a warning only: nothing to report without memory */
    }
    for (int i = 0; i < n; ++i) {
        order[i] = i;
    }
    g_sort_pos = pos;
    qsort(order, (size_t)n, sizeof *order, by_position);
    int found = 0, first = 0; /* first: where the group of agents at one point begins */
    for (int k = 1; k < n; ++k) {
        orca_vec2 a = pos[order[first]], b = pos[order[k]];
        if (a.x != b.x || a.y != b.y) {
            first = k;
            continue;
        }
        if (++found > 5) {
            continue;
        }
        if (lines) {
            fprintf(out, "%s:%d: warning: agent %d starts at the same point as agent %d (line %d)",
                    where, lines[order[k]], order[k], order[first], lines[order[first]]);
        } else {
            fprintf(out, "%s: warning: agent %d starts at the same point as agent %d", where,
                    order[k], order[first]);
        }
        fprintf(out,
                ", (%.17g, %.17g): agents at one point with equal velocities never separate "
                "unless the separation is on ('separation on', orca run --separation; "
                "docs/extensions.md)\n",
                b.x, b.y);
    }
    if (found > 5) {
        fprintf(out, "%s: warning: %d more agents start at the same point as an earlier one\n",
                where, found - 5);
    }
    free(order);
    return found;
}

int cli_warn_file_coincident(const orca_scene_file *file, const char *where, const orca_sim *sim,
                             FILE *out)
{
    int n = orca_sim_agent_count(sim); /* the file's agents, in file order */
    if (n < 2 || orca_sim_separation_active(sim)) {
        return 0;
    }
    int *lines = malloc((size_t)n * sizeof *lines);
    if (!lines) {
        return 0;
    }
    for (int i = 0; i < n; ++i) {
        lines[i] = orca_scene_file_agent_line(file, i);
    }
    int found = cli_warn_coincident(orca_sim_positions(sim), n, lines, where, sim, out);
    free(lines);
    return found;
}

/* --- another dt ---------------------------------------------------------------------------- */

orca_status scene_clone(orca_scenario *src, const orca_sim_def *sim_def, double dt, uint64_t seed,
                        orca_scenario **out, char *err, size_t err_size)
{
    orca_scenario *sc = NULL;
    orca_status st = orca_scenario_create(sim_def, dt, seed, &sc);
    if (st != ORCA_OK) {
        const char *msg = orca_scenario_last_error(NULL);
        snprintf(err, err_size, "creating the scenario (orca_scenario_create): %s (%s)",
                 msg && msg[0] ? msg : "failed", orca_status_name(st));
        return st;
    }
    orca_sim *from = orca_scenario_sim(src);
    orca_sim *to = orca_scenario_sim(sc);
    st = orca_scenario_set_name(sc, orca_scenario_name(src));
    if (st == ORCA_OK) {
        st = orca_sim_set_separation(to, orca_sim_get_separation(from));
    }
    orca_density_speed dens;
    if (st == ORCA_OK && orca_sim_get_density_speed(from, &dens)) {
        st = orca_sim_set_density_speed(to, &dens);
    }
    int ns = orca_sim_segment_count(from);
    for (int i = 0; i < ns && st == ORCA_OK; ++i) {
        orca_vec2 a, b;
        st = orca_segment_get(from, orca_sim_segment_at(from, i), &a, &b);
        if (st == ORCA_OK) {
            st = orca_sim_add_segment(to, a, b, NULL);
        }
    }
    int nbd = orca_sim_boundary_count(from);
    for (int i = 0; i < nbd && st == ORCA_OK; ++i) {
        orca_boundary_id bid = orca_sim_boundary_at(from, i);
        int np = 0;
        st = orca_boundary_get(from, bid, NULL, 0, &np);
        orca_vec2 *pts = st == ORCA_OK ? malloc((size_t)np * sizeof *pts) : NULL;
        if (st == ORCA_OK && !pts) {
            st = ORCA_ERR_MEMORY;
        }
        if (st == ORCA_OK) {
            st = orca_boundary_get(from, bid, pts, np, &np);
        }
        if (st == ORCA_OK) {
            st = orca_sim_add_boundary(to, pts, np, NULL);
        }
        free(pts);
    }
    int na = orca_sim_agent_count(from);
    for (int i = 0; i < na && st == ORCA_OK; ++i) {
        orca_agent_def def;
        orca_goal goal;
        st = orca_agent_get(from, orca_sim_agent_at(from, i), &def);
        if (st == ORCA_OK) {
            st = orca_scenario_agent_goal(src, i, &goal, NULL);
        }
        orca_agent_avoidance av;
        if (st == ORCA_OK) {
            st = orca_agent_get_avoidance(from, orca_sim_agent_at(from, i), &av);
        }
        orca_agent_id id;
        if (st == ORCA_OK) {
            st = orca_scenario_add_agent(sc, &def, &goal, &id);
        }
        if (st == ORCA_OK) {
            st = orca_agent_set_avoidance(to, id, &av);
        }
        int wn = 0, loop = 0, current = 0;
        double arrive = 0.0;
        if (st == ORCA_OK) {
            st = orca_scenario_agent_waypoints(src, i, NULL, 0, &wn, &loop, &arrive);
        }
        if (st == ORCA_OK && wn > 0) {
            orca_vec2 *pts = malloc((size_t)wn * sizeof *pts);
            if (!pts) {
                st = ORCA_ERR_MEMORY;
                break;
            }
            st = orca_scenario_agent_waypoints(src, i, pts, wn, &wn, &loop, &arrive);
            if (st == ORCA_OK) {
                st = orca_scenario_set_waypoints(sc, i, pts, wn, loop, arrive);
            }
            free(pts);
            if (st == ORCA_OK) {
                st = orca_scenario_waypoint_index(src, i, &current);
            }
            if (st == ORCA_OK) {
                st = orca_scenario_set_waypoint_index(sc, i, current);
            }
        }
    }
    if (st != ORCA_OK) {
        /* The message is the new scenario's (or its simulation's): copy it before the
         * scenario goes. */
        const char *msg = orca_scenario_last_error(sc);
        if (!msg[0]) {
            msg = orca_sim_last_error(to);
        }
        snprintf(err, err_size, "copying the scene: %s (%s)", msg[0] ? msg : "failed",
                 orca_status_name(st));
        orca_scenario_destroy(sc);
        return st;
    }
    *out = sc;
    return ORCA_OK;
}
