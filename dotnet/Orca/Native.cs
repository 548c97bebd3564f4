// SPDX-License-Identifier: MIT
// The whole C API of include/orca/*.h as P/Invoke declarations, one for each ORCA_API
// function, named as in C (the test program checks the list against the headers). The types
// are the C types: pointers where C takes pointers (so arrays, spans and stack memory all
// pass without copying), the structs of Types.cs, and SafeHandles for the library's objects
// (SimHandle, ScenarioHandle, NavHandle), which free them when disposed or finalized.
// Strings that the library returns are IntPtr (the library owns them: Utf8() reads them);
// strings it takes are NUL-terminated UTF-8 bytes (Utf8Z() makes them).
//
// The library is found the ordinary way: DllImport("orca") loads liborca.so (Linux),
// liborca.dylib (macOS) or orca.dll (Windows) from the application's directory or the
// loader's path (docs/dotnet.md, "Install").
using System;
using System.Runtime.InteropServices;
using System.Text;

namespace Orca
{
    /// <summary>An orca_sim*. Disposing it destroys the simulation, unless it is a
    /// scenario's (orca_scenario_sim): then it holds a reference on the scenario, which is
    /// destroyed when both are released.</summary>
    public sealed class SimHandle : SafeHandle
    {
        private readonly SafeHandle owner_;

        public SimHandle() : base(IntPtr.Zero, true) { }

        /// <summary>The simulation of a scenario: keeps the scenario alive until released.
        /// </summary>
        internal SimHandle(ScenarioHandle owner, IntPtr sim) : base(IntPtr.Zero, true)
        {
            bool added = false;
            owner.DangerousAddRef(ref added);
            owner_ = owner;
            SetHandle(sim);
        }

        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }

        protected override bool ReleaseHandle()
        {
            if (owner_ != null) {
                owner_.DangerousRelease();
            } else {
                Native.orca_sim_destroy(handle);
            }
            return true;
        }
    }

    /// <summary>An orca_scenario*; disposing it destroys the scenario (and its simulation).
    /// </summary>
    public sealed class ScenarioHandle : SafeHandle
    {
        public ScenarioHandle() : base(IntPtr.Zero, true) { }

        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }

        protected override bool ReleaseHandle()
        {
            Native.orca_scenario_destroy(handle);
            return true;
        }
    }

    /// <summary>An orca_nav*. It reads the walls of its simulation, which it keeps alive
    /// (a reference on the SimHandle) until it is released.</summary>
    public sealed class NavHandle : SafeHandle
    {
        private SafeHandle sim_;

        public NavHandle() : base(IntPtr.Zero, true) { }

        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }

        /// <summary>Takes a reference on the simulation the object reads (after a successful
        /// orca_nav_create).</summary>
        public void HoldSimulation(SimHandle sim)
        {
            bool added = false;
            sim.DangerousAddRef(ref added);
            sim_ = sim;
        }

        protected override bool ReleaseHandle()
        {
            Native.orca_nav_destroy(handle);
            if (sim_ != null) {
                sim_.DangerousRelease();
            }
            return true;
        }
    }

    /// <summary>An orca_scene_file* (a parsed scene file); disposing it frees it (the
    /// scenarios built from it live on).</summary>
    public sealed class SceneFileHandle : SafeHandle
    {
        public SceneFileHandle() : base(IntPtr.Zero, true) { }

        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }

        protected override bool ReleaseHandle()
        {
            Native.orca_scene_file_destroy(handle);
            return true;
        }
    }

    /// <summary>A snapshot writer (orca_sim_save, orca_scenario_save) bound to its object.
    /// </summary>
    internal unsafe delegate Status SaveFn(byte* buffer, UIntPtr capacity, UIntPtr* size);

    /// <summary>orca_task_fn: process items [begin, end) as worker `worker`.</summary>
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    public delegate void TaskFn(int begin, int end, int worker, IntPtr taskContext);

    /// <summary>The raw C API (include/orca/*.h), one declaration per function.</summary>
    public static unsafe class Native
    {
        public const string Library = "orca";
        private const CallingConvention Cc = CallingConvention.Cdecl;

        /// <summary>A string the library returns (UTF-8, owned by the library).</summary>
        public static string Utf8(IntPtr s)
        {
            if (s == IntPtr.Zero) {
                return null;
            }
            int n = 0;
            while (Marshal.ReadByte(s, n) != 0) {
                ++n;
            }
            byte[] b = new byte[n];
            Marshal.Copy(s, b, 0, n);
            return Encoding.UTF8.GetString(b);
        }

        /// <summary>The bytes of a snapshot: its size first, then the snapshot (check throws on
        /// a refusal).</summary>
        internal static byte[] Snapshot(SaveFn save, Action<Status> check)
        {
            UIntPtr size;
            check(save(null, UIntPtr.Zero, &size));
            byte[] bytes = new byte[(long)size.ToUInt64()];
            fixed (byte* p = bytes) {
                check(save(p, size, &size));
            }
            return bytes;
        }

        /// <summary>A string for the library: UTF-8 and a terminating NUL (null for null).
        /// </summary>
        public static byte[] Utf8Z(string s)
        {
            if (s == null) {
                return null;
            }
            byte[] b = new byte[Encoding.UTF8.GetByteCount(s) + 1];
            Encoding.UTF8.GetBytes(s, 0, s.Length, b, 0);
            return b;
        }

        // --- version.h -----------------------------------------------------------------------
        [DllImport(Library, CallingConvention = Cc)] public static extern IntPtr orca_version();
        [DllImport(Library, CallingConvention = Cc)] public static extern int orca_bits_version();

        // --- base.h --------------------------------------------------------------------------
        [DllImport(Library, CallingConvention = Cc)] public static extern IntPtr orca_status_name(int status);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_set_allocator(Allocator* allocator);
        [DllImport(Library, CallingConvention = Cc)] public static extern Allocator orca_get_allocator();

        // --- solver.h ------------------------------------------------------------------------
        [DllImport(Library, CallingConvention = Cc)] public static extern double orca_halfplane_signed_distance(HalfPlane h, Vec2 v);
        [DllImport(Library, CallingConvention = Cc)] public static extern VelocityObstacle orca_vo_support(Vec2 a, Vec2 b, double r, double tau, Vec2 x);
        [DllImport(Library, CallingConvention = Cc)] public static extern VelocityObstacle orca_vo_overlap(Vec2 a, Vec2 b, double r, double dt, Vec2 x);
        [DllImport(Library, CallingConvention = Cc)] public static extern VoCases orca_vo_agent_cases(Vec2 a, double r, double tau, Vec2 x);
        [DllImport(Library, CallingConvention = Cc)] public static extern double orca_segment_distance_squared(Vec2 a, Vec2 b);
        [DllImport(Library, CallingConvention = Cc)] public static extern HalfPlane orca_constraint_agent(Vec2 relPos, double r, Vec2 va, Vec2 vb, double tau, double dt, ConstraintForm* form);
        [DllImport(Library, CallingConvention = Cc)] public static extern HalfPlane orca_constraint_agent_share(Vec2 relPos, double r, Vec2 va, Vec2 vb, double tau, double dt, double share, ConstraintForm* form);
        [DllImport(Library, CallingConvention = Cc)] public static extern HalfPlane orca_constraint_segment(Vec2 a, Vec2 b, double r, double tau, double dt, ConstraintForm* form);
        [DllImport(Library, CallingConvention = Cc)] public static extern int orca_constraint_boundary(Vec2 a, Vec2 b, double clearance, double tau, HalfPlane* out_);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_lp_solve(HalfPlane* planes, int count, double maxSpeed, Vec2 preferred, LpResult* out_);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_lp_solve_direction(HalfPlane* planes, int count, double maxSpeed, Vec2 direction, LpResult* out_);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_lp_fallback(HalfPlane* planes, int count, int hardCount, int failedIndex, double maxSpeed, HalfPlane* scratch, Vec2* velocity);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_solve(HalfPlane* planes, int count, int hardCount, double maxSpeed, Vec2 preferred, HalfPlane* scratch, SolveResult* out_);

        // --- sim.h: the object ---------------------------------------------------------------
        [DllImport(Library, CallingConvention = Cc)] public static extern AgentDef orca_agent_def_default();
        [DllImport(Library, CallingConvention = Cc)] public static extern SimDef orca_sim_def_default();
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_create(SimDef* def, out SimHandle out_);
        [DllImport(Library, CallingConvention = Cc)] public static extern void orca_sim_destroy(IntPtr sim);
        [DllImport(Library, CallingConvention = Cc)] public static extern uint orca_sim_id(SimHandle sim);
        [DllImport(Library, CallingConvention = Cc)] public static extern IntPtr orca_sim_last_error(SimHandle sim);
        /// <summary>orca_sim_last_error(NULL): the last refused orca_sim_create on this thread.
        /// </summary>
        [DllImport(Library, CallingConvention = Cc, EntryPoint = "orca_sim_last_error")] public static extern IntPtr orca_sim_last_error_create(IntPtr nullSim);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_set_worker_count(SimHandle sim, int workerCount);
        [DllImport(Library, CallingConvention = Cc)] public static extern int orca_sim_get_worker_count(SimHandle sim);
        [DllImport(Library, CallingConvention = Cc)] public static extern int orca_sim_set_vector_kernels(SimHandle sim, int on);
        [DllImport(Library, CallingConvention = Cc)] public static extern int orca_sim_get_vector_kernels(SimHandle sim);

        // --- sim.h: agents -------------------------------------------------------------------
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_add_agent(SimHandle sim, AgentDef* def, AgentId* out_);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_add_agents(SimHandle sim, AgentDef* defs, int count, AgentId* ids);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_remove_agent(SimHandle sim, AgentId id);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_remove_agents(SimHandle sim, AgentId* ids, int count);
        [DllImport(Library, CallingConvention = Cc)] public static extern int orca_sim_agent_count(SimHandle sim);
        [DllImport(Library, CallingConvention = Cc)] public static extern AgentId orca_sim_agent_at(SimHandle sim, int index);
        [DllImport(Library, CallingConvention = Cc)] public static extern int orca_sim_agent_index(SimHandle sim, AgentId id);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_agent_get(SimHandle sim, AgentId id, AgentDef* out_);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_agent_set(SimHandle sim, AgentId id, AgentDef* def);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_agent_set_position(SimHandle sim, AgentId id, Vec2 position);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_agent_set_velocity(SimHandle sim, AgentId id, Vec2 velocity);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_agent_set_preferred_velocity(SimHandle sim, AgentId id, Vec2 v);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_agent_get_position(SimHandle sim, AgentId id, Vec2* out_);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_agent_get_velocity(SimHandle sim, AgentId id, Vec2* out_);
        [DllImport(Library, CallingConvention = Cc)] public static extern Vec2* orca_sim_positions(SimHandle sim);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_swap_preferred_velocities(SimHandle sim, Vec2* v, int count);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_run_task(SimHandle sim, TaskFn fn, int count, IntPtr context);

        // --- sim.h: segments and boundaries --------------------------------------------------
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_add_segment(SimHandle sim, Vec2 a, Vec2 b, SegmentId* out_);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_add_polyline(SimHandle sim, Vec2* points, int count, int closed, SegmentId* ids);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_add_segments(SimHandle sim, Vec2* a, Vec2* b, int count, SegmentId* ids);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_remove_segment(SimHandle sim, SegmentId id);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_remove_segments(SimHandle sim, SegmentId* ids, int count);
        [DllImport(Library, CallingConvention = Cc)] public static extern int orca_sim_segment_count(SimHandle sim);
        [DllImport(Library, CallingConvention = Cc)] public static extern SegmentId orca_sim_segment_at(SimHandle sim, int index);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_segment_get(SimHandle sim, SegmentId id, Vec2* a, Vec2* b);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_add_boundary(SimHandle sim, Vec2* points, int count, BoundaryId* out_);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_remove_boundary(SimHandle sim, BoundaryId id);
        [DllImport(Library, CallingConvention = Cc)] public static extern int orca_sim_boundary_count(SimHandle sim);
        [DllImport(Library, CallingConvention = Cc)] public static extern BoundaryId orca_sim_boundary_at(SimHandle sim, int index);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_boundary_get(SimHandle sim, BoundaryId id, Vec2* points, int capacity, int* count);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_measure_boundary(SimHandle sim, double* deepest, int* outside);

        // --- sim.h: stepping and queries -----------------------------------------------------
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_step(SimHandle sim, double dt);
        [DllImport(Library, CallingConvention = Cc)] public static extern ulong orca_sim_step_count(SimHandle sim);
        [DllImport(Library, CallingConvention = Cc)] public static extern int orca_sim_last_fallback_count(SimHandle sim);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_agent_constraints(SimHandle sim, AgentId id, double dt, HalfPlane* planes, int capacity, int* count, int* hardCount);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_agent_neighbors(SimHandle sim, AgentId id, int* agents, int agentCapacity, int* agentCount, int* segments, int segmentCapacity, int* segmentCount);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_measure_overlap(SimHandle sim, double* agentOverlap, double* wallOverlap);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_query_radius(SimHandle sim, Vec2 center, double radius, int* indices, int capacity, int* count);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_query_nearest(SimHandle sim, Vec2 point, int k, int* indices, int* count);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_query_box(SimHandle sim, Vec2 lo, Vec2 hi, int* indices, int capacity, int* count);

        // --- sim.h: extensions ---------------------------------------------------------------
        [DllImport(Library, CallingConvention = Cc)] public static extern AgentAvoidance orca_agent_avoidance_default();
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_agent_set_avoidance(SimHandle sim, AgentId id, AgentAvoidance* avoidance);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_agent_get_avoidance(SimHandle sim, AgentId id, AgentAvoidance* out_);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_agent_set_priority(SimHandle sim, AgentId id, double priority);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_agent_set_layers(SimHandle sim, AgentId id, uint layers, uint mask);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_agent_set_locked(SimHandle sim, AgentId id, int locked);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_set_separation(SimHandle sim, int on);
        [DllImport(Library, CallingConvention = Cc)] public static extern int orca_sim_get_separation(SimHandle sim);
        [DllImport(Library, CallingConvention = Cc)] public static extern int orca_sim_separation_active(SimHandle sim);
        [DllImport(Library, CallingConvention = Cc)] public static extern DensitySpeed orca_density_speed_default();
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_set_density_speed(SimHandle sim, DensitySpeed* params_);
        [DllImport(Library, CallingConvention = Cc)] public static extern int orca_sim_get_density_speed(SimHandle sim, DensitySpeed* out_);
        [DllImport(Library, CallingConvention = Cc)] public static extern Pedestrian orca_pedestrian_default();
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_set_pedestrian(SimHandle sim, Pedestrian* params_);
        [DllImport(Library, CallingConvention = Cc)] public static extern int orca_sim_get_pedestrian(SimHandle sim, Pedestrian* out_);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_agent_set_stream(SimHandle sim, AgentId id, int stream);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_agent_get_stream(SimHandle sim, AgentId id, int* out_);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_set_diagnostics(SimHandle sim, int on);
        [DllImport(Library, CallingConvention = Cc)] public static extern int orca_sim_get_diagnostics(SimHandle sim);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_agent_get_diagnostics(SimHandle sim, AgentId id, AgentDiagnostics* out_);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_diagnostics(SimHandle sim, AgentDiagnostics* out_, int capacity, int* count);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_step_diagnostics(SimHandle sim, StepDiagnostics* out_);

        // --- sim.h: state --------------------------------------------------------------------
        [DllImport(Library, CallingConvention = Cc)] public static extern ulong orca_sim_hash(SimHandle sim);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_save(SimHandle sim, byte* buffer, UIntPtr capacity, UIntPtr* size);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_sim_load(SimHandle sim, byte* buffer, UIntPtr size);

        // --- scenario.h ----------------------------------------------------------------------
        [DllImport(Library, CallingConvention = Cc)] public static extern Goal orca_goal_default();
        [DllImport(Library, CallingConvention = Cc)] public static extern IntPtr orca_scene_name(SceneKind kind);
        [DllImport(Library, CallingConvention = Cc)] public static extern int orca_scene_from_name(byte[] name);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_create(SimDef* simDef, double dt, ulong seed, out ScenarioHandle out_);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_create_builtin(SceneKind kind, int agentCount, ulong seed, SimDef* simDef, out ScenarioHandle out_);
        [DllImport(Library, CallingConvention = Cc)] public static extern void orca_scenario_destroy(IntPtr sc);
        /// <summary>The scenario's simulation, owned by it (SimHandle's constructor for a
        /// scenario wraps it so that the scenario stays alive).</summary>
        [DllImport(Library, CallingConvention = Cc)] public static extern IntPtr orca_scenario_sim(ScenarioHandle sc);
        [DllImport(Library, CallingConvention = Cc)] public static extern IntPtr orca_scenario_last_error(ScenarioHandle sc);
        /// <summary>orca_scenario_last_error(NULL): the last refused scenario creation on this
        /// thread.</summary>
        [DllImport(Library, CallingConvention = Cc, EntryPoint = "orca_scenario_last_error")] public static extern IntPtr orca_scenario_last_error_create(IntPtr nullScenario);
        [DllImport(Library, CallingConvention = Cc)] public static extern IntPtr orca_scenario_name(ScenarioHandle sc);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_set_name(ScenarioHandle sc, byte[] name);
        [DllImport(Library, CallingConvention = Cc)] public static extern double orca_scenario_dt(ScenarioHandle sc);
        [DllImport(Library, CallingConvention = Cc)] public static extern ulong orca_scenario_seed(ScenarioHandle sc);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_add_agent(ScenarioHandle sc, AgentDef* def, Goal* goal, AgentId* out_);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_agent_goal(ScenarioHandle sc, int index, Goal* goal, Vec2* start);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_set_agent_goal(ScenarioHandle sc, int index, Goal* goal);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_set_waypoints(ScenarioHandle sc, int index, Vec2* points, int count, int loop, double arriveDistance);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_agent_waypoints(ScenarioHandle sc, int index, Vec2* points, int capacity, int* count, int* loop, double* arriveDistance);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_waypoint_index(ScenarioHandle sc, int index, int* current);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_set_waypoint_index(ScenarioHandle sc, int index, int current);
        [DllImport(Library, CallingConvention = Cc)] public static extern ulong orca_scenario_hash(ScenarioHandle sc);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_set_navigation(ScenarioHandle sc, int on);
        [DllImport(Library, CallingConvention = Cc)] public static extern int orca_scenario_get_navigation(ScenarioHandle sc);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_add_goal_set(ScenarioHandle sc, byte[] name, Vec2* points, int count, int* out_);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_set_goal_set_exit(ScenarioHandle sc, int set, double arriveDistance);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_goal_set_exit(ScenarioHandle sc, int set, int* exit, double* arriveDistance);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_exited(ScenarioHandle sc, int* count, long* lastStep);
        [DllImport(Library, CallingConvention = Cc)] public static extern int orca_scenario_goal_set_count(ScenarioHandle sc);
        [DllImport(Library, CallingConvention = Cc)] public static extern int orca_scenario_goal_set_find(ScenarioHandle sc, byte[] name);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_goal_set_get(ScenarioHandle sc, int set, IntPtr* name, Vec2* points, int capacity, int* count);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_agent_nav(ScenarioHandle sc, int index, NavAgent* out_, NavCorner* corners, int capacity);
        [DllImport(Library, CallingConvention = Cc)] public static extern int orca_scenario_nav_unreachable(ScenarioHandle sc);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_set_nav_check(ScenarioHandle sc, int on);
        [DllImport(Library, CallingConvention = Cc)] public static extern int orca_scenario_get_nav_check(ScenarioHandle sc);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_set_exit_choice(ScenarioHandle sc, int choice);
        [DllImport(Library, CallingConvention = Cc)] public static extern int orca_scenario_get_exit_choice(ScenarioHandle sc);
        [DllImport(Library, CallingConvention = Cc)] public static extern IntPtr orca_exit_choice_name(int choice);
        [DllImport(Library, CallingConvention = Cc)] public static extern int orca_exit_choice_from_name(byte[] name);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_exit_departures(ScenarioHandle sc, int set, int point, int* count, long* lastStep);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_set_goal_set_capacity(ScenarioHandle sc, int set, double capacity);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_goal_set_capacity(ScenarioHandle sc, int set, double* capacity);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_nav_counts(ScenarioHandle sc, NavCounts* out_);
        [DllImport(Library, CallingConvention = Cc)] public static extern AgentDef orca_pedestrian_agent_def();
        [DllImport(Library, CallingConvention = Cc)] public static extern double orca_pedestrian_free_speed(ulong seed, ulong key);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_pedestrian_agent(ScenarioHandle sc, AgentDef* def, double* freeSpeed);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_set_pedestrian(ScenarioHandle sc, Pedestrian* params_);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_step(ScenarioHandle sc);
        [DllImport(Library, CallingConvention = Cc)] public static extern int orca_scenario_arrived_count(ScenarioHandle sc);
        [DllImport(Library, CallingConvention = Cc)] public static extern long orca_scenario_all_arrived_step(ScenarioHandle sc);
        [DllImport(Library, CallingConvention = Cc)] public static extern double orca_scenario_max_agent_overlap(ScenarioHandle sc);
        [DllImport(Library, CallingConvention = Cc)] public static extern double orca_scenario_max_wall_overlap(ScenarioHandle sc);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_set_recording(ScenarioHandle sc, int on);
        [DllImport(Library, CallingConvention = Cc)] public static extern ulong orca_scenario_fallback_total(ScenarioHandle sc);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_save(ScenarioHandle sc, byte* buffer, UIntPtr capacity, UIntPtr* size);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scenario_load(ScenarioHandle sc, byte* buffer, UIntPtr size);
        [DllImport(Library, CallingConvention = Cc)] public static extern void orca_sincos_turns(double turns, out double sine, out double cosine);

        // --- nav.h ---------------------------------------------------------------------------
        [DllImport(Library, CallingConvention = Cc)] public static extern IntPtr orca_nav_result_name(int result);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_nav_create(SimHandle sim, out NavHandle out_);
        [DllImport(Library, CallingConvention = Cc)] public static extern void orca_nav_destroy(IntPtr nav);
        [DllImport(Library, CallingConvention = Cc)] public static extern IntPtr orca_nav_last_error(NavHandle nav);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_nav_path(NavHandle nav, double radius, Vec2 from, Vec2* goals, int goalCount, NavResult* result, double* length, int* goalIndex, NavCorner* corners, int capacity, int* count);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_nav_visible(NavHandle nav, double radius, Vec2 a, Vec2 b, int* visible);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_nav_stats_get(NavHandle nav, double radius, NavStats* out_);
        [DllImport(Library, CallingConvention = Cc)] public static extern double orca_nav_angle(double y, double x);

        // --- scene_file.h: scene files (docs/scene-format.md) ---------------------------------
        // stream is a C FILE* (from the C runtime the library uses); the others take a path or
        // text. A refused read: orca_scene_file_last_error_read(IntPtr.Zero).
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scene_file_read(byte[] path, out SceneFileHandle out_);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scene_file_read_stream(IntPtr stream, byte[] name, out SceneFileHandle out_);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scene_file_read_text(byte* text, UIntPtr size, byte[] name, out SceneFileHandle out_);
        [DllImport(Library, CallingConvention = Cc)] public static extern void orca_scene_file_destroy(IntPtr file);
        [DllImport(Library, CallingConvention = Cc)] public static extern IntPtr orca_scene_file_last_error(SceneFileHandle file);
        /// <summary>orca_scene_file_last_error(NULL): the last refused read or write on this
        /// thread.</summary>
        [DllImport(Library, CallingConvention = Cc, EntryPoint = "orca_scene_file_last_error")] public static extern IntPtr orca_scene_file_last_error_read(IntPtr nullFile);
        [DllImport(Library, CallingConvention = Cc)] public static extern int orca_scene_file_agent_line(SceneFileHandle file, int index);
        [DllImport(Library, CallingConvention = Cc)] public static extern SceneBuildDef orca_scene_build_def_default();
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scene_file_build(SceneFileHandle file, SceneBuildDef* def, out ScenarioHandle out_);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scene_file_write(IntPtr stream, ScenarioHandle sc, byte[] comment);
        [DllImport(Library, CallingConvention = Cc)] public static extern Status orca_scene_file_write_text(ScenarioHandle sc, byte[] comment, byte* buffer, UIntPtr capacity, UIntPtr* size);
    }
}
