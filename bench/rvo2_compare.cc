// SPDX-License-Identifier: MIT
// The RVO2 side of docs/performance.md's comparison, built by scripts/compare-rvo2.sh
// against an RVO2 checkout (this file holds no RVO2 code; RVO2 is not part of orca). Times RVO2 on a built-in
// scene of orca without walls (random by default, the scene `orca bench` times): the starts,
// goals, agent parameters and dt come from liborca (orca_scenario_create_builtin, seed X),
// converted to float (random: dt 0.25, neighbour distance 15, 10 neighbours, both horizons 10,
// radius 1.5, max speed 2, preferred speed 1). The preferred velocity points to the goal at
// the preferred speed (to/dt within one step of it) and is set every step inside the timed
// loop (orca times its rule too; orca's 1e-4 perturbation is left out). The method is orca bench's: build, W warm-up steps, save the
// positions and velocities; each timed run restores them (not timed) and times S steps with a
// monotonic clock.
//   rvo2_compare N [scene NAME] [steps S] [warmup W] [runs R] [seed X] [morton] [callgrind]
//                  [cpu] [orca]
// S defaults to orca bench's (2000000/N clamped to 10..200), W to 20, R to 5. morton: agents
// are added in Morton (Z) order of their starts (RVO2 allocates agents in the order they are
// added; in index order, neighbours are scattered over memory). callgrind: no timing;
// instrumentation and collection only during the S steps after the warm-up (run it under
// valgrind --tool=callgrind --instr-atstart=no --collect-atstart=no). cpu: time with the
// process's CPU-time clock instead of the monotonic clock (on a shared machine, the time the
// process was not running is left out). orca: time orca instead, exactly as `orca bench
// --workers 1` does (orca_sim_save after the warm-up, orca_sim_load before each run), so that
// both can be timed with the CPU-time clock.
#include <orca/orca.h>
#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif
#ifndef CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include "RVOSimulator.h"

static bool cpu_clock = false;

static double now() {
  struct timespec ts;
  clock_gettime(cpu_clock ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static unsigned long long spread(unsigned v) {
  unsigned long long x = v;
  x = (x | (x << 16)) & 0x0000FFFF0000FFFFULL;
  x = (x | (x << 8)) & 0x00FF00FF00FF00FFULL;
  x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FULL;
  x = (x | (x << 2)) & 0x3333333333333333ULL;
  x = (x | (x << 1)) & 0x5555555555555555ULL;
  return x;
}

struct Key {
  unsigned long long code;
  int index;
  bool operator<(const Key &o) const { return code != o.code ? code < o.code : index < o.index; }
};

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: rvo2_compare N [scene NAME] [steps S] [warmup W] [runs R] [seed X] [morton] [callgrind]\n");
    return 2;
  }
  int n = std::atoi(argv[1]);
  long steps = -1, warmup = 20, runs = 5;
  unsigned long long seed = 1;
  bool morton = false, cg = false, orca = false;
  const char *scene = "random";
  for (int a = 2; a < argc; ++a) {
    if (!std::strcmp(argv[a], "scene") && a + 1 < argc) scene = argv[++a];
    else if (!std::strcmp(argv[a], "steps") && a + 1 < argc) steps = std::atol(argv[++a]);
    else if (!std::strcmp(argv[a], "warmup") && a + 1 < argc) warmup = std::atol(argv[++a]);
    else if (!std::strcmp(argv[a], "runs") && a + 1 < argc) runs = std::atol(argv[++a]);
    else if (!std::strcmp(argv[a], "seed") && a + 1 < argc) seed = std::strtoull(argv[++a], 0, 10);
    else if (!std::strcmp(argv[a], "morton")) morton = true;
    else if (!std::strcmp(argv[a], "callgrind")) cg = true;
    else if (!std::strcmp(argv[a], "cpu")) cpu_clock = true;
    else if (!std::strcmp(argv[a], "orca")) orca = true;
    else { std::fprintf(stderr, "rvo2_compare: unknown argument %s\n", argv[a]); return 2; }
  }
  if (steps < 0) {  // orca bench's default: 2000000 / agents, clamped to 10..200
    steps = 2000000L / n;
    steps = steps < 10 ? 10 : steps > 200 ? 200 : steps;
  }

  orca_scenario *sc = 0;
  int kind = orca_scene_from_name(scene);
  if (kind < 0 || orca_scenario_create_builtin((orca_scene_kind)kind, n, seed, 0, &sc) != ORCA_OK) {
    std::fprintf(stderr, "rvo2_compare: cannot build the scene %s with %d agents\n", scene, n);
    return 1;
  }
  orca_sim *osim = orca_scenario_sim(sc);
  if (orca) {
    n = orca_sim_agent_count(osim);
    orca_scenario_set_recording(sc, 0);
    for (long k = 0; k < warmup; ++k) orca_scenario_step(sc);
    size_t size = 0;
    orca_sim_save(osim, 0, 0, &size);
    std::vector<unsigned char> snap(size);
    if (orca_sim_save(osim, &snap[0], size, &size) != ORCA_OK) return 1;
    std::printf("orca %s %s n=%d steps=%ld warmup=%ld:", scene, cpu_clock ? "cpu" : "wall", n, steps, warmup);
    std::vector<double> rates;
    for (long r = 0; r < runs; ++r) {
      if (orca_sim_load(osim, &snap[0], size) != ORCA_OK) return 1;
      double t0 = now();
      for (long k = 0; k < steps; ++k) orca_scenario_step(sc);
      double t1 = now();
      rates.push_back((double)n * steps / (t1 - t0));
      std::printf(" %.4f", rates.back() / 1e6);
    }
    std::sort(rates.begin(), rates.end());
    std::printf(" M/s; median %.4f M/s; hash %016llx\n", rates[rates.size() / 2] / 1e6,
                (unsigned long long)orca_sim_hash(osim));
    orca_scenario_destroy(sc);
    return 0;
  }
  if (orca_sim_segment_count(osim) != 0) {
    std::fprintf(stderr, "rvo2_compare: scene %s has walls (not supported here)\n", scene);
    return 1;
  }
  n = orca_sim_agent_count(osim);
  const float dt = (float)orca_scenario_dt(sc);
  std::vector<orca_vec2> start(n), goal(n);
  std::vector<orca_agent_def> def(n);
  std::vector<float> speed(n);
  for (int i = 0; i < n; ++i) {
    orca_goal g;
    if (orca_scenario_agent_goal(sc, i, &g, &start[i]) != ORCA_OK || g.kind != ORCA_GOAL_POINT ||
        orca_agent_get(osim, orca_sim_agent_at(osim, i), &def[i]) != ORCA_OK) {
      std::fprintf(stderr, "rvo2_compare: agent %d of scene %s is not a point-goal agent\n", i, scene);
      return 1;
    }
    goal[i] = g.target;
    speed[i] = (float)g.preferred_speed;
  }
  orca_scenario_destroy(sc);

  std::vector<int> order(n);
  for (int i = 0; i < n; ++i) order[i] = i;
  if (morton) {
    double lo = start[0].x, hi = start[0].x;  // the bounding square of the starts
    for (int i = 0; i < n; ++i) {
      lo = std::min(lo, std::min(start[i].x, start[i].y));
      hi = std::max(hi, std::max(start[i].x, start[i].y));
    }
    double side = hi > lo ? hi - lo : 1.0;
    std::vector<Key> keys(n);
    for (int i = 0; i < n; ++i) {
      double fx = (start[i].x - lo) / side, fy = (start[i].y - lo) / side;
      unsigned qx = (unsigned)std::min(65535.0, std::max(0.0, fx * 65536.0));
      unsigned qy = (unsigned)std::min(65535.0, std::max(0.0, fy * 65536.0));
      keys[i].code = spread(qx) | (spread(qy) << 1);
      keys[i].index = i;
    }
    std::sort(keys.begin(), keys.end());
    for (int i = 0; i < n; ++i) order[i] = keys[i].index;
  }

  RVO::RVOSimulator sim;
  sim.setTimeStep(dt);
  std::vector<RVO::Vector2> goals(n);
  std::vector<float> speeds(n);
  for (int k = 0; k < n; ++k) {
    int i = order[k];
    const orca_agent_def &d = def[i];
    sim.addAgent(RVO::Vector2((float)start[i].x, (float)start[i].y), (float)d.neighbor_dist,
                 (size_t)d.max_neighbors, (float)d.time_horizon, (float)d.obstacle_time_horizon,
                 (float)d.radius, (float)d.max_speed,
                 RVO::Vector2((float)d.velocity.x, (float)d.velocity.y));
    goals[k] = RVO::Vector2((float)goal[i].x, (float)goal[i].y);
    speeds[k] = speed[i];
  }

  struct Stepper {
    static void step(RVO::RVOSimulator &s, const std::vector<RVO::Vector2> &g,
                     const std::vector<float> &speed, float dt) {
      const int m = (int)g.size();
      for (int i = 0; i < m; ++i) {
        RVO::Vector2 to = g[i] - s.getAgentPosition(i);
        float dist = RVO::abs(to);
        s.setAgentPrefVelocity(i, dist > speed[i] * dt ? to * (speed[i] / dist) : to / dt);
      }
      s.doStep();
    }
  };

  for (long k = 0; k < warmup; ++k) Stepper::step(sim, goals, speeds, dt);

  if (cg) {
    CALLGRIND_START_INSTRUMENTATION;
    CALLGRIND_TOGGLE_COLLECT;
    for (long k = 0; k < steps; ++k) Stepper::step(sim, goals, speeds, dt);
    CALLGRIND_TOGGLE_COLLECT;
    CALLGRIND_STOP_INSTRUMENTATION;
    std::printf("%d\n", n);
    return 0;
  }

  std::vector<RVO::Vector2> pos(n), vel(n);
  for (int i = 0; i < n; ++i) {
    pos[i] = sim.getAgentPosition(i);
    vel[i] = sim.getAgentVelocity(i);
  }
  std::printf("rvo2 %s %s %s n=%d steps=%ld warmup=%ld:", scene, morton ? "morton" : "index", cpu_clock ? "cpu" : "wall", n, steps, warmup);
  std::vector<double> rates;
  double checksum = 0;
  for (long r = 0; r < runs; ++r) {
    for (int i = 0; i < n; ++i) {
      sim.setAgentPosition(i, pos[i]);
      sim.setAgentVelocity(i, vel[i]);
    }
    double t0 = now();
    for (long k = 0; k < steps; ++k) Stepper::step(sim, goals, speeds, dt);
    double t1 = now();
    rates.push_back((double)n * steps / (t1 - t0));
    std::printf(" %.4f", rates.back() / 1e6);
    double c = 0;
    for (int i = 0; i < n; ++i) c += sim.getAgentPosition(i).x() + sim.getAgentPosition(i).y();
    if (r == 0) checksum = c;
    else if (c != checksum) std::printf("(differs)");
  }
  std::sort(rates.begin(), rates.end());
  // mean speed after the run, a sanity figure
  double ms = 0;
  for (int i = 0; i < n; ++i) ms += RVO::abs(sim.getAgentVelocity(i));
  std::printf(" M/s; median %.4f M/s; mean speed %.3f m/s\n", rates[rates.size() / 2] / 1e6, ms / n);
  return 0;
}
