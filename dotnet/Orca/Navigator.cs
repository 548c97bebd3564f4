// SPDX-License-Identifier: MIT
// Path queries through a simulation's walls (orca/nav.h, docs/navigation.md): shortest paths
// of a disc of a given radius, and line of sight at a clearance.
using System;

namespace Orca
{
    public sealed unsafe class Navigator : IDisposable
    {
        private readonly NavHandle h_;

        /// <summary>A navigation object over the walls of sim (read at each query); it keeps
        /// the simulation alive.</summary>
        public Navigator(Simulation sim)
        {
            Simulation.Need(sim != null, Status.Null, "sim is null");
            NavHandle h;
            Status st = Native.orca_nav_create(sim.Handle, out h);
            if (st != Status.Ok) {
                throw new OrcaException(st, "creating a navigation object: " + Library.StatusName(st));
            }
            h.HoldSimulation(sim.Handle);
            h_ = h;
        }

        public NavHandle Handle { get { return h_; } }

        public void Dispose()
        {
            h_.Dispose();
        }

        private void Check(Status st)
        {
            if (st != Status.Ok) {
                throw new OrcaException(st, Native.Utf8(Native.orca_nav_last_error(h_)));
            }
        }

        /// <summary>The shortest path of a disc of radius (in [2^-20, 2^20] m) from `from` to
        /// the nearest goal. Returns the result; when Ok, length, the goal reached and the
        /// corners.</summary>
        public NavResult Path(double radius, Vec2 from, Vec2[] goals, out double length,
                              out int goalIndex, out NavCorner[] corners)
        {
            Simulation.Need(goals != null, Status.Null, "goals is null");
            NavResult r;
            double len = 0;
            int g = -1, n = 0;
            fixed (Vec2* p = goals) {
                Check(Native.orca_nav_path(h_, radius, from, p, goals.Length, &r, &len, &g, null, 0, &n));
                corners = new NavCorner[r == NavResult.Ok ? n : 0];
                if (corners.Length > 0) {
                    fixed (NavCorner* c = corners) {
                        Check(Native.orca_nav_path(h_, radius, from, p, goals.Length, &r, &len, &g, c, n, &n));
                    }
                }
            }
            length = len;
            goalIndex = g;
            return r;
        }

        /// <summary>Whether every wall is farther than radius (in [0, 2^20] m) from the
        /// segment a-b (docs/navigation.md, "Visibility").</summary>
        public bool Visible(double radius, Vec2 a, Vec2 b)
        {
            int v;
            Check(Native.orca_nav_visible(h_, radius, a, b, &v));
            return v != 0;
        }

        /// <summary>The size of the structure kept for a radius (built if needed).</summary>
        public NavStats Stats(double radius)
        {
            NavStats s;
            Check(Native.orca_nav_stats_get(h_, radius, &s));
            return s;
        }
    }
}
