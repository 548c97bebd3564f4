// SPDX-License-Identifier: MIT
// A scenario (orca/scenario.h): a simulation plus every agent's goal, the preferred-velocity
// rule, waypoints, goal sets and exits, navigation, the arrival record and snapshots; and the
// built-in scenes whose hashes test/golden/determinism.txt holds.
using System;

namespace Orca
{
    public sealed unsafe class Scenario : IDisposable
    {
        private readonly ScenarioHandle h_;
        private readonly Simulation sim_;

        private Scenario(ScenarioHandle h)
        {
            h_ = h;
            sim_ = new Simulation(new SimHandle(h, Native.orca_scenario_sim(h)), this);
        }

        private static SimDef Workers(int workerCount)
        {
            SimDef def = Native.orca_sim_def_default();
            def.WorkerCount = workerCount;
            return def;
        }

        private static ScenarioHandle Created(Status st, ScenarioHandle h)
        {
            if (st != Status.Ok) {
                throw new OrcaException(st, Native.Utf8(Native.orca_scenario_last_error_create(IntPtr.Zero)));
            }
            return h;
        }

        /// <summary>An empty scenario: step dt (s) and the seed of the preferred-velocity
        /// perturbation.</summary>
        public Scenario(double dt, ulong seed, int workerCount = 1)
            : this(CreateEmpty(dt, seed, workerCount))
        {
        }

        private static ScenarioHandle CreateEmpty(double dt, ulong seed, int workerCount)
        {
            SimDef def = Workers(workerCount);
            ScenarioHandle h;
            return Created(Native.orca_scenario_create(&def, dt, seed, out h), h);
        }

        /// <summary>A built-in scene (agentCount 0: the scene's default size; the scene may
        /// round it, docs/scenarios.md).</summary>
        public static Scenario Builtin(SceneKind kind, int agentCount, ulong seed, int workerCount = 1)
        {
            SimDef def = Workers(workerCount);
            ScenarioHandle h;
            return new Scenario(Created(Native.orca_scenario_create_builtin(kind, agentCount, seed, &def, out h), h));
        }

        /// <summary>A scene file (docs/scene-format.md) read and built by the library's reader,
        /// as `orca run FILE` does: the same scenario, to the same bits. dt and seed, when given,
        /// replace the file's (`orca run --dt`, `--seed`); pedestrian builds it with the
        /// pedestrian preset (`orca run --pedestrian`, docs/pedestrians.md). A bad file throws OrcaException with
        /// the message `orca run` prints ("scene.txt:12: radius must be > 0, got '-1'"): status
        /// Format for a bad line, Limit beyond the format's limits, Argument for a path that
        /// cannot be opened, IO for a failed read; a value only the simulation checks, its
        /// status and the line.</summary>
        public static Scenario FromSceneFile(string path, int workerCount = 1, double? dt = null, ulong? seed = null,
                                             bool pedestrian = false)
        {
            SceneFileHandle file;
            Status st = Native.orca_scene_file_read(Native.Utf8Z(path), out file);
            return Built(st, file, workerCount, dt, seed, pedestrian);
        }

        /// <summary>The same from the text of a scene file; name is what messages call it.
        /// </summary>
        public static Scenario FromSceneText(string text, string name = "<scene>", int workerCount = 1,
                                             double? dt = null, ulong? seed = null, bool pedestrian = false)
        {
            byte[] bytes = System.Text.Encoding.UTF8.GetBytes(text);
            SceneFileHandle file;
            Status st;
            fixed (byte* p = bytes) {
                st = Native.orca_scene_file_read_text(p, (UIntPtr)bytes.Length, Native.Utf8Z(name), out file);
            }
            return Built(st, file, workerCount, dt, seed, pedestrian);
        }

        private static Scenario Built(Status read, SceneFileHandle file, int workerCount, double? dt, ulong? seed,
                                      bool pedestrian)
        {
            using (file) {
                if (read != Status.Ok) {
                    throw new OrcaException(read, Native.Utf8(Native.orca_scene_file_last_error_read(IntPtr.Zero)));
                }
                SceneBuildDef def = Native.orca_scene_build_def_default();
                def.Sim = Workers(workerCount);
                def.UseDt = dt.HasValue ? 1 : 0;
                def.Dt = dt.GetValueOrDefault();
                def.UseSeed = seed.HasValue ? 1 : 0;
                def.Seed = seed.GetValueOrDefault();
                def.Pedestrian = pedestrian ? 1 : 0;
                ScenarioHandle h;
                Status st = Native.orca_scene_file_build(file, &def, out h);
                if (st != Status.Ok) {
                    throw new OrcaException(st, Native.Utf8(Native.orca_scene_file_last_error(file)));
                }
                return new Scenario(h);
            }
        }

        /// <summary>The scenario as the text of a scene file, as `orca scene` writes one;
        /// written before the first step it reads back (FromSceneText, `orca run`) as the same
        /// scenario. comment (may be null): a header comment line.</summary>
        public string ToSceneFile(string comment = null)
        {
            byte[] c = Native.Utf8Z(comment);
            UIntPtr size;
            WriteCheck(Native.orca_scene_file_write_text(h_, c, null, UIntPtr.Zero, &size));
            byte[] text = new byte[(long)size.ToUInt64() + 1];
            fixed (byte* p = text) {
                WriteCheck(Native.orca_scene_file_write_text(h_, c, p, (UIntPtr)text.Length, &size));
            }
            return System.Text.Encoding.UTF8.GetString(text, 0, text.Length - 1);
        }

        private static void WriteCheck(Status st)
        {
            if (st != Status.Ok) {
                throw new OrcaException(st, Native.Utf8(Native.orca_scene_file_last_error_read(IntPtr.Zero)));
            }
        }

        /// <summary>The raw handle, for the calls of <see cref="Native"/>.</summary>
        public ScenarioHandle Handle { get { return h_; } }

        /// <summary>Destroys the scenario and its simulation.</summary>
        public void Dispose()
        {
            sim_.Dispose();
            h_.Dispose();
        }

        private void Check(Status st)
        {
            if (st != Status.Ok) {
                throw new OrcaException(st, Native.Utf8(Native.orca_scenario_last_error(h_)));
            }
        }

        /// <summary>The simulation inside (owned by the scenario).</summary>
        public Simulation Simulation { get { return sim_; } }

        public string LastError { get { return Native.Utf8(Native.orca_scenario_last_error(h_)); } }

        /// <summary>"circle", ... or "custom".</summary>
        public string Name
        {
            get { return Native.Utf8(Native.orca_scenario_name(h_)); }
            set {
                Simulation.Need(value != null, Status.Null, "name is null");
                Check(Native.orca_scenario_set_name(h_, Native.Utf8Z(value)));
            }
        }

        public double Dt { get { return Native.orca_scenario_dt(h_); } }

        public ulong Seed { get { return Native.orca_scenario_seed(h_); } }

        /// <summary>Adds an agent with its goal (its position is its start).</summary>
        public AgentId AddAgent(AgentDef def, Goal goal)
        {
            AgentId id;
            Check(Native.orca_scenario_add_agent(h_, &def, &goal, &id));
            return id;
        }

        /// <summary>The goal and start of the agent at index.</summary>
        public Goal GetGoal(int index, out Vec2 start)
        {
            Goal g;
            Vec2 s;
            Check(Native.orca_scenario_agent_goal(h_, index, &g, &s));
            start = s;
            return g;
        }

        public Goal GetGoal(int index)
        {
            Vec2 start;
            return GetGoal(index, out start);
        }

        public void SetGoal(int index, Goal goal)
        {
            Check(Native.orca_scenario_set_agent_goal(h_, index, &goal));
        }

        /// <summary>Waypoints of the agent at index (docs/extensions.md, "Waypoints"); an empty
        /// array removes them. arriveDistance 0: the agent's radius.</summary>
        public void SetWaypoints(int index, Vec2[] points, bool loop, double arriveDistance)
        {
            Simulation.Need(points != null, Status.Null, "points is null");
            fixed (Vec2* p = points) {
                Check(Native.orca_scenario_set_waypoints(h_, index, p, points.Length, loop ? 1 : 0, arriveDistance));
            }
        }

        public Vec2[] GetWaypoints(int index, out bool loop, out double arriveDistance)
        {
            int n, l;
            double d;
            Check(Native.orca_scenario_agent_waypoints(h_, index, null, 0, &n, &l, &d));
            Vec2[] points = new Vec2[n];
            fixed (Vec2* p = points) {
                Check(Native.orca_scenario_agent_waypoints(h_, index, p, n, &n, &l, &d));
            }
            loop = l != 0;
            arriveDistance = d;
            return points;
        }

        /// <summary>The agent's current target: a waypoint index, or the waypoint count for
        /// the goal point.</summary>
        public int GetWaypointIndex(int index)
        {
            int c;
            Check(Native.orca_scenario_waypoint_index(h_, index, &c));
            return c;
        }

        public void SetWaypointIndex(int index, int current)
        {
            Check(Native.orca_scenario_set_waypoint_index(h_, index, current));
        }

        /// <summary>The scenario's state hash (the simulation's when no agent has waypoints).
        /// </summary>
        public ulong Hash { get { return Native.orca_scenario_hash(h_); } }

        public string HexHash { get { return Hash.ToString("x16"); } }

        /// <summary>Navigation around walls (docs/navigation.md).</summary>
        public bool Navigation
        {
            get { return Native.orca_scenario_get_navigation(h_) != 0; }
            set { Check(Native.orca_scenario_set_navigation(h_, value ? 1 : 0)); }
        }

        /// <summary>The pedestrian preset (orca_scenario_set_pedestrian; docs/pedestrians.md): the
        /// model on with p, goal-set agents without a stream given their set's index (and
        /// those added while it is on); null turns the model off.</summary>
        public void SetPedestrian(Pedestrian? p)
        {
            if (p.HasValue) {
                Pedestrian v = p.Value;
                Check(Native.orca_scenario_set_pedestrian(h_, &v));
            } else {
                Check(Native.orca_scenario_set_pedestrian(h_, null));
            }
        }

        /// <summary>The preset's agent and the free speed drawn for the agent AddAgent adds
        /// next (orca_scenario_pedestrian_agent).</summary>
        public AgentDef PedestrianAgent(out double freeSpeed)
        {
            AgentDef d;
            double v;
            Check(Native.orca_scenario_pedestrian_agent(h_, &d, &v));
            freeSpeed = v;
            return d;
        }

        /// <summary>Adds a named goal set; returns its index (for Goal.ToSet).</summary>
        public int AddGoalSet(string name, Vec2[] points)
        {
            Simulation.Need(name != null && points != null, Status.Null, "name or points is null");
            int index;
            fixed (Vec2* p = points) {
                Check(Native.orca_scenario_add_goal_set(h_, Native.Utf8Z(name), p, points.Length, &index));
            }
            return index;
        }

        /// <summary>Makes a goal set an exit (arriveDistance 0: the agent's radius).</summary>
        public void SetGoalSetExit(int set, double arriveDistance)
        {
            Check(Native.orca_scenario_set_goal_set_exit(h_, set, arriveDistance));
        }

        public bool GetGoalSetExit(int set, out double arriveDistance)
        {
            int exit;
            double d;
            Check(Native.orca_scenario_goal_set_exit(h_, set, &exit, &d));
            arriveDistance = d;
            return exit != 0;
        }

        /// <summary>Agents that left by exits, and the step at which the last left (-1).
        /// </summary>
        public int GetExited(out long lastStep)
        {
            int n;
            long last;
            Check(Native.orca_scenario_exited(h_, &n, &last));
            lastStep = last;
            return n;
        }

        public int GoalSetCount { get { return Native.orca_scenario_goal_set_count(h_); } }

        /// <summary>The index of the set called name, or -1.</summary>
        public int FindGoalSet(string name)
        {
            return Native.orca_scenario_goal_set_find(h_, Native.Utf8Z(name ?? ""));
        }

        public Vec2[] GetGoalSet(int set, out string name)
        {
            IntPtr s;
            int n;
            Check(Native.orca_scenario_goal_set_get(h_, set, &s, null, 0, &n));
            Vec2[] points = new Vec2[n];
            fixed (Vec2* p = points) {
                Check(Native.orca_scenario_goal_set_get(h_, set, &s, p, n, &n));
            }
            name = Native.Utf8(s);
            return points;
        }

        /// <summary>The navigation state of the agent at index, and its path's corners.
        /// </summary>
        public NavAgent GetNavigation(int index, out NavCorner[] corners)
        {
            NavAgent a;
            Check(Native.orca_scenario_agent_nav(h_, index, &a, null, 0));
            corners = new NavCorner[a.Corners];
            fixed (NavCorner* c = corners) {
                Check(Native.orca_scenario_agent_nav(h_, index, &a, c, corners.Length));
            }
            return a;
        }

        public int NavigationUnreachable { get { return Native.orca_scenario_nav_unreachable(h_); } }

        /// <summary>The leg check (orca_scenario_set_nav_check; docs/navigation.md): an agent
        /// whose last leg is blocked after it made no progress plans again. Off by default.
        /// </summary>
        public bool NavCheck
        {
            get { return Native.orca_scenario_get_nav_check(h_) != 0; }
            set { Check(Native.orca_scenario_set_nav_check(h_, value ? 1 : 0)); }
        }

        /// <summary>How goal-set agents choose their point (orca_scenario_set_exit_choice).
        /// </summary>
        public ExitChoice ExitChoice
        {
            get { return (ExitChoice)Native.orca_scenario_get_exit_choice(h_); }
            set { Check(Native.orca_scenario_set_exit_choice(h_, (int)value)); }
        }

        /// <summary>"nearest", "calm", "quickest" (orca_exit_choice_name); null for another
        /// value.</summary>
        public static string ExitChoiceName(ExitChoice choice)
        {
            IntPtr s = Native.orca_exit_choice_name((int)choice);
            return s == IntPtr.Zero ? null : Native.Utf8(s);
        }

        /// <summary>The choice of a name (orca_exit_choice_from_name); false when unknown.
        /// </summary>
        public static bool TryParseExitChoice(string name, out ExitChoice choice)
        {
            int c = Native.orca_exit_choice_from_name(Native.Utf8Z(name ?? ""));
            choice = c < 0 ? ExitChoice.Nearest : (ExitChoice)c;
            return c >= 0;
        }

        /// <summary>The capacity of each point of an exit set for the quickest choice, in
        /// agents a second (orca_scenario_set_goal_set_capacity).</summary>
        public void SetGoalSetCapacity(int set, double capacity)
        {
            Check(Native.orca_scenario_set_goal_set_capacity(h_, set, capacity));
        }

        public double GetGoalSetCapacity(int set)
        {
            double c;
            Check(Native.orca_scenario_goal_set_capacity(h_, set, &c));
            return c;
        }

        /// <summary>Agents that left by point `point` of exit set `set`, and the step at which
        /// the last of them left (-1 when none) (orca_scenario_exit_departures).</summary>
        public int GetExitDepartures(int set, int point, out long lastStep)
        {
            int n;
            long last;
            Check(Native.orca_scenario_exit_departures(h_, set, point, &n, &last));
            lastStep = last;
            return n;
        }

        /// <summary>Navigation's counts over the whole run (orca_scenario_nav_counts).
        /// </summary>
        public NavCounts NavCounts
        {
            get
            {
                NavCounts c;
                Check(Native.orca_scenario_nav_counts(h_, &c));
                return c;
            }
        }

        /// <summary>Sets every agent's preferred velocity by the rule, steps by Dt, records.
        /// </summary>
        public void Step()
        {
            Check(Native.orca_scenario_step(h_));
        }

        public void Step(int steps)
        {
            for (int i = 0; i < steps; ++i) {
                Check(Native.orca_scenario_step(h_));
            }
        }

        public int ArrivedCount { get { return Native.orca_scenario_arrived_count(h_); } }

        /// <summary>The step count at which all agents were first arrived, or -1.</summary>
        public long AllArrivedStep { get { return Native.orca_scenario_all_arrived_step(h_); } }

        public double MaxAgentOverlap { get { return Native.orca_scenario_max_agent_overlap(h_); } }

        public double MaxWallOverlap { get { return Native.orca_scenario_max_wall_overlap(h_); } }

        /// <summary>Recording of overlaps and arrivals after each step (on by default); off is
        /// what a benchmark times (the same bits).</summary>
        public bool Recording
        {
            set { Check(Native.orca_scenario_set_recording(h_, value ? 1 : 0)); }
        }

        public ulong FallbackTotal { get { return Native.orca_scenario_fallback_total(h_); } }

        /// <summary>A snapshot of the whole scenario (its simulation's inside).</summary>
        public byte[] Save()
        {
            return Native.Snapshot((buffer, capacity, size) => Native.orca_scenario_save(h_, buffer, capacity, size), Check);
        }

        /// <summary>Replaces the scenario's whole state with a snapshot (Status.Format for
        /// corrupt bytes; nothing changes then).</summary>
        public void Load(byte[] snapshot)
        {
            Simulation.Need(snapshot != null, Status.Null, "snapshot is null");
            fixed (byte* p = snapshot) {
                Check(Native.orca_scenario_load(h_, p, (UIntPtr)snapshot.Length));
            }
        }
    }
}
