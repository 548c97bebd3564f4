/* SPDX-License-Identifier: MIT */
/* The density-dependent speed's fundamental diagram (docs/extensions.md, "Density-dependent
 * speed", "Measured"): a corridor `length` m x 10 m between two walls, filled at 0.5, 1, 2, 3,
 * 4, 5, 6 agents/m^2 in a hexagonal lattice whose rows fit the 2 m measuring square
 * (ceil(2 sqrt(rho)) rows in it), each agent moved at random by up to half the free space
 * around it (not with `regular`); radius 0.2 m, max_speed 2, neighbor_dist max(radius, 1),
 * both horizons `horizon`, preferred velocity (1.34, 0), dt 0.1 s, the extension's defaults but the
 * kernel radius. Measures the mean speed of the agents in the 2 m x 2 m square at the
 * corridor's centre over 10 s to 70 s and compares it with Weidmann's speed at the square's
 * measured density (count / 4 m^2, averaged over the steps). Prints figures; never judges.
 *   orca_density [length [max_neighbors [radius [regular [horizon]]]]]
 *   (defaults 200, 64, 2, 0, 2: the agents' time horizons in s) */
#include <orca/sim.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define WIDTH 10.0

static int run(double rho, double length, int max_nb, double radius, int regular,
               double horizon)
{
    orca_sim_def sd = orca_sim_def_default();
    orca_sim *s = NULL;
    if (orca_sim_create(&sd, &s) != ORCA_OK) {
        return 1;
    }
    orca_agent_def d = orca_agent_def_default();
    d.radius = 0.2;
    d.max_speed = 2.0;
    d.neighbor_dist = radius > 1 ? radius : 1;
    d.max_neighbors = max_nb;
    d.time_horizon = horizon;
    d.obstacle_time_horizon = horizon;
    d.preferred_velocity = (orca_vec2){1.34, 0};
    int m = (int)ceil(2 * sqrt(rho)); /* rows in the 2 m square */
    double ay = 2.0 / m, ax = 1 / (rho * ay);
    unsigned seed = 12345;
    int n = 0;
    for (int r = 0; r < 5 * m; ++r) {
        for (double x = ax / 2 + (r & 1) * ax / 2; x < length; x += ax) {
            double jx = 0, jy = 0;
            if (!regular) {
                seed = seed * 1103515245u + 12345u;
                jx = ((seed >> 8) / 16777216.0 - 0.5) * (ax - 0.41);
                seed = seed * 1103515245u + 12345u;
                jy = ((seed >> 8) / 16777216.0 - 0.5) * (ay - 0.41);
            }
            d.position = (orca_vec2){x + jx, ay / 2 + r * ay + jy};
            if (orca_sim_add_agent(s, &d, NULL) != ORCA_OK) {
                fprintf(stderr, "%s\n", orca_sim_last_error(s));
                return 1;
            }
            ++n;
        }
    }
    for (double x = -20; x < length + 200; x += 2) {
        orca_sim_add_segment(s, (orca_vec2){x, 0}, (orca_vec2){x + 2, 0}, NULL);
        orca_sim_add_segment(s, (orca_vec2){x, WIDTH}, (orca_vec2){x + 2, WIDTH}, NULL);
    }
    orca_density_speed p = orca_density_speed_default();
    p.radius = radius;
    if (orca_sim_set_density_speed(s, &p) != ORCA_OK) {
        fprintf(stderr, "%s\n", orca_sim_last_error(s));
        return 1;
    }
    double cx = length / 2, cy = WIDTH / 2, sum_speed = 0, sum_count = 0;
    long seen = 0;
    int measured = 0;
    for (int k = 1; k <= 700; ++k) {
        if (orca_sim_step(s, 0.1) != ORCA_OK) {
            fprintf(stderr, "%s\n", orca_sim_last_error(s));
            return 1;
        }
        if (k <= 100) {
            continue;
        }
        ++measured;
        for (int i = 0; i < n; ++i) {
            orca_agent_def a;
            orca_agent_get(s, orca_sim_agent_at(s, i), &a);
            if (fabs(a.position.x - cx) <= 1 && fabs(a.position.y - cy) <= 1) {
                sum_speed += sqrt(a.velocity.x * a.velocity.x + a.velocity.y * a.velocity.y);
                sum_count += 1;
                ++seen;
            }
        }
    }
    double dens = sum_count / measured / 4, speed = seen ? sum_speed / (double)seen : 0;
    double weid = dens < 5.4 ? 1.34 * (1 - exp(-1.913 * (1 / dens - 1 / 5.4))) : 0;
    printf("%5.2f  %6d  %8.3f  %8.4f  %8.4f  %+7.1f%%\n", rho, n, dens, speed, weid,
           weid > 0 ? 100 * (speed - weid) / weid : 0.0);
    orca_sim_destroy(s);
    return 0;
}

int main(int argc, char **argv)
{
    double length = argc > 1 ? atof(argv[1]) : 200;
    int max_nb = argc > 2 ? atoi(argv[2]) : 64;
    double radius = argc > 3 ? atof(argv[3]) : 2;
    int regular = argc > 4 ? atoi(argv[4]) : 0;
    double horizon = argc > 5 ? atof(argv[5]) : 2;
    printf("corridor %g m x %g m, max_neighbors %d, kernel radius %g m, %s lattice, time "
           "horizons %g s\n",
           length, WIDTH, max_nb, radius, regular ? "regular" : "jittered", horizon);
    printf(" fill  agents  density  speed     Weidmann  difference\n");
    const double fills[] = {0.5, 1, 2, 3, 4, 5, 6};
    for (int k = 0; k < 7; ++k) {
        if (run(fills[k], length, max_nb, radius, regular, horizon) != 0) {
            return 1;
        }
    }
    return 0;
}
