// SPDX-License-Identifier: MIT
// The solver's building blocks (orca/solver.h, docs/algorithm.md §2 to §10) as static
// functions: the velocity obstacle, the ORCA half-planes and the linear programs. Pure: no
// state, the same bits as the simulator's own calls.
namespace Orca
{
    public static unsafe class Solver
    {
        public static double SignedDistance(HalfPlane h, Vec2 v)
        {
            return Native.orca_halfplane_signed_distance(h, v);
        }

        public static VelocityObstacle VoSupport(Vec2 a, Vec2 b, double r, double tau, Vec2 x)
        {
            return Native.orca_vo_support(a, b, r, tau, x);
        }

        public static VelocityObstacle VoOverlap(Vec2 a, Vec2 b, double r, double dt, Vec2 x)
        {
            return Native.orca_vo_overlap(a, b, r, dt, x);
        }

        public static VoCases VoAgentCases(Vec2 a, double r, double tau, Vec2 x)
        {
            return Native.orca_vo_agent_cases(a, r, tau, x);
        }

        public static double SegmentDistanceSquared(Vec2 a, Vec2 b)
        {
            return Native.orca_segment_distance_squared(a, b);
        }

        /// <summary>The ORCA half-plane of agent A against agent B with responsibility share
        /// (0.5: the algorithm's).</summary>
        public static HalfPlane ConstraintAgent(Vec2 relPos, double r, Vec2 va, Vec2 vb, double tau,
                                                double dt, double share, out ConstraintForm form)
        {
            ConstraintForm f;
            HalfPlane h = share == 0.5
                ? Native.orca_constraint_agent(relPos, r, va, vb, tau, dt, &f)
                : Native.orca_constraint_agent_share(relPos, r, va, vb, tau, dt, share, &f);
            form = f;
            return h;
        }

        public static HalfPlane ConstraintSegment(Vec2 a, Vec2 b, double r, double tau, double dt,
                                                  out ConstraintForm form)
        {
            ConstraintForm f;
            HalfPlane h = Native.orca_constraint_segment(a, b, r, tau, dt, &f);
            form = f;
            return h;
        }

        /// <summary>The one-sided boundary constraint; false when there is none.</summary>
        public static bool ConstraintBoundary(Vec2 a, Vec2 b, double clearance, double tau, out HalfPlane plane)
        {
            HalfPlane h = new HalfPlane();
            int made = Native.orca_constraint_boundary(a, b, clearance, tau, &h);
            plane = h;
            return made == 1;
        }

        private static void Check(Status st, string what)
        {
            if (st != Status.Ok) {
                throw new OrcaException(st, what + " refused its input (" + Library.StatusName(st) +
                                        "; orca/solver.h gives the ranges)");
            }
        }

        /// <summary>The linear program in list order: the velocity in the disc and the
        /// half-planes closest to preferred.</summary>
        public static LpResult LpSolve(HalfPlane[] planes, double maxSpeed, Vec2 preferred)
        {
            Simulation.Need(planes != null, Status.Null, "planes is null");
            LpResult r;
            fixed (HalfPlane* p = planes) {
                Check(Native.orca_lp_solve(p, planes.Length, maxSpeed, preferred, &r), "orca_lp_solve");
            }
            return r;
        }

        public static LpResult LpSolveDirection(HalfPlane[] planes, double maxSpeed, Vec2 direction)
        {
            Simulation.Need(planes != null, Status.Null, "planes is null");
            LpResult r;
            fixed (HalfPlane* p = planes) {
                Check(Native.orca_lp_solve_direction(p, planes.Length, maxSpeed, direction, &r), "orca_lp_solve_direction");
            }
            return r;
        }

        public static Vec2 LpFallback(HalfPlane[] planes, int hardCount, int failedIndex, double maxSpeed)
        {
            Simulation.Need(planes != null, Status.Null, "planes is null");
            HalfPlane[] scratch = new HalfPlane[planes.Length];
            Vec2 v;
            fixed (HalfPlane* p = planes)
            fixed (HalfPlane* s = scratch) {
                Check(Native.orca_lp_fallback(p, planes.Length, hardCount, failedIndex, maxSpeed, s, &v), "orca_lp_fallback");
            }
            return v;
        }

        /// <summary>One agent's whole solve: the program, and the fallback when it fails.
        /// </summary>
        public static SolveResult Solve(HalfPlane[] planes, int hardCount, double maxSpeed, Vec2 preferred)
        {
            Simulation.Need(planes != null, Status.Null, "planes is null");
            HalfPlane[] scratch = new HalfPlane[planes.Length];
            SolveResult r;
            fixed (HalfPlane* p = planes)
            fixed (HalfPlane* s = scratch) {
                Check(Native.orca_solve(p, planes.Length, hardCount, maxSpeed, preferred, s, &r), "orca_solve");
            }
            return r;
        }
    }
}
