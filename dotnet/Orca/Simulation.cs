// SPDX-License-Identifier: MIT
// A simulation (orca/sim.h): agents, segments, walkable-area boundaries, the step, the
// extensions, the queries and the state, as a disposable object with properties. Every
// refusal of the library throws OrcaException with its status and message, and leaves the
// simulation as it was. Used from one thread at a time (its own workers aside), as in C.
//
// Bulk calls: positions are read from the library's array in one copy (orca_sim_positions);
// preferred velocities are set in one call (orca_sim_swap_preferred_velocities, through a
// scratch array so that the caller's array is left as it was) and read with two such swaps.
// The C API has no bulk call for velocities or for setting positions: those go agent by agent
// (docs/dotnet.md, "Bulk calls").
using System;
using System.Runtime.InteropServices;

namespace Orca
{
    public sealed unsafe class Simulation : IDisposable
    {
        private readonly SimHandle h_;
        private readonly Scenario scenario_; // the owner of a scenario's simulation
        private Vec2[] scratch_ = new Vec2[0];

        /// <summary>A new empty simulation with workerCount threads of the built-in pool
        /// (1..64; the results do not depend on it).</summary>
        public Simulation(int workerCount = 1)
        {
            SimDef def = Native.orca_sim_def_default();
            def.WorkerCount = workerCount;
            SimHandle h;
            Status st = Native.orca_sim_create(&def, out h);
            if (st != Status.Ok) {
                throw new OrcaException(st, Native.Utf8(Native.orca_sim_last_error_create(IntPtr.Zero)));
            }
            h_ = h;
        }

        /// <summary>A simulation over a handle (the raw API's, or a scenario's).</summary>
        internal Simulation(SimHandle handle, Scenario scenario)
        {
            h_ = handle;
            scenario_ = scenario;
        }

        /// <summary>The raw handle, for the calls of <see cref="Native"/>.</summary>
        public SimHandle Handle { get { return h_; } }

        /// <summary>The scenario this simulation belongs to, or null.</summary>
        public Scenario Scenario { get { return scenario_; } }

        /// <summary>Destroys the simulation (a scenario's is destroyed with its scenario).
        /// </summary>
        public void Dispose()
        {
            h_.Dispose();
        }

        internal void Check(Status st)
        {
            if (st != Status.Ok) {
                throw new OrcaException(st, Native.Utf8(Native.orca_sim_last_error(h_)));
            }
        }

        internal static void Need(bool ok, Status st, string message)
        {
            if (!ok) {
                throw new OrcaException(st, message);
            }
        }

        /// <summary>The message of the last refused call ("" if none).</summary>
        public string LastError { get { return Native.Utf8(Native.orca_sim_last_error(h_)); } }

        /// <summary>The identity every handle of this simulation carries.</summary>
        public uint Id { get { return Native.orca_sim_id(h_); } }

        public int WorkerCount
        {
            get { return Native.orca_sim_get_worker_count(h_); }
            set { Check(Native.orca_sim_set_worker_count(h_, value)); }
        }

        /// <summary>The AVX2 kernels (same bits either way); setting true uses them where the
        /// CPU has them.</summary>
        public bool VectorKernels
        {
            get { return Native.orca_sim_get_vector_kernels(h_) != 0; }
            set { Native.orca_sim_set_vector_kernels(h_, value ? 1 : 0); }
        }

        // --- agents --------------------------------------------------------------------------

        public AgentId AddAgent(AgentDef def)
        {
            AgentId id;
            Check(Native.orca_sim_add_agent(h_, &def, &id));
            return id;
        }

        /// <summary>An agent with the library's defaults at position.</summary>
        public AgentId AddAgent(Vec2 position)
        {
            return AddAgent(AgentDef.At(position));
        }

        /// <summary>Adds the agents in order (as one AddAgent each); every definition is
        /// checked first: on a refusal (naming defs[k]) none is added.</summary>
        public AgentId[] AddAgents(AgentDef[] defs)
        {
            Need(defs != null, Status.Null, "defs is null");
            AgentId[] ids = new AgentId[defs.Length];
            fixed (AgentDef* d = defs)
            fixed (AgentId* o = ids) {
                Check(Native.orca_sim_add_agents(h_, d, defs.Length, o));
            }
            return ids;
        }

        public void RemoveAgent(AgentId id)
        {
            Check(Native.orca_sim_remove_agent(h_, id));
        }

        /// <summary>Removes the agents; every handle is checked first (stale, foreign or
        /// listed twice: refused, nothing removed).</summary>
        public void RemoveAgents(AgentId[] ids)
        {
            Need(ids != null, Status.Null, "ids is null");
            fixed (AgentId* p = ids) {
                Check(Native.orca_sim_remove_agents(h_, p, ids.Length));
            }
        }

        public int AgentCount { get { return Native.orca_sim_agent_count(h_); } }

        /// <summary>The handle of the agent at index, in index order (null handle when out of
        /// range).</summary>
        public AgentId AgentAt(int index)
        {
            return Native.orca_sim_agent_at(h_, index);
        }

        /// <summary>The index of a live agent, or -1 (stale, or another simulation's).</summary>
        public int AgentIndex(AgentId id)
        {
            return Native.orca_sim_agent_index(h_, id);
        }

        public AgentDef GetAgent(AgentId id)
        {
            AgentDef d;
            Check(Native.orca_agent_get(h_, id, &d));
            return d;
        }

        /// <summary>Replaces every field of the agent after validating them all.</summary>
        public void SetAgent(AgentId id, AgentDef def)
        {
            Check(Native.orca_agent_set(h_, id, &def));
        }

        public Vec2 GetPosition(AgentId id)
        {
            Vec2 v;
            Check(Native.orca_agent_get_position(h_, id, &v));
            return v;
        }

        public void SetPosition(AgentId id, Vec2 position)
        {
            Check(Native.orca_agent_set_position(h_, id, position));
        }

        public Vec2 GetVelocity(AgentId id)
        {
            Vec2 v;
            Check(Native.orca_agent_get_velocity(h_, id, &v));
            return v;
        }

        public void SetVelocity(AgentId id, Vec2 velocity)
        {
            Check(Native.orca_agent_set_velocity(h_, id, velocity));
        }

        public Vec2 GetPreferredVelocity(AgentId id)
        {
            return GetAgent(id).PreferredVelocity;
        }

        public void SetPreferredVelocity(AgentId id, Vec2 velocity)
        {
            Check(Native.orca_agent_set_preferred_velocity(h_, id, velocity));
        }

        // --- bulk: positions, velocities, preferred velocities (index order) ------------------

        private static void NeedRoom(int length, int count, string what)
        {
            Need(length >= count, Status.Argument,
                 what + " holds " + length + " entries; the simulation has " + count + " agents");
        }

        private void CopyPositions(Vec2* dest, int length)
        {
            int n = AgentCount;
            NeedRoom(length, n, "positions");
            Vec2* src = Native.orca_sim_positions(h_);
            if (n > 0) {
                Buffer.MemoryCopy(src, dest, (long)length * sizeof(Vec2), (long)n * sizeof(Vec2));
            }
        }

        /// <summary>Every agent's position, in index order, into dest[0 .. AgentCount).
        /// </summary>
        public void GetPositions(Vec2[] dest)
        {
            Need(dest != null, Status.Null, "positions is null");
            fixed (Vec2* p = dest) {
                CopyPositions(p, dest.Length);
            }
        }

        public Vec2[] GetPositions()
        {
            Vec2[] a = new Vec2[AgentCount];
            GetPositions(a);
            return a;
        }

        /// <summary>The positions rounded to floats (for a float-state application).</summary>
        public void GetPositions(System.Numerics.Vector2[] dest)
        {
            Need(dest != null, Status.Null, "positions is null");
            int n = AgentCount;
            NeedRoom(dest.Length, n, "positions");
            Vec2* src = Native.orca_sim_positions(h_);
            for (int i = 0; i < n; ++i) {
                dest[i] = new System.Numerics.Vector2((float)src[i].X, (float)src[i].Y);
            }
        }

        /// <summary>Every agent's velocity in index order. The C API has no bulk call for
        /// velocities: this is one orca_agent_get_velocity per agent.</summary>
        public void GetVelocities(Vec2[] dest)
        {
            Need(dest != null, Status.Null, "velocities is null");
            int n = AgentCount;
            NeedRoom(dest.Length, n, "velocities");
            for (int i = 0; i < n; ++i) {
                dest[i] = GetVelocity(AgentAt(i));
            }
        }

        /// <summary>Exchanges the preferred velocities of all agents with v (raw speed: no
        /// copy): afterwards the simulation has v's values and v the previous ones. v must
        /// hold exactly AgentCount entries.</summary>
        public void SwapPreferredVelocities(Vec2[] v)
        {
            Need(v != null, Status.Null, "preferred velocities is null");
            fixed (Vec2* p = v) {
                Check(Native.orca_sim_swap_preferred_velocities(h_, p, v.Length));
            }
        }

        private void Scratch(int n)
        {
            if (scratch_.Length < n) {
                scratch_ = new Vec2[n];
            }
        }

        /// <summary>Sets every agent's preferred velocity (index order) from v[0 .. count);
        /// v must hold exactly AgentCount entries and is left as it was.</summary>
        public void SetPreferredVelocities(Vec2[] v)
        {
            Need(v != null, Status.Null, "preferred velocities is null");
            Scratch(v.Length);
            fixed (Vec2* src = v)
            fixed (Vec2* s = scratch_) {
                if (v.Length > 0) {
                    Buffer.MemoryCopy(src, s, (long)scratch_.Length * sizeof(Vec2), (long)v.Length * sizeof(Vec2));
                }
                Check(Native.orca_sim_swap_preferred_velocities(h_, s, v.Length));
            }
        }

        /// <summary>The same from float vectors (widened exactly).</summary>
        public void SetPreferredVelocities(System.Numerics.Vector2[] v)
        {
            Need(v != null, Status.Null, "preferred velocities is null");
            Scratch(v.Length);
            for (int i = 0; i < v.Length; ++i) {
                scratch_[i] = new Vec2(v[i].X, v[i].Y);
            }
            fixed (Vec2* s = scratch_) {
                Check(Native.orca_sim_swap_preferred_velocities(h_, s, v.Length));
            }
        }

        /// <summary>Every agent's preferred velocity in index order (two swaps: the values
        /// are exchanged out and back).</summary>
        public void GetPreferredVelocities(Vec2[] dest)
        {
            Need(dest != null, Status.Null, "preferred velocities is null");
            int n = AgentCount;
            NeedRoom(dest.Length, n, "preferred velocities");
            Scratch(n);
            fixed (Vec2* s = scratch_)
            fixed (Vec2* d = dest) {
                for (int i = 0; i < n; ++i) {
                    s[i] = new Vec2(0, 0);
                }
                Check(Native.orca_sim_swap_preferred_velocities(h_, s, n));
                if (n > 0) {
                    Buffer.MemoryCopy(s, d, (long)dest.Length * sizeof(Vec2), (long)n * sizeof(Vec2));
                }
                Check(Native.orca_sim_swap_preferred_velocities(h_, s, n));
            }
        }

#if !ORCA_NO_SPAN
        /// <summary>Positions into a span (stack or native memory as well as arrays).</summary>
        public void GetPositions(Span<Vec2> dest)
        {
            fixed (Vec2* p = &MemoryMarshal.GetReference(dest)) {
                CopyPositions(p, dest.Length);
            }
        }

        /// <summary>Exchanges preferred velocities with a span (see the array overload).
        /// </summary>
        public void SwapPreferredVelocities(Span<Vec2> v)
        {
            fixed (Vec2* p = &MemoryMarshal.GetReference(v)) {
                Check(Native.orca_sim_swap_preferred_velocities(h_, p, v.Length));
            }
        }
#endif

        /// <summary>Runs body(begin, end, worker) over [0, count) on the simulation's workers,
        /// split as for a step; body must write only its own items.</summary>
        public void RunTask(int count, Action<int, int, int> body)
        {
            Need(body != null, Status.Null, "body is null");
            Exception failure = null;
            TaskFn fn = (b, e, w, c) => {
                try {
                    body(b, e, w);
                } catch (Exception ex) {
                    failure = ex; // an exception must not unwind through the library's frames
                }
            };
            Status st = Native.orca_sim_run_task(h_, fn, count, IntPtr.Zero);
            GC.KeepAlive(fn);
            Check(st);
            if (failure != null) {
                throw failure;
            }
        }

        // --- segments and boundaries ---------------------------------------------------------

        public SegmentId AddSegment(Vec2 a, Vec2 b)
        {
            SegmentId id;
            Check(Native.orca_sim_add_segment(h_, a, b, &id));
            return id;
        }

        /// <summary>Segments p[0]-p[1], ..., and p[n-1]-p[0] when closed (a polygon).</summary>
        public SegmentId[] AddPolyline(Vec2[] points, bool closed)
        {
            Need(points != null, Status.Null, "points is null");
            int n = closed ? points.Length : Math.Max(points.Length - 1, 0);
            SegmentId[] ids = new SegmentId[n];
            fixed (Vec2* p = points)
            fixed (SegmentId* o = ids) {
                Check(Native.orca_sim_add_polyline(h_, p, points.Length, closed ? 1 : 0, n > 0 ? o : null));
            }
            return ids;
        }

        /// <summary>Segments a[k]-b[k] in order; every point is checked first.</summary>
        public SegmentId[] AddSegments(Vec2[] a, Vec2[] b)
        {
            Need(a != null && b != null, Status.Null, "a or b is null");
            Need(a.Length == b.Length, Status.Argument,
                 "a holds " + a.Length + " points and b " + b.Length + "; they must be as many");
            SegmentId[] ids = new SegmentId[a.Length];
            fixed (Vec2* pa = a)
            fixed (Vec2* pb = b)
            fixed (SegmentId* o = ids) {
                Check(Native.orca_sim_add_segments(h_, pa, pb, a.Length, o));
            }
            return ids;
        }

        public void RemoveSegment(SegmentId id)
        {
            Check(Native.orca_sim_remove_segment(h_, id));
        }

        public void RemoveSegments(SegmentId[] ids)
        {
            Need(ids != null, Status.Null, "ids is null");
            fixed (SegmentId* p = ids) {
                Check(Native.orca_sim_remove_segments(h_, p, ids.Length));
            }
        }

        public int SegmentCount { get { return Native.orca_sim_segment_count(h_); } }

        public SegmentId SegmentAt(int index)
        {
            return Native.orca_sim_segment_at(h_, index);
        }

        public void GetSegment(SegmentId id, out Vec2 a, out Vec2 b)
        {
            Vec2 pa, pb;
            Check(Native.orca_segment_get(h_, id, &pa, &pb));
            a = pa;
            b = pb;
        }

        /// <summary>Adds a closed walkable-area loop (docs/extensions.md): outer loops
        /// counter-clockwise, holes clockwise.</summary>
        public BoundaryId AddBoundary(Vec2[] points)
        {
            Need(points != null, Status.Null, "points is null");
            BoundaryId id;
            fixed (Vec2* p = points) {
                Check(Native.orca_sim_add_boundary(h_, p, points.Length, &id));
            }
            return id;
        }

        public void RemoveBoundary(BoundaryId id)
        {
            Check(Native.orca_sim_remove_boundary(h_, id));
        }

        public int BoundaryCount { get { return Native.orca_sim_boundary_count(h_); } }

        public BoundaryId BoundaryAt(int index)
        {
            return Native.orca_sim_boundary_at(h_, index);
        }

        /// <summary>The loop's points as given.</summary>
        public Vec2[] GetBoundary(BoundaryId id)
        {
            int n;
            Check(Native.orca_boundary_get(h_, id, null, 0, &n));
            Vec2[] points = new Vec2[n];
            fixed (Vec2* p = points) {
                Check(Native.orca_boundary_get(h_, id, p, n, &n));
            }
            return points;
        }

        /// <summary>The deepest (r - distance) / r of agents against loop edges, and how many
        /// agents are outside the walkable area.</summary>
        public void MeasureBoundary(out double deepest, out int outside)
        {
            double d;
            int o;
            Check(Native.orca_sim_measure_boundary(h_, &d, &o));
            deepest = d;
            outside = o;
        }

        // --- stepping and diagnostics --------------------------------------------------------

        /// <summary>One step of dt seconds (a refused step changes nothing).</summary>
        public void Step(double dt)
        {
            Check(Native.orca_sim_step(h_, dt));
        }

        public void Step(double dt, int steps)
        {
            for (int i = 0; i < steps; ++i) {
                Check(Native.orca_sim_step(h_, dt));
            }
        }

        public ulong StepCount { get { return Native.orca_sim_step_count(h_); } }

        public int LastFallbackCount { get { return Native.orca_sim_last_fallback_count(h_); } }

        /// <summary>The constraints the agent would use in a step of dt now, hard ones first.
        /// </summary>
        public HalfPlane[] AgentConstraints(AgentId id, double dt, out int hardCount)
        {
            int n, hard;
            Check(Native.orca_sim_agent_constraints(h_, id, dt, null, 0, &n, &hard));
            HalfPlane[] planes = new HalfPlane[n];
            fixed (HalfPlane* p = planes) {
                Check(Native.orca_sim_agent_constraints(h_, id, dt, p, n, &n, &hard));
            }
            hardCount = hard;
            return planes;
        }

        /// <summary>The neighbours (agent indices) and obstacles (segment indices) the
        /// constraints come from, in order.</summary>
        public void AgentNeighbors(AgentId id, out int[] agents, out int[] segments)
        {
            int na, ns;
            Check(Native.orca_sim_agent_neighbors(h_, id, null, 0, &na, null, 0, &ns));
            agents = new int[na];
            segments = new int[ns];
            fixed (int* a = agents)
            fixed (int* s = segments) {
                Check(Native.orca_sim_agent_neighbors(h_, id, a, na, &na, s, ns, &ns));
            }
        }

        /// <summary>Deepest overlaps now, as fractions of radius.</summary>
        public void MeasureOverlap(out double agentOverlap, out double wallOverlap)
        {
            double a, w;
            Check(Native.orca_sim_measure_overlap(h_, &a, &w));
            agentOverlap = a;
            wallOverlap = w;
        }

        // --- extensions (docs/extensions.md) ---------------------------------------------------

        public AgentAvoidance GetAvoidance(AgentId id)
        {
            AgentAvoidance a;
            Check(Native.orca_agent_get_avoidance(h_, id, &a));
            return a;
        }

        public void SetAvoidance(AgentId id, AgentAvoidance avoidance)
        {
            Check(Native.orca_agent_set_avoidance(h_, id, &avoidance));
        }

        public void SetPriority(AgentId id, double priority)
        {
            Check(Native.orca_agent_set_priority(h_, id, priority));
        }

        public void SetLayers(AgentId id, uint layers, uint mask)
        {
            Check(Native.orca_agent_set_layers(h_, id, layers, mask));
        }

        public void SetLocked(AgentId id, bool locked)
        {
            Check(Native.orca_agent_set_locked(h_, id, locked ? 1 : 0));
        }

        /// <summary>The separation of coincident agents (part of the state when on).</summary>
        public bool Separation
        {
            get { return Native.orca_sim_get_separation(h_) != 0; }
            set { Check(Native.orca_sim_set_separation(h_, value ? 1 : 0)); }
        }

        /// <summary>Whether the next step separates coincident agents.</summary>
        public bool SeparationActive { get { return Native.orca_sim_separation_active(h_) != 0; } }

        /// <summary>The density-dependent speed's parameters, or null when off (setting null
        /// turns it off).</summary>
        public DensitySpeed? DensitySpeed
        {
            get {
                DensitySpeed d;
                return Native.orca_sim_get_density_speed(h_, &d) != 0 ? d : (DensitySpeed?)null;
            }
            set {
                if (value.HasValue) {
                    DensitySpeed d = value.Value;
                    Check(Native.orca_sim_set_density_speed(h_, &d));
                } else {
                    Check(Native.orca_sim_set_density_speed(h_, null));
                }
            }
        }

        /// <summary>The pedestrian model's parameters, or null when off (setting null turns it
        /// off; docs/pedestrians.md).</summary>
        public Pedestrian? Pedestrian
        {
            get {
                Pedestrian p;
                return Native.orca_sim_get_pedestrian(h_, &p) != 0 ? p : (Pedestrian?)null;
            }
            set {
                if (value.HasValue) {
                    Pedestrian p = value.Value;
                    Check(Native.orca_sim_set_pedestrian(h_, &p));
                } else {
                    Check(Native.orca_sim_set_pedestrian(h_, null));
                }
            }
        }

        /// <summary>An agent's stream: -1 (none) or a number &gt;= 0 (the pedestrian model's
        /// counter mode).</summary>
        public int GetStream(AgentId id)
        {
            int g;
            Check(Native.orca_agent_get_stream(h_, id, &g));
            return g;
        }

        public void SetStream(AgentId id, int stream)
        {
            Check(Native.orca_agent_set_stream(h_, id, stream));
        }

        /// <summary>Per-agent diagnostics of each step (not state).</summary>
        public bool Diagnostics
        {
            get { return Native.orca_sim_get_diagnostics(h_) != 0; }
            set { Check(Native.orca_sim_set_diagnostics(h_, value ? 1 : 0)); }
        }

        public AgentDiagnostics GetDiagnostics(AgentId id)
        {
            AgentDiagnostics d;
            Check(Native.orca_agent_get_diagnostics(h_, id, &d));
            return d;
        }

        /// <summary>Every agent's diagnostics in index order (bulk).</summary>
        public AgentDiagnostics[] GetAllDiagnostics()
        {
            AgentDiagnostics[] all = new AgentDiagnostics[AgentCount];
            int n;
            fixed (AgentDiagnostics* p = all) {
                Check(Native.orca_sim_diagnostics(h_, p, all.Length, &n));
            }
            return all;
        }

        public StepDiagnostics StepDiagnostics
        {
            get {
                StepDiagnostics d;
                Check(Native.orca_sim_step_diagnostics(h_, &d));
                return d;
            }
        }

        // --- spatial queries (agent indices) ----------------------------------------------------

        /// <summary>Agents within radius of center, by (squared distance, index).</summary>
        public int[] QueryRadius(Vec2 center, double radius)
        {
            int n;
            Check(Native.orca_sim_query_radius(h_, center, radius, null, 0, &n));
            int[] found = new int[n];
            fixed (int* p = found) {
                Check(Native.orca_sim_query_radius(h_, center, radius, p, n, &n));
            }
            return found;
        }

        /// <summary>The k agents nearest to point, by (squared distance, index).</summary>
        public int[] QueryNearest(Vec2 point, int k)
        {
            int[] found = new int[Math.Max(k, 0)];
            int n;
            fixed (int* p = found) {
                Check(Native.orca_sim_query_nearest(h_, point, k, p, &n));
            }
            if (n < found.Length) {
                Array.Resize(ref found, n);
            }
            return found;
        }

        /// <summary>Agents in the box [lo, hi] (edges included), in index order.</summary>
        public int[] QueryBox(Vec2 lo, Vec2 hi)
        {
            int n;
            Check(Native.orca_sim_query_box(h_, lo, hi, null, 0, &n));
            int[] found = new int[n];
            fixed (int* p = found) {
                Check(Native.orca_sim_query_box(h_, lo, hi, p, n, &n));
            }
            return found;
        }

        // --- state ---------------------------------------------------------------------------

        /// <summary>The state hash (docs/determinism.md): the same on every machine.</summary>
        public ulong Hash { get { return Native.orca_sim_hash(h_); } }

        /// <summary>The hash as 16 lowercase hex digits, as `orca run` prints it.</summary>
        public string HexHash { get { return Hash.ToString("x16"); } }

        /// <summary>A snapshot of the whole simulation (versioned, byte-order independent).
        /// </summary>
        public byte[] Save()
        {
            return Native.Snapshot((buffer, capacity, size) => Native.orca_sim_save(h_, buffer, capacity, size), Check);
        }

        /// <summary>Replaces the state with a snapshot (Status.Format for corrupt, truncated
        /// or foreign bytes; nothing changes then).</summary>
        public void Load(byte[] snapshot)
        {
            Need(snapshot != null, Status.Null, "snapshot is null");
            fixed (byte* p = snapshot) {
                Check(Native.orca_sim_load(h_, p, (UIntPtr)snapshot.Length));
            }
        }
    }
}
