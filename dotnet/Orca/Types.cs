// SPDX-License-Identifier: MIT
// The library's value types, laid out exactly as the C structs of include/orca/*.h (the same
// fields in the same order, default sequential layout: the C compiler's padding), so that
// arrays of them pass to the library without copying. Every double is binary64, as in the
// library: a program with float state converts at its boundary (Vec2 <-> System.Numerics).
using System;
using System.Globalization;
using System.Runtime.InteropServices;

namespace Orca
{
    /// <summary>Status of a call (orca_status). Zero is success; every refusal is negative and
    /// leaves all state as it was. Refusals reach C# as <see cref="OrcaException"/>.</summary>
    public enum Status
    {
        Ok = 0,
        Argument = -1, // a value out of its documented range (NaN, negative, ...)
        Null = -2,     // a required pointer was NULL (the binding passes none: raw API only)
        Memory = -3,   // the allocator returned NULL
        Stale = -4,    // a handle that does not name a live object
        Format = -5,   // corrupt, truncated or foreign bytes (snapshots)
        Limit = -6,    // a count beyond what the library supports, or a step refused
        IO = -7,       // a file could not be read or written
        Foreign = -8,  // a handle issued by another simulation
    }

    /// <summary>A 2D vector of binary64 components (orca_vec2): metres, or metres per second.
    /// </summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct Vec2 : IEquatable<Vec2>
    {
        public double X;
        public double Y;

        public Vec2(double x, double y)
        {
            X = x;
            Y = y;
        }

        /// <summary>The float vector widened exactly (every float is a double).</summary>
        public static Vec2 FromNumerics(System.Numerics.Vector2 v)
        {
            return new Vec2(v.X, v.Y);
        }

        /// <summary>Rounded to the nearest floats (where a float-state application takes the
        /// results: the simulation itself stays in binary64).</summary>
        public System.Numerics.Vector2 ToNumerics()
        {
            return new System.Numerics.Vector2((float)X, (float)Y);
        }

        public static implicit operator Vec2(System.Numerics.Vector2 v)
        {
            return FromNumerics(v);
        }

        public static explicit operator System.Numerics.Vector2(Vec2 v)
        {
            return v.ToNumerics();
        }

        // Equality of the bits' values (== on doubles: -0 equals +0, NaN equals nothing), as C.
        public bool Equals(Vec2 other)
        {
            return X == other.X && Y == other.Y;
        }

        public override bool Equals(object obj)
        {
            return obj is Vec2 && Equals((Vec2)obj);
        }

        public override int GetHashCode()
        {
            return X.GetHashCode() * 31 + Y.GetHashCode();
        }

        public static bool operator ==(Vec2 a, Vec2 b)
        {
            return a.Equals(b);
        }

        public static bool operator !=(Vec2 a, Vec2 b)
        {
            return !a.Equals(b);
        }

        /// <summary>"(x, y)" with each component in round-trip form ("R"): parsing it back
        /// gives the same bits.</summary>
        public override string ToString()
        {
            return "(" + X.ToString("R", CultureInfo.InvariantCulture) + ", " +
                   Y.ToString("R", CultureInfo.InvariantCulture) + ")";
        }
    }

    /// <summary>A half-plane { v : (v - Point) . Normal >= 0 } (orca_halfplane,
    /// docs/algorithm.md §2).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct HalfPlane
    {
        public Vec2 Point;
        public Vec2 Normal;
    }

    /// <summary>Handle of an agent (orca_agent_id): slot, generation and the identity of the
    /// simulation that issued it. Another simulation refuses it (Status.Foreign); after the
    /// agent is removed it is stale (Status.Stale). Default is the null handle.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct AgentId : IEquatable<AgentId>
    {
        public uint Slot;
        public uint Generation;
        public uint Sim;

        public bool IsNull { get { return Slot == 0 && Generation == 0 && Sim == 0; } }
        public bool Equals(AgentId o) { return Slot == o.Slot && Generation == o.Generation && Sim == o.Sim; }
        public override bool Equals(object obj) { return obj is AgentId && Equals((AgentId)obj); }
        public override int GetHashCode() { return (int)(Slot * 73856093u ^ Generation * 19349663u ^ Sim * 83492791u); }
        public static bool operator ==(AgentId a, AgentId b) { return a.Equals(b); }
        public static bool operator !=(AgentId a, AgentId b) { return !a.Equals(b); }
        public override string ToString() { return "agent {slot " + Slot + ", generation " + Generation + ", sim " + Sim + "}"; }
    }

    /// <summary>Handle of a segment obstacle (orca_segment_id; the fields as AgentId's).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct SegmentId : IEquatable<SegmentId>
    {
        public uint Slot;
        public uint Generation;
        public uint Sim;

        public bool IsNull { get { return Slot == 0 && Generation == 0 && Sim == 0; } }
        public bool Equals(SegmentId o) { return Slot == o.Slot && Generation == o.Generation && Sim == o.Sim; }
        public override bool Equals(object obj) { return obj is SegmentId && Equals((SegmentId)obj); }
        public override int GetHashCode() { return (int)(Slot * 73856093u ^ Generation * 19349663u ^ Sim * 83492791u); }
        public static bool operator ==(SegmentId a, SegmentId b) { return a.Equals(b); }
        public static bool operator !=(SegmentId a, SegmentId b) { return !a.Equals(b); }
        public override string ToString() { return "segment {slot " + Slot + ", generation " + Generation + ", sim " + Sim + "}"; }
    }

    /// <summary>Handle of a walkable-area boundary loop (orca_boundary_id).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct BoundaryId : IEquatable<BoundaryId>
    {
        public uint Slot;
        public uint Generation;
        public uint Sim;

        public bool IsNull { get { return Slot == 0 && Generation == 0 && Sim == 0; } }
        public bool Equals(BoundaryId o) { return Slot == o.Slot && Generation == o.Generation && Sim == o.Sim; }
        public override bool Equals(object obj) { return obj is BoundaryId && Equals((BoundaryId)obj); }
        public override int GetHashCode() { return (int)(Slot * 73856093u ^ Generation * 19349663u ^ Sim * 83492791u); }
        public static bool operator ==(BoundaryId a, BoundaryId b) { return a.Equals(b); }
        public static bool operator !=(BoundaryId a, BoundaryId b) { return !a.Equals(b); }
        public override string ToString() { return "boundary {slot " + Slot + ", generation " + Generation + ", sim " + Sim + "}"; }
    }

    /// <summary>Everything about one agent (orca_agent_def). Start from
    /// <see cref="Default"/> (the library's orca_agent_def_default) and change what you need;
    /// the ranges are in docs/limits.md.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct AgentDef
    {
        public Vec2 Position;
        public Vec2 Velocity;
        public Vec2 PreferredVelocity;
        public double Radius;
        public double MaxSpeed;
        public double NeighborDist;
        public int MaxNeighbors;
        public double TimeHorizon;
        public double ObstacleTimeHorizon;

        /// <summary>The library's defaults (radius 1.5, max speed 2, neighbour distance 15,
        /// 10 neighbours, both horizons 10, everything else zero).</summary>
        public static AgentDef Default { get { return Native.orca_agent_def_default(); } }

        /// <summary>The defaults at a position.</summary>
        public static AgentDef At(Vec2 position)
        {
            AgentDef d = Default;
            d.Position = position;
            return d;
        }
    }

    /// <summary>orca_sim_def: the worker setup. The callbacks (an engine's job system) are
    /// function pointers: see docs/dotnet.md.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct SimDef
    {
        public int WorkerCount;
        public IntPtr Enqueue;
        public IntPtr Finish;
        public IntPtr UserContext;
    }

    /// <summary>How orca_scene_file_build makes a scenario (orca_scene_build_def): the worker
    /// setup, and a step and seed that replace the scene file's when UseDt, UseSeed are 1.
    /// </summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct SceneBuildDef
    {
        public SimDef Sim;
        public int UseDt;
        public double Dt;
        public int UseSeed;
        public ulong Seed;
        /// <summary>1: the pedestrian preset as if the file said `pedestrian on` (orca run
        /// --pedestrian; docs/pedestrians.md).</summary>
        public int Pedestrian;
    }

    /// <summary>Per-agent avoidance settings (orca_agent_avoidance; docs/extensions.md,
    /// "Priority, layers and locked agents").</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct AgentAvoidance
    {
        public double Priority;
        public uint Layers;
        public uint Mask;
        public int Locked;

        /// <summary>Priority 1, layers 1, mask 0xFFFFFFFF, not locked.</summary>
        public static AgentAvoidance Default { get { return Native.orca_agent_avoidance_default(); } }
    }

    /// <summary>Parameters of the density-dependent speed (orca_density_speed).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct DensitySpeed
    {
        public double Radius;
        public double Gamma;
        public double MaxDensity;

        /// <summary>radius 2 m, gamma 1.913 m^-2, max density 5.4 m^-2.</summary>
        public static DensitySpeed Default { get { return Native.orca_density_speed_default(); } }
    }

    /// <summary>What the last step did for one agent (orca_agent_diagnostics).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct AgentDiagnostics
    {
        public int Fallback;
        public int FailedConstraint;
        public int NeighborCount;
        public int Candidates;
        public int NeighborsCut;
        public int Blocked;
        public int Locked;
        /// <summary>The pedestrian model's headway half-planes it got (docs/pedestrians.md).</summary>
        public int HeadwayPlanes;
        /// <summary>1: the pedestrian model put it in counter mode.</summary>
        public int CounterMode;
    }

    /// <summary>Counts over all agents of the last step with diagnostics on
    /// (orca_step_diagnostics).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct StepDiagnostics
    {
        public int Agents;
        public int Fallback;
        public int Cut;
        public int Blocked;
        public int Locked;
        /// <summary>The pedestrian model's headway half-planes, summed over the agents.</summary>
        public int Headway;
        /// <summary>Agents the pedestrian model put in counter mode.</summary>
        public int Counter;
    }

    /// <summary>Parameters of the pedestrian model (orca_pedestrian; docs/pedestrians.md).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct Pedestrian
    {
        public double TimeGap;
        public double Buffer;
        public double CounterReach;
        public int MaxPlanes;

        /// <summary>time gap 0.5 s, buffer 0.02 m, counter reach 2 m, at most 4 headway
        /// half-planes.</summary>
        public static Pedestrian Default { get { return Native.orca_pedestrian_default(); } }
    }

    /// <summary>What steers an agent of a scenario (orca_goal_kind).</summary>
    public enum GoalKind
    {
        Point = 0,
        Velocity = 1,
        None = 2,
        Set = 3,
    }

    /// <summary>A scenario agent's goal (orca_goal).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct Goal
    {
        public GoalKind Kind;
        public Vec2 Target;
        public double PreferredSpeed;
        public int GoalSet;

        /// <summary>Kind None, target (0, 0), preferred speed 1 m/s.</summary>
        public static Goal Default { get { return Native.orca_goal_default(); } }

        public static Goal ToPoint(Vec2 target, double preferredSpeed)
        {
            Goal g = Default;
            g.Kind = GoalKind.Point;
            g.Target = target;
            g.PreferredSpeed = preferredSpeed;
            return g;
        }

        public static Goal WithVelocity(Vec2 velocity)
        {
            Goal g = Default;
            g.Kind = GoalKind.Velocity;
            g.Target = velocity;
            return g;
        }

        public static Goal ToSet(int goalSet, double preferredSpeed)
        {
            Goal g = Default;
            g.Kind = GoalKind.Set;
            g.GoalSet = goalSet;
            g.PreferredSpeed = preferredSpeed;
            return g;
        }
    }

    /// <summary>The built-in scenes (orca_scene_kind).</summary>
    public enum SceneKind
    {
        Circle = 0,
        Crossing = 1,
        WallGap = 2,
        Corridor = 3,
        Random = 4,
    }

    /// <summary>What a path query found (orca_nav_result).</summary>
    public enum NavResult
    {
        Ok = 0,
        NoPath = 1,
        StartBlocked = 2,
        GoalBlocked = 3,
    }

    /// <summary>A corner of a path (orca_nav_corner).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct NavCorner
    {
        public Vec2 Vertex;
        public int Side;
        public Vec2 Enter;
        public Vec2 Leave;
    }

    /// <summary>Statistics of the navigation structure of one radius (orca_nav_stats).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct NavStats
    {
        public int Walls;
        public int Vertices;
        public int Legs;
        public UIntPtr Bytes;
    }

    /// <summary>What navigation knows of one scenario agent (orca_nav_agent).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct NavAgent
    {
        public int Navigating;
        public NavResult Result;
        public int Corner;
        public int Corners;
        public double Length;
        public int Plans;
        public int Reroutes;
        public Vec2 Goal;
    }

    /// <summary>How a goal-set agent chooses the point it heads for (orca_exit_choice;
    /// docs/navigation.md, "Exit choice").</summary>
    public enum ExitChoice
    {
        Nearest = 0,
        Calm = 1,
        Quickest = 2,
    }

    /// <summary>Navigation's counts over the whole run, agents that left included
    /// (orca_nav_counts).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct NavCounts
    {
        public long Plans;
        public long Reroutes;
        public long Replans;
        public long ExitChanges;
        public long ExitReturns;
        public int AgentsChanged;
        public int MostChanges;
        public int Exited;
        public int AtExits;
        public int Arrived;
        public int Unreachable;
    }

    /// <summary>A signed distance from a velocity obstacle and the normal there (orca_vo).
    /// </summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct VelocityObstacle
    {
        public double Distance;
        public Vec2 Normal;
    }

    /// <summary>Which case of the closed agent form was taken (orca_vo_case_kind).</summary>
    public enum VoCaseKind
    {
        Cutoff = 0,
        LeftLeg = 1,
        RightLeg = 2,
    }

    /// <summary>Result of the closed case form (orca_vo_cases).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct VoCases
    {
        public Vec2 U;
        public Vec2 Normal;
        public VoCaseKind Kind;
    }

    /// <summary>Which construction a constraint builder used (orca_form).</summary>
    public enum ConstraintForm
    {
        Cases = 0,
        Support = 1,
        Overlap = 2,
    }

    /// <summary>Result of a linear program (orca_lp_result): Failed is -1 when feasible.
    /// </summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct LpResult
    {
        public Vec2 Velocity;
        public int Failed;
    }

    /// <summary>Result of one agent's whole solve (orca_solve_result).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct SolveResult
    {
        public Vec2 Velocity;
        public int Failed;
        public int Fallback;
    }

    /// <summary>The memory hooks (orca_allocator): function pointers and their context.
    /// </summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct Allocator
    {
        public IntPtr Alloc;
        public IntPtr Resize;
        public IntPtr Release;
        public IntPtr Context;
    }
}
