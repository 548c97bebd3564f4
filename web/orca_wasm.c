/* SPDX-License-Identifier: MIT */
/* The WebAssembly exports that web/orca.mjs calls: a flat layer over include/orca/sim.h,
 * include/orca/scenario.h, include/orca/scene_file.h and include/orca/nav.h with only i32,
 * i64 and f64 arguments (pointers are offsets into the module's memory). Handles travel as
 * three u32 words (slot, generation, the simulation's identity) written to a caller's buffer,
 * or as three arguments; agent definitions as twelve doubles (ow_def below). No arithmetic
 * happens here: every value is copied, so the bits are the library's. Every allocation here
 * is checked (a count beyond the library's limit is ORCA_ERR_LIMIT, a size beyond the address
 * space or a failed malloc ORCA_ERR_MEMORY, with the simulation's message set) before
 * anything is written. Built by scripts/web-build.sh (docs/web.md). */
#include "orca/orca.h"
#include "orca/scenario.h"

#include "sim_internal.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define OW_EXPORT(name) __attribute__((export_name(#name))) name

/* An agent definition as twelve doubles: position x y, velocity x y, preferred velocity x y,
 * radius, max_speed, neighbor_dist, max_neighbors, time_horizon, obstacle_time_horizon. */
enum { OW_DEF_WORDS = 12 };

static void def_to_words(const orca_agent_def *d, double *w)
{
    w[0] = d->position.x;
    w[1] = d->position.y;
    w[2] = d->velocity.x;
    w[3] = d->velocity.y;
    w[4] = d->preferred_velocity.x;
    w[5] = d->preferred_velocity.y;
    w[6] = d->radius;
    w[7] = d->max_speed;
    w[8] = d->neighbor_dist;
    w[9] = (double)d->max_neighbors;
    w[10] = d->time_horizon;
    w[11] = d->obstacle_time_horizon;
}

/* Words to a definition; max_neighbors must be a whole number in int range, otherwise it is
 * replaced by -1, which the library refuses (orca.mjs refuses such a value first, naming it
 * as given). */
static orca_agent_def words_to_def(const double *w)
{
    orca_agent_def d = orca_agent_def_default();
    d.position.x = w[0];
    d.position.y = w[1];
    d.velocity.x = w[2];
    d.velocity.y = w[3];
    d.preferred_velocity.x = w[4];
    d.preferred_velocity.y = w[5];
    d.radius = w[6];
    d.max_speed = w[7];
    d.neighbor_dist = w[8];
    d.max_neighbors = (w[9] >= -1e9 && w[9] <= 1e9 && (double)(int)w[9] == w[9]) ? (int)w[9] : -1;
    d.time_horizon = w[10];
    d.obstacle_time_horizon = w[11];
    return d;
}

static void put_id(uint32_t *out, uint32_t slot, uint32_t generation, uint32_t sim)
{
    out[0] = slot;
    out[1] = generation;
    out[2] = sim;
}

/* A block of count elements of size bytes for the batch calls below, or NULL with s's message
 * set: count beyond limit (what: "agents", ...) is ORCA_ERR_LIMIT, a size beyond size_t or a
 * failed malloc ORCA_ERR_MEMORY (*st). count >= 1. */
static void *batch_alloc(const orca_sim *s, int count, size_t size, int limit, const char *what,
                         orca_status *st)
{
    if (count > limit) {
        *st = orca_fail(s, ORCA_ERR_LIMIT, "%d %s, beyond the %d a simulation holds; nothing "
                        "was changed", count, what, limit);
        return NULL;
    }
    void *p = (size_t)count <= SIZE_MAX / size ? malloc((size_t)count * size) : NULL;
    *st = p ? ORCA_OK
            : orca_fail(s, ORCA_ERR_MEMORY, "out of memory for %d %s; nothing was changed",
                        count, what);
    return p;
}

/* --- memory and strings ---------------------------------------------------------------- */

/* NULL when the memory cannot grow: orca.mjs checks every result (ORCA_ERR_MEMORY). */
void *OW_EXPORT(ow_malloc)(size_t size) { return malloc(size ? size : 1); }
void OW_EXPORT(ow_free)(void *p) { free(p); }
const char *OW_EXPORT(ow_version)(void) { return orca_version(); }
const char *OW_EXPORT(ow_status_name)(int status) { return orca_status_name(status); }

/* 1 when this module was built with the SIMD128 kernels. */
int OW_EXPORT(ow_simd128)(void)
{
#ifdef ORCA_HAVE_SIMD128
    return 1;
#else
    return 0;
#endif
}

/* --- simulations ----------------------------------------------------------------------- */

int OW_EXPORT(ow_sim_create)(orca_sim **out)
{
    orca_sim_def def = orca_sim_def_default(); /* one worker: the module has no threads */
    return orca_sim_create(&def, out);
}
void OW_EXPORT(ow_sim_destroy)(orca_sim *s) { orca_sim_destroy(s); }
const char *OW_EXPORT(ow_sim_last_error)(const orca_sim *s) { return orca_sim_last_error(s); }
int OW_EXPORT(ow_sim_set_vector_kernels)(orca_sim *s, int on)
{
    return orca_sim_set_vector_kernels(s, on);
}
int OW_EXPORT(ow_sim_get_vector_kernels)(const orca_sim *s)
{
    return orca_sim_get_vector_kernels(s);
}

void OW_EXPORT(ow_agent_def_default)(double *w)
{
    orca_agent_def d = orca_agent_def_default();
    def_to_words(&d, w);
}
/* orca_goal_default into w: kind, target x y, preferred speed. */
void OW_EXPORT(ow_goal_default)(double *w)
{
    orca_goal g = orca_goal_default();
    w[0] = (double)g.kind;
    w[1] = g.target.x;
    w[2] = g.target.y;
    w[3] = g.preferred_speed;
}
uint32_t OW_EXPORT(ow_sim_id)(const orca_sim *s) { return orca_sim_id(s); }

int OW_EXPORT(ow_sim_add_agent)(orca_sim *s, const double *w, uint32_t *out)
{
    orca_agent_def d = words_to_def(w);
    orca_agent_id id = {0, 0, 0};
    orca_status st = orca_sim_add_agent(s, &d, &id);
    put_id(out, id.slot, id.generation, id.sim);
    return st;
}
int OW_EXPORT(ow_sim_remove_agent)(orca_sim *s, uint32_t slot, uint32_t generation, uint32_t sim)
{
    return orca_sim_remove_agent(s, (orca_agent_id){slot, generation, sim});
}
/* ids: count handles as 3 * count words (slot generation sim slot generation sim ...) */
int OW_EXPORT(ow_sim_remove_agents)(orca_sim *s, const uint32_t *ids, int count)
{
    if (!s || count <= 0) {
        return orca_sim_remove_agents(s, NULL, count);
    }
    orca_status st;
    orca_agent_id *h = batch_alloc(s, count, sizeof *h, 1 << 30, "agent handles", &st);
    if (!h) {
        return st;
    }
    for (int k = 0; k < count; ++k) {
        h[k] = (orca_agent_id){ids[3 * k], ids[3 * k + 1], ids[3 * k + 2]};
    }
    st = orca_sim_remove_agents(s, h, count);
    free(h);
    return st;
}
int OW_EXPORT(ow_sim_agent_count)(const orca_sim *s) { return orca_sim_agent_count(s); }
/* The handle of the agent at index into out (orca.mjs asks only for indices in range). */
void OW_EXPORT(ow_sim_agent_at)(const orca_sim *s, int index, uint32_t *out)
{
    orca_agent_id id = orca_sim_agent_at(s, index);
    put_id(out, id.slot, id.generation, id.sim);
}
/* The handles of agents 0 .. count-1 in index order, three words each (count <= the agent
 * count; orca.mjs passes it): one call per frame for renderers that key sprites by agent. */
void OW_EXPORT(ow_sim_agent_handles)(const orca_sim *s, uint32_t *out, int count)
{
    for (int i = 0; i < count; ++i) {
        orca_agent_id id = orca_sim_agent_at(s, i);
        put_id(out + 3 * i, id.slot, id.generation, id.sim);
    }
}
int OW_EXPORT(ow_sim_agent_index)(const orca_sim *s, uint32_t slot, uint32_t generation,
                                  uint32_t sim)
{
    return orca_sim_agent_index(s, (orca_agent_id){slot, generation, sim});
}
int OW_EXPORT(ow_agent_get)(const orca_sim *s, uint32_t slot, uint32_t generation, uint32_t sim,
                            double *w)
{
    orca_agent_def d;
    orca_status st = orca_agent_get(s, (orca_agent_id){slot, generation, sim}, &d);
    if (st == ORCA_OK) {
        def_to_words(&d, w);
    }
    return st;
}
int OW_EXPORT(ow_agent_set)(orca_sim *s, uint32_t slot, uint32_t generation, uint32_t sim,
                            const double *w)
{
    orca_agent_def d = words_to_def(w);
    return orca_agent_set(s, (orca_agent_id){slot, generation, sim}, &d);
}

int OW_EXPORT(ow_sim_add_segment)(orca_sim *s, double ax, double ay, double bx, double by,
                                  uint32_t *out)
{
    orca_segment_id id = {0, 0, 0};
    orca_status st = orca_sim_add_segment(s, (orca_vec2){ax, ay}, (orca_vec2){bx, by}, &id);
    put_id(out, id.slot, id.generation, id.sim);
    return st;
}
int OW_EXPORT(ow_sim_remove_segment)(orca_sim *s, uint32_t slot, uint32_t generation,
                                     uint32_t sim)
{
    return orca_sim_remove_segment(s, (orca_segment_id){slot, generation, sim});
}
/* ab: 4 * count doubles, the a ends (x y per segment) then the b ends; the handles into ids
 * (3 * count words). */
int OW_EXPORT(ow_sim_add_segments)(orca_sim *s, const double *ab, int count, uint32_t *ids)
{
    if (!s || count <= 0) {
        return orca_sim_add_segments(s, NULL, NULL, count, NULL);
    }
    orca_status st;
    orca_segment_id *h = batch_alloc(s, count, sizeof *h, 1 << 28, "segments", &st);
    if (!h) {
        return st;
    }
    const orca_vec2 *a = (const orca_vec2 *)(const void *)ab;
    st = orca_sim_add_segments(s, a, a + count, count, h);
    for (int k = 0; st == ORCA_OK && k < count; ++k) {
        put_id(ids + 3 * k, h[k].slot, h[k].generation, h[k].sim);
    }
    free(h);
    return st;
}
/* ids: as ow_sim_remove_agents */
int OW_EXPORT(ow_sim_remove_segments)(orca_sim *s, const uint32_t *ids, int count)
{
    if (!s || count <= 0) {
        return orca_sim_remove_segments(s, NULL, count);
    }
    orca_status st;
    orca_segment_id *h = batch_alloc(s, count, sizeof *h, 1 << 28, "segment handles", &st);
    if (!h) {
        return st;
    }
    for (int k = 0; k < count; ++k) {
        h[k] = (orca_segment_id){ids[3 * k], ids[3 * k + 1], ids[3 * k + 2]};
    }
    st = orca_sim_remove_segments(s, h, count);
    free(h);
    return st;
}
int OW_EXPORT(ow_sim_segment_count)(const orca_sim *s) { return orca_sim_segment_count(s); }
/* The ends of the segment at index (a.x a.y b.x b.y into w); its handle into out. */
int OW_EXPORT(ow_sim_segment_at)(const orca_sim *s, int index, double *w, uint32_t *out)
{
    orca_segment_id id = orca_sim_segment_at(s, index);
    put_id(out, id.slot, id.generation, id.sim);
    orca_vec2 a, b;
    orca_status st = orca_segment_get(s, id, &a, &b);
    if (st == ORCA_OK) {
        w[0] = a.x;
        w[1] = a.y;
        w[2] = b.x;
        w[3] = b.y;
    }
    return st;
}

/* --- walkable-area boundaries (docs/extensions.md, "Walkable-area boundaries") --------- */
/* xy: 2 * count doubles (x0 y0 x1 y1 ...); the handle into out. */
int OW_EXPORT(ow_sim_add_boundary)(orca_sim *s, const double *xy, int count, uint32_t *out)
{
    orca_boundary_id id = {0, 0, 0};
    orca_status st = orca_sim_add_boundary(s, (const orca_vec2 *)(const void *)xy, count, &id);
    put_id(out, id.slot, id.generation, id.sim);
    return st;
}
int OW_EXPORT(ow_sim_remove_boundary)(orca_sim *s, uint32_t slot, uint32_t generation,
                                      uint32_t sim)
{
    return orca_sim_remove_boundary(s, (orca_boundary_id){slot, generation, sim});
}
int OW_EXPORT(ow_sim_boundary_count)(const orca_sim *s) { return orca_sim_boundary_count(s); }
/* The loop at index: its handle into out, its point count into *count, and up to capacity
 * points into xy. */
int OW_EXPORT(ow_sim_boundary_at)(const orca_sim *s, int index, double *xy, int capacity,
                                  int *count, uint32_t *out)
{
    orca_boundary_id id = orca_sim_boundary_at(s, index);
    put_id(out, id.slot, id.generation, id.sim);
    return orca_boundary_get(s, id, (orca_vec2 *)(void *)xy, capacity, count);
}
/* w[0] = deepest intrusion (fraction of radius), w[1] = agents outside. */
int OW_EXPORT(ow_sim_measure_boundary)(const orca_sim *s, double *w)
{
    int outside = 0;
    orca_status st = orca_sim_measure_boundary(s, &w[0], &outside);
    w[1] = (double)outside;
    return st;
}
/* --- end of walkable-area boundaries --------------------------------------------------- */

int OW_EXPORT(ow_sim_swap_preferred_velocities)(orca_sim *s, double *v, int count)
{
    return orca_sim_swap_preferred_velocities(s, (orca_vec2 *)(void *)v, count);
}
int OW_EXPORT(ow_sim_step)(orca_sim *s, double dt) { return orca_sim_step(s, dt); }
uint64_t OW_EXPORT(ow_sim_step_count)(const orca_sim *s) { return orca_sim_step_count(s); }
int OW_EXPORT(ow_sim_last_fallback_count)(const orca_sim *s)
{
    return orca_sim_last_fallback_count(s);
}
uint64_t OW_EXPORT(ow_sim_hash)(const orca_sim *s) { return orca_sim_hash(s); }

/* Positions and velocities in index order, two doubles an agent: pointers into the
 * simulation (valid until the next call that adds, removes or moves agents, steps or loads). */
const double *OW_EXPORT(ow_sim_positions)(const orca_sim *s)
{
    return (const double *)(const void *)orca_sim_positions(s);
}
const double *OW_EXPORT(ow_sim_velocities)(const orca_sim *s)
{
    return s ? (const double *)(const void *)s->vel : NULL;
}

int OW_EXPORT(ow_sim_measure_overlap)(const orca_sim *s, double *out)
{
    return orca_sim_measure_overlap(s, &out[0], &out[1]);
}

/* Spatial queries (docs/extensions.md, "Spatial queries"): agent indices into indices
 * (room for capacity), the number that match into *count. */
int OW_EXPORT(ow_sim_query_radius)(const orca_sim *s, double cx, double cy, double radius,
                                   int *indices, int capacity, int *count)
{
    return orca_sim_query_radius(s, (orca_vec2){cx, cy}, radius, indices, capacity, count);
}
int OW_EXPORT(ow_sim_query_nearest)(const orca_sim *s, double px, double py, int k, int *indices,
                                    int *count)
{
    return orca_sim_query_nearest(s, (orca_vec2){px, py}, k, indices, count);
}
int OW_EXPORT(ow_sim_query_box)(const orca_sim *s, double x0, double y0, double x1, double y1,
                                int *indices, int capacity, int *count)
{
    return orca_sim_query_box(s, (orca_vec2){x0, y0}, (orca_vec2){x1, y1}, indices, capacity,
                              count);
}

/* --- avoidance extensions and diagnostics (docs/extensions.md, issue 16) --------------- */

/* The settings as four doubles into w: priority, layers, mask, locked (exact: 32-bit values). */
int OW_EXPORT(ow_agent_get_avoidance)(const orca_sim *s, uint32_t slot, uint32_t generation,
                                      uint32_t sim, double *w)
{
    orca_agent_avoidance a;
    orca_status st = orca_agent_get_avoidance(s, (orca_agent_id){slot, generation, sim}, &a);
    if (st == ORCA_OK) {
        w[0] = a.priority;
        w[1] = (double)a.layers;
        w[2] = (double)a.mask;
        w[3] = (double)a.locked;
    }
    return st;
}
int OW_EXPORT(ow_agent_set_avoidance)(orca_sim *s, uint32_t slot, uint32_t generation,
                                      uint32_t sim, double priority, uint32_t layers,
                                      uint32_t mask, int locked)
{
    orca_agent_avoidance a = {priority, layers, mask, locked};
    return orca_agent_set_avoidance(s, (orca_agent_id){slot, generation, sim}, &a);
}
/* The library's check of settings (orca.mjs checks them before it adds an agent with them);
 * the message goes to s's last error. */
int OW_EXPORT(ow_check_avoidance)(const orca_sim *s, double priority, uint32_t layers,
                                  uint32_t mask, int locked)
{
    orca_agent_avoidance a = {priority, layers, mask, locked};
    return orca_check_avoidance(s, &a);
}
int OW_EXPORT(ow_agent_set_priority)(orca_sim *s, uint32_t slot, uint32_t generation,
                                     uint32_t sim, double p)
{
    return orca_agent_set_priority(s, (orca_agent_id){slot, generation, sim}, p);
}
int OW_EXPORT(ow_agent_set_layers)(orca_sim *s, uint32_t slot, uint32_t generation,
                                   uint32_t sim, uint32_t layers, uint32_t mask)
{
    return orca_agent_set_layers(s, (orca_agent_id){slot, generation, sim}, layers, mask);
}
int OW_EXPORT(ow_agent_set_locked)(orca_sim *s, uint32_t slot, uint32_t generation,
                                   uint32_t sim, int locked)
{
    return orca_agent_set_locked(s, (orca_agent_id){slot, generation, sim}, locked);
}
int OW_EXPORT(ow_sim_set_diagnostics)(orca_sim *s, int on) { return orca_sim_set_diagnostics(s, on); }
int OW_EXPORT(ow_sim_get_diagnostics)(const orca_sim *s) { return orca_sim_get_diagnostics(s); }
int OW_EXPORT(ow_sim_set_separation)(orca_sim *s, int on) { return orca_sim_set_separation(s, on); }
int OW_EXPORT(ow_sim_get_separation)(const orca_sim *s) { return orca_sim_get_separation(s); }
int OW_EXPORT(ow_sim_separation_active)(const orca_sim *s) { return orca_sim_separation_active(s); }
/* The density-dependent speed: on with the three parameters, off, and the parameters in use
 * (or the defaults when off) as three f64 into w; returns 1 when on. */
int OW_EXPORT(ow_sim_set_density_speed)(orca_sim *s, double radius, double gamma,
                                        double max_density)
{
    orca_density_speed p = {radius, gamma, max_density};
    return orca_sim_set_density_speed(s, &p);
}
int OW_EXPORT(ow_sim_clear_density_speed)(orca_sim *s) { return orca_sim_set_density_speed(s, NULL); }
int OW_EXPORT(ow_sim_get_density_speed)(const orca_sim *s, double *w)
{
    orca_density_speed p;
    int on = orca_sim_get_density_speed(s, &p);
    w[0] = p.radius;
    w[1] = p.gamma;
    w[2] = p.max_density;
    return on;
}
/* The pedestrian model (docs/pedestrians.md): on with the four parameters, off, and the
 * parameters in use (or the defaults when off) as four f64 into w (max_planes as a double);
 * returns 1 when on. The scenario's preset likewise (orca_scenario_set_pedestrian). */
int OW_EXPORT(ow_sim_set_pedestrian)(orca_sim *s, double time_gap, double buffer,
                                     double counter_reach, int max_planes)
{
    orca_pedestrian p = {time_gap, buffer, counter_reach, max_planes};
    return orca_sim_set_pedestrian(s, &p);
}
int OW_EXPORT(ow_sim_clear_pedestrian)(orca_sim *s) { return orca_sim_set_pedestrian(s, NULL); }
int OW_EXPORT(ow_sim_get_pedestrian)(const orca_sim *s, double *w)
{
    orca_pedestrian p;
    int on = orca_sim_get_pedestrian(s, &p);
    w[0] = p.time_gap;
    w[1] = p.buffer;
    w[2] = p.counter_reach;
    w[3] = (double)p.max_planes;
    return on;
}
int OW_EXPORT(ow_scenario_set_pedestrian)(orca_scenario *sc, double time_gap, double buffer,
                                          double counter_reach, int max_planes)
{
    orca_pedestrian p = {time_gap, buffer, counter_reach, max_planes};
    return orca_scenario_set_pedestrian(sc, &p);
}
int OW_EXPORT(ow_scenario_clear_pedestrian)(orca_scenario *sc)
{
    return orca_scenario_set_pedestrian(sc, NULL);
}
/* The preset's agent (orca_pedestrian_agent_def) as the definition's words into w. */
void OW_EXPORT(ow_pedestrian_agent_def)(double *w)
{
    orca_agent_def d = orca_pedestrian_agent_def();
    def_to_words(&d, w);
}
double OW_EXPORT(ow_pedestrian_free_speed)(uint64_t seed, uint64_t key)
{
    return orca_pedestrian_free_speed(seed, key);
}
/* The free speed of the agent the scenario adds next (orca_scenario_pedestrian_agent). */
double OW_EXPORT(ow_scenario_pedestrian_speed)(const orca_scenario *sc)
{
    double v = 0;
    orca_scenario_pedestrian_agent(sc, NULL, &v);
    return v;
}
/* An agent's stream: checked (orca_check_stream's range and message), set, and read into
 * *out. */
int OW_EXPORT(ow_check_stream)(const orca_sim *s, int32_t stream)
{
    return orca_check_stream(s, stream);
}
int OW_EXPORT(ow_agent_set_stream)(orca_sim *s, uint32_t slot, uint32_t generation, uint32_t sim,
                                   int32_t stream)
{
    return orca_agent_set_stream(s, (orca_agent_id){slot, generation, sim}, stream);
}
int OW_EXPORT(ow_agent_get_stream)(const orca_sim *s, uint32_t slot, uint32_t generation,
                                   uint32_t sim, int32_t *out)
{
    return orca_agent_get_stream(s, (orca_agent_id){slot, generation, sim}, out);
}
/* One agent's diagnostics as nine i32 (the struct's fields in order) into w. */
int OW_EXPORT(ow_agent_get_diagnostics)(const orca_sim *s, uint32_t slot, uint32_t generation,
                                        uint32_t sim, int32_t *w)
{
    orca_agent_diagnostics d;
    orca_status st = orca_agent_get_diagnostics(s, (orca_agent_id){slot, generation, sim}, &d);
    if (st == ORCA_OK) {
        w[0] = d.fallback;
        w[1] = d.failed_constraint;
        w[2] = d.neighbor_count;
        w[3] = d.candidates;
        w[4] = d.neighbors_cut;
        w[5] = d.blocked;
        w[6] = d.locked;
        w[7] = d.headway_planes;
        w[8] = d.counter_mode;
    }
    return st;
}
/* Every agent's diagnostics in index order (orca_sim_diagnostics): out holds capacity entries
 * of nine i32 each (orca_agent_diagnostics is nine ints, no padding). */
int OW_EXPORT(ow_sim_diagnostics)(const orca_sim *s, orca_agent_diagnostics *out, int capacity,
                                  int *count)
{
    _Static_assert(sizeof(orca_agent_diagnostics) == 9 * sizeof(int32_t),
                   "orca_agent_diagnostics is nine ints");
    return orca_sim_diagnostics(s, out, capacity, count);
}
/* The counts agents, fallback, cut, blocked, locked, headway, counter as seven i32 into w. */
int OW_EXPORT(ow_sim_step_diagnostics)(const orca_sim *s, int32_t *w)
{
    orca_step_diagnostics c;
    orca_status st = orca_sim_step_diagnostics(s, &c);
    if (st == ORCA_OK) {
        w[0] = c.agents;
        w[1] = c.fallback;
        w[2] = c.cut;
        w[3] = c.blocked;
        w[4] = c.locked;
        w[5] = c.headway;
        w[6] = c.counter;
    }
    return st;
}

/* Saves into a new block (*buffer, released with ow_free) of *size bytes. */
int OW_EXPORT(ow_sim_save)(const orca_sim *s, void **buffer, size_t *size)
{
    *buffer = NULL;
    orca_status st = orca_sim_save(s, NULL, 0, size);
    if (st != ORCA_OK) {
        return st;
    }
    void *b = malloc(*size ? *size : 1);
    if (!b) {
        return orca_fail(s, ORCA_ERR_MEMORY, "out of memory for a snapshot of %zu bytes", *size);
    }
    st = orca_sim_save(s, b, *size, size);
    if (st != ORCA_OK) {
        free(b);
        return st;
    }
    *buffer = b;
    return ORCA_OK;
}
int OW_EXPORT(ow_sim_load)(orca_sim *s, const void *buffer, size_t size)
{
    return orca_sim_load(s, buffer, size);
}

/* --- scenarios ------------------------------------------------------------------------- */

int OW_EXPORT(ow_scene_from_name)(const char *name) { return orca_scene_from_name(name); }
const char *OW_EXPORT(ow_scene_name)(int kind) { return orca_scene_name((orca_scene_kind)kind); }

int OW_EXPORT(ow_scenario_create)(double dt, uint64_t seed, orca_scenario **out)
{
    orca_sim_def def = orca_sim_def_default();
    return orca_scenario_create(&def, dt, seed, out);
}
int OW_EXPORT(ow_scenario_create_builtin)(int kind, int agent_count, uint64_t seed,
                                          orca_scenario **out)
{
    orca_sim_def def = orca_sim_def_default();
    return orca_scenario_create_builtin((orca_scene_kind)kind, agent_count, seed, &def, out);
}
void OW_EXPORT(ow_scenario_destroy)(orca_scenario *sc) { orca_scenario_destroy(sc); }
orca_sim *OW_EXPORT(ow_scenario_sim)(orca_scenario *sc) { return orca_scenario_sim(sc); }
const char *OW_EXPORT(ow_scenario_last_error)(const orca_scenario *sc)
{
    return orca_scenario_last_error(sc);
}
const char *OW_EXPORT(ow_scenario_name)(const orca_scenario *sc) { return orca_scenario_name(sc); }
int OW_EXPORT(ow_scenario_set_name)(orca_scenario *sc, const char *name)
{
    return orca_scenario_set_name(sc, name);
}
double OW_EXPORT(ow_scenario_dt)(const orca_scenario *sc) { return orca_scenario_dt(sc); }
uint64_t OW_EXPORT(ow_scenario_seed)(const orca_scenario *sc) { return orca_scenario_seed(sc); }

/* goal_set: the set's index for kind ORCA_GOAL_SET (ignored otherwise). */
int OW_EXPORT(ow_scenario_add_agent)(orca_scenario *sc, const double *w, int kind, double tx,
                                     double ty, double speed, int goal_set, uint32_t *out)
{
    orca_agent_def d = words_to_def(w);
    orca_goal g = orca_goal_default();
    g.kind = (orca_goal_kind)kind;
    g.target = (orca_vec2){tx, ty};
    g.preferred_speed = speed;
    g.goal_set = goal_set;
    orca_agent_id id = {0, 0, 0};
    orca_status st = orca_scenario_add_agent(sc, &d, &g, &id);
    put_id(out, id.slot, id.generation, id.sim);
    return st;
}
/* The agent at index gets a new goal (orca_scenario_set_agent_goal). */
int OW_EXPORT(ow_scenario_set_agent_goal)(orca_scenario *sc, int index, int kind, double tx,
                                          double ty, double speed, int goal_set)
{
    orca_goal g = orca_goal_default();
    g.kind = (orca_goal_kind)kind;
    g.target = (orca_vec2){tx, ty};
    g.preferred_speed = speed;
    g.goal_set = goal_set;
    return orca_scenario_set_agent_goal(sc, index, &g);
}
/* The goal of the agent at index: kind, target x y, preferred speed, start x y, and the goal
 * set's index (-1 unless kind is ORCA_GOAL_SET) into w. */
int OW_EXPORT(ow_scenario_agent_goal)(const orca_scenario *sc, int index, double *w)
{
    orca_goal g;
    orca_vec2 start;
    orca_status st = orca_scenario_agent_goal(sc, index, &g, &start);
    if (st == ORCA_OK) {
        w[0] = (double)g.kind;
        w[1] = g.target.x;
        w[2] = g.target.y;
        w[3] = g.preferred_speed;
        w[4] = start.x;
        w[5] = start.y;
        w[6] = g.kind == ORCA_GOAL_SET ? (double)g.goal_set : -1.0;
    }
    return st;
}
/* Waypoints (docs/extensions.md): xy holds count (x, y) pairs. */
int OW_EXPORT(ow_scenario_set_waypoints)(orca_scenario *sc, int index, const double *xy,
                                         int count, int loop, double arrive)
{
    return orca_scenario_set_waypoints(sc, index, (const orca_vec2 *)(const void *)xy, count,
                                       loop, arrive);
}
/* Up to capacity points into xy; info[0] the count, info[1] loop, info[2] the current
 * target; *arrive the arrive distance. */
int OW_EXPORT(ow_scenario_agent_waypoints)(const orca_scenario *sc, int index, double *xy,
                                           int capacity, int32_t *info, double *arrive)
{
    int count = 0, loop = 0, current = 0;
    orca_status st = orca_scenario_agent_waypoints(sc, index, (orca_vec2 *)(void *)xy, capacity,
                                                   &count, &loop, arrive);
    if (st == ORCA_OK) {
        st = orca_scenario_waypoint_index(sc, index, &current);
    }
    info[0] = count;
    info[1] = loop;
    info[2] = current;
    return st;
}
int OW_EXPORT(ow_scenario_set_waypoint_index)(orca_scenario *sc, int index, int current)
{
    return orca_scenario_set_waypoint_index(sc, index, current);
}
uint64_t OW_EXPORT(ow_scenario_hash)(const orca_scenario *sc) { return orca_scenario_hash(sc); }
/* The scenario's snapshot (orca_scenario_save; buffer 0: the size only). */
int OW_EXPORT(ow_scenario_save)(const orca_scenario *sc, void *buffer, size_t capacity,
                                size_t *size)
{
    return orca_scenario_save(sc, buffer, capacity, size);
}
int OW_EXPORT(ow_scenario_load)(orca_scenario *sc, const void *buffer, size_t size)
{
    return orca_scenario_load(sc, buffer, size);
}
int OW_EXPORT(ow_scenario_step)(orca_scenario *sc) { return orca_scenario_step(sc); }
int OW_EXPORT(ow_scenario_arrived_count)(const orca_scenario *sc)
{
    return orca_scenario_arrived_count(sc);
}
int64_t OW_EXPORT(ow_scenario_all_arrived_step)(const orca_scenario *sc)
{
    return orca_scenario_all_arrived_step(sc);
}
double OW_EXPORT(ow_scenario_max_agent_overlap)(const orca_scenario *sc)
{
    return orca_scenario_max_agent_overlap(sc);
}
double OW_EXPORT(ow_scenario_max_wall_overlap)(const orca_scenario *sc)
{
    return orca_scenario_max_wall_overlap(sc);
}
int OW_EXPORT(ow_scenario_set_recording)(orca_scenario *sc, int on)
{
    return orca_scenario_set_recording(sc, on);
}
uint64_t OW_EXPORT(ow_scenario_fallback_total)(const orca_scenario *sc)
{
    return orca_scenario_fallback_total(sc);
}

/* --- navigation (docs/navigation.md) --------------------------------------------------- */
/* Corners travel as orca_nav_corner structs in a block orca.mjs allocates (and checks):
 * vertex x y (f64 at 0, 8), side (i32 at 16), enter x y (f64 at 24, 32), leave x y (f64 at 40,
 * 48); 56 bytes each. */
_Static_assert(sizeof(orca_nav_corner) == 56 && offsetof(orca_nav_corner, side) == 16 &&
                   offsetof(orca_nav_corner, enter) == 24 && offsetof(orca_nav_corner, leave) == 40,
               "orca_nav_corner is 56 bytes: vertex, side, enter, leave");

int OW_EXPORT(ow_scenario_set_navigation)(orca_scenario *sc, int on)
{
    return orca_scenario_set_navigation(sc, on);
}
int OW_EXPORT(ow_scenario_get_navigation)(const orca_scenario *sc)
{
    return orca_scenario_get_navigation(sc);
}
int OW_EXPORT(ow_scenario_nav_unreachable)(const orca_scenario *sc)
{
    return orca_scenario_nav_unreachable(sc);
}
/* A goal set of count points (xy: x0 y0 x1 y1 ...), its index into *out; with exit, an exit
 * of arrive distance arrive. orca.mjs checks arrive first (orca_scenario_set_goal_set_exit's
 * range, 0 or [2^-30, 2^23] m, and message) so that a refusal adds nothing; a bad one here is
 * refused as well, before the set is added. */
int OW_EXPORT(ow_scenario_add_goal_set)(orca_scenario *sc, const char *name, const double *xy,
                                        int count, int exit, double arrive, int *out)
{
    *out = -1;
    if (exit && !(arrive == 0.0 || (arrive >= 0x1.0p-30 && arrive <= 0x1.0p23))) {
        return ORCA_ERR_ARGUMENT;
    }
    int index = -1;
    orca_status st = orca_scenario_add_goal_set(sc, name, (const orca_vec2 *)(const void *)xy,
                                                count, &index);
    if (st == ORCA_OK && exit) {
        st = orca_scenario_set_goal_set_exit(sc, index, arrive); /* checked above */
    }
    *out = index;
    return st;
}
int OW_EXPORT(ow_scenario_set_goal_set_exit)(orca_scenario *sc, int set, double arrive)
{
    return orca_scenario_set_goal_set_exit(sc, set, arrive);
}
int OW_EXPORT(ow_scenario_goal_set_count)(const orca_scenario *sc)
{
    return orca_scenario_goal_set_count(sc);
}
int OW_EXPORT(ow_scenario_goal_set_find)(const orca_scenario *sc, const char *name)
{
    return orca_scenario_goal_set_find(sc, name);
}
/* The set's name (NULL when set is out of range: then *count is -1), up to capacity points
 * into xy, info[0] its size, info[1] exit, *arrive the arrive distance. */
const char *OW_EXPORT(ow_scenario_goal_set_get)(const orca_scenario *sc, int set, double *xy,
                                                int capacity, int32_t *info, double *arrive)
{
    const char *name = NULL;
    int count = -1, exit = 0;
    orca_status st = orca_scenario_goal_set_get(sc, set, &name, (orca_vec2 *)(void *)xy,
                                                capacity, &count);
    if (st == ORCA_OK) {
        st = orca_scenario_goal_set_exit(sc, set, &exit, arrive);
    }
    info[0] = st == ORCA_OK ? count : -1;
    info[1] = exit;
    return st == ORCA_OK ? name : NULL;
}
/* w[0] agents that left by exits, w[1] the step of the last (-1: none). */
int OW_EXPORT(ow_scenario_exited)(const orca_scenario *sc, double *w)
{
    int count = 0;
    int64_t last = -1;
    orca_status st = orca_scenario_exited(sc, &count, &last);
    w[0] = (double)count;
    w[1] = (double)last;
    return st;
}
int OW_EXPORT(ow_scenario_set_nav_check)(orca_scenario *sc, int on)
{
    return orca_scenario_set_nav_check(sc, on);
}
int OW_EXPORT(ow_scenario_get_nav_check)(const orca_scenario *sc)
{
    return orca_scenario_get_nav_check(sc);
}
/* choice: orca_exit_choice (orca.mjs maps the names). */
int OW_EXPORT(ow_scenario_set_exit_choice)(orca_scenario *sc, int choice)
{
    return orca_scenario_set_exit_choice(sc, choice);
}
int OW_EXPORT(ow_scenario_get_exit_choice)(const orca_scenario *sc)
{
    return orca_scenario_get_exit_choice(sc);
}
int OW_EXPORT(ow_scenario_set_goal_set_capacity)(orca_scenario *sc, int set, double capacity)
{
    return orca_scenario_set_goal_set_capacity(sc, set, capacity);
}
int OW_EXPORT(ow_scenario_goal_set_capacity)(const orca_scenario *sc, int set, double *capacity)
{
    return orca_scenario_goal_set_capacity(sc, set, capacity);
}
/* w[0] agents that left by point `point` of exit set `set`, w[1] the step of the last (-1). */
int OW_EXPORT(ow_scenario_exit_departures)(const orca_scenario *sc, int set, int point, double *w)
{
    int count = 0;
    int64_t last = -1;
    orca_status st = orca_scenario_exit_departures(sc, set, point, &count, &last);
    w[0] = (double)count;
    w[1] = (double)last;
    return st;
}
/* orca_nav_counts into w[0 .. 10] in its field order (every count below 2^53). */
int OW_EXPORT(ow_scenario_nav_counts)(const orca_scenario *sc, double *w)
{
    orca_nav_counts c;
    orca_status st = orca_scenario_nav_counts(sc, &c);
    if (st == ORCA_OK) {
        w[0] = (double)c.plans;
        w[1] = (double)c.reroutes;
        w[2] = (double)c.replans;
        w[3] = (double)c.exit_changes;
        w[4] = (double)c.exit_returns;
        w[5] = (double)c.agents_changed;
        w[6] = (double)c.most_changes;
        w[7] = (double)c.exited;
        w[8] = (double)c.at_exits;
        w[9] = (double)c.arrived;
        w[10] = (double)c.unreachable;
    }
    return st;
}
/* One agent's navigation state into w: navigating, result, corner, corners, length, plans,
 * reroutes, goal x y; up to capacity corners into corners (56-byte structs, above). */
int OW_EXPORT(ow_scenario_agent_nav)(const orca_scenario *sc, int index, double *w,
                                     orca_nav_corner *corners, int capacity)
{
    orca_nav_agent a;
    orca_status st = orca_scenario_agent_nav(sc, index, &a, corners, capacity);
    if (st == ORCA_OK) {
        w[0] = (double)a.navigating;
        w[1] = (double)a.result;
        w[2] = (double)a.corner;
        w[3] = (double)a.corners;
        w[4] = a.length;
        w[5] = (double)a.plans;
        w[6] = (double)a.reroutes;
        w[7] = a.goal.x;
        w[8] = a.goal.y;
    }
    return st;
}

/* --- scene files (docs/scene-format.md): read from text, built, written to a buffer ------- */

int OW_EXPORT(ow_scene_file_read_text)(const char *text, size_t size, const char *name,
                                       orca_scene_file **out)
{
    return orca_scene_file_read_text(text, size, name, out);
}
void OW_EXPORT(ow_scene_file_destroy)(orca_scene_file *file) { orca_scene_file_destroy(file); }
/* file 0: the message of the last refused read or write. */
const char *OW_EXPORT(ow_scene_file_last_error)(const orca_scene_file *file)
{
    return orca_scene_file_last_error(file);
}
/* The scenario (one worker), dt and seed the file's unless use_dt / use_seed is 1, with the
 * pedestrian preset when pedestrian is 1 (orca_scene_build_def). */
int OW_EXPORT(ow_scene_file_build)(orca_scene_file *file, int use_dt, double dt, int use_seed,
                                   uint64_t seed, int pedestrian, orca_scenario **out)
{
    orca_scene_build_def def = orca_scene_build_def_default();
    def.use_dt = use_dt;
    def.dt = dt;
    def.use_seed = use_seed;
    def.seed = seed;
    def.pedestrian = pedestrian;
    return orca_scene_file_build(file, &def, out);
}
/* The scenario as scene-file text (buffer 0: the size only). */
int OW_EXPORT(ow_scene_file_write_text)(const orca_scenario *sc, const char *comment,
                                        char *buffer, size_t capacity, size_t *size)
{
    return orca_scene_file_write_text(sc, comment, buffer, capacity, size);
}

/* The path query (orca/nav.h) over the walls of a simulation. */
int OW_EXPORT(ow_nav_create)(const orca_sim *s, orca_nav **out) { return orca_nav_create(s, out); }
void OW_EXPORT(ow_nav_destroy)(orca_nav *nav) { orca_nav_destroy(nav); }
const char *OW_EXPORT(ow_nav_last_error)(const orca_nav *nav) { return orca_nav_last_error(nav); }
const char *OW_EXPORT(ow_nav_result_name)(int result) { return orca_nav_result_name(result); }
/* goals: count (x, y) pairs; w[0] result, w[1] length, w[2] goal index, w[3] corner count
 * (w[1..3] only for ORCA_NAV_OK); up to capacity corners into corners. */
int OW_EXPORT(ow_nav_path)(orca_nav *nav, double radius, double fx, double fy,
                           const double *goals, int count, double *w, orca_nav_corner *corners,
                           int capacity)
{
    orca_nav_result result = ORCA_NAV_NO_PATH;
    double length = 0.0;
    int index = -1, n = 0;
    orca_status st = orca_nav_path(nav, radius, (orca_vec2){fx, fy},
                                   (const orca_vec2 *)(const void *)goals, count, &result,
                                   &length, &index, corners, capacity, &n);
    w[0] = (double)result;
    w[1] = length;
    w[2] = (double)index;
    w[3] = (double)n;
    return st;
}
/* The graph for radius: walls, vertices, legs, bytes into w. */
int OW_EXPORT(ow_nav_stats)(orca_nav *nav, double radius, double *w)
{
    orca_nav_stats s;
    orca_status st = orca_nav_stats_get(nav, radius, &s);
    if (st == ORCA_OK) {
        w[0] = (double)s.walls;
        w[1] = (double)s.vertices;
        w[2] = (double)s.legs;
        w[3] = (double)s.bytes;
    }
    return st;
}
