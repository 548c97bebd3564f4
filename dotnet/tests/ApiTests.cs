// SPDX-License-Identifier: MIT
// The binding's API: every error path (status and message, the state unchanged), handles of
// another simulation, snapshots, the bulk calls, the extensions, queries, navigation, the
// solver's blocks, tasks and the allocator hooks.
using System;
using System.Linq;
using System.Runtime.InteropServices;
using Orca;

namespace OrcaTests
{
    internal static partial class Tests
    {
        /// <summary>A small simulation: 10 agents in a row, a wall, a few steps taken.</summary>
        private static Simulation Small(int workers = 1)
        {
            var sim = new Simulation(workers);
            for (int i = 0; i < 10; ++i) {
                AgentDef d = AgentDef.At(new Vec2(i * 4.0, (i % 3) * 1.5));
                d.PreferredVelocity = new Vec2(i % 2 == 0 ? 1 : -1, 0.25);
                sim.AddAgent(d);
            }
            sim.AddSegment(new Vec2(-5, 8), new Vec2(40, 8));
            sim.Step(0.25, 3);
            return sim;
        }

        /// <summary>action must be refused with status, the message containing `names`, and
        /// the simulation's hash and snapshot bytes unchanged.</summary>
        private static void RefusedUnchanged(Simulation sim, Status status, string names, Action action, string what)
        {
            ulong hash = sim.Hash;
            byte[] bytes = sim.Save();
            OrcaException e = Refused(status, action, what);
            Ensure(e.Message.Contains(names), what + ": message '" + e.Message + "' does not name '" + names + "'");
            Same(hash, sim.Hash, what + ": hash after the refusal");
            Ensure(bytes.SequenceEqual(sim.Save()), what + ": snapshot after the refusal");
            Same(Library.StatusName(status), e.StatusName, what + ": status name");
            Ensure(e.ToString().Contains(e.StatusName), what + ": ToString names the status");
        }

        private static void TestErrorPathsArgument()
        {
            using (Simulation sim = Small()) {
                AgentId a = sim.AgentAt(0);
                AgentDef bad = AgentDef.Default;
                bad.Radius = -1;
                RefusedUnchanged(sim, Status.Argument, "radius", () => sim.AddAgent(bad), "radius -1");
                bad = AgentDef.Default;
                bad.Position = new Vec2(double.NaN, 0);
                RefusedUnchanged(sim, Status.Argument, "position", () => sim.AddAgent(bad), "position NaN");
                bad = AgentDef.Default;
                bad.MaxNeighbors = 5000;
                RefusedUnchanged(sim, Status.Argument, "max_neighbors", () => sim.SetAgent(a, bad), "max_neighbors 5000");
                var defs = new[] { AgentDef.Default, AgentDef.Default, bad };
                RefusedUnchanged(sim, Status.Argument, "defs[2]", () => sim.AddAgents(defs), "a batch with defs[2] bad");
                RefusedUnchanged(sim, Status.Argument, "velocity", () => sim.SetPreferredVelocity(a, new Vec2(double.PositiveInfinity, 0)), "preferred velocity inf");
                RefusedUnchanged(sim, Status.Argument, "dt", () => sim.Step(0), "dt 0");
                RefusedUnchanged(sim, Status.Argument, "dt", () => sim.Step(double.NaN), "dt NaN");
                RefusedUnchanged(sim, Status.Argument, "worker", () => sim.WorkerCount = 65, "65 workers");
                RefusedUnchanged(sim, Status.Argument, "priority", () => sim.SetPriority(a, 0), "priority 0");
                RefusedUnchanged(sim, Status.Argument, "", () => sim.SetPreferredVelocities(new Vec2[3]), "3 preferred velocities for 10 agents");
                RefusedUnchanged(sim, Status.Argument, "positions", () => sim.GetPositions(new Vec2[3]), "positions into 3 entries");
                RefusedUnchanged(sim, Status.Argument, "radius", () => sim.QueryRadius(new Vec2(0, 0), -1), "query radius -1");
                RefusedUnchanged(sim, Status.Argument, "", () => sim.AddBoundary(new[] { new Vec2(0, 0), new Vec2(1, 0) }), "a loop of 2 points");
                RefusedUnchanged(sim, Status.Argument, "", () => sim.AddSegments(new Vec2[2], new Vec2[1]), "2 a points and 1 b point");
                DensitySpeed ds = DensitySpeed.Default;
                ds.Gamma = -1;
                RefusedUnchanged(sim, Status.Argument, "gamma", () => sim.DensitySpeed = ds, "density gamma -1");
            }
            Refused(Status.Argument, () => new Simulation(0).Dispose(), "0 workers");
            Refused(Status.Argument, () => new Scenario(-1, 1).Dispose(), "scenario dt -1").Message.Contains("dt");
            using (var sc = new Scenario(0.1, 1)) {
                Refused(Status.Argument, () => sc.SetGoal(0, Goal.Default), "the goal of a missing agent");
                Refused(Status.Argument, () => sc.AddGoalSet("", new[] { new Vec2(0, 0) }), "an empty goal set name");
            }
        }

        private static void TestErrorPathsOtherStatuses()
        {
            using (Simulation sim = Small()) {
                // Null: the binding's own checks, before the library
                RefusedUnchanged(sim, Status.Null, "null", () => sim.AddAgents(null), "defs null");
                RefusedUnchanged(sim, Status.Null, "null", () => sim.Load(null), "snapshot null");
                // Stale: a removed agent's handle
                AgentId gone = sim.AgentAt(3);
                sim.RemoveAgent(gone);
                RefusedUnchanged(sim, Status.Stale, "", () => sim.GetPosition(gone), "a removed agent");
                RefusedUnchanged(sim, Status.Stale, "", () => sim.RemoveAgents(new[] { sim.AgentAt(0), gone }), "a batch with a removed agent");
                SegmentId wall = sim.SegmentAt(0);
                sim.RemoveSegment(wall);
                RefusedUnchanged(sim, Status.Stale, "", () => sim.RemoveSegment(wall), "a removed segment");
                // Format: damaged snapshots
                byte[] snap = sim.Save();
                RefusedUnchanged(sim, Status.Format, "", () => sim.Load(new byte[] { 1, 2, 3 }), "3 bytes");
                RefusedUnchanged(sim, Status.Format, "", () => sim.Load(snap.Take(snap.Length - 1).ToArray()), "a truncated snapshot");
                byte[] flipped = (byte[])snap.Clone();
                flipped[flipped.Length / 2] ^= 0x40;
                RefusedUnchanged(sim, Status.Format, "", () => sim.Load(flipped), "a flipped bit");
                // Limit: a step that would take an agent beyond 2^21
                AgentDef far = AgentDef.At(new Vec2(2097151.5, 0));
                far.Velocity = new Vec2(2, 0);
                far.PreferredVelocity = new Vec2(2, 0);
                sim.AddAgent(far);
                RefusedUnchanged(sim, Status.Limit, "", () => sim.Step(1.0), "a step beyond 2^21");
            }
            Refused(Status.Limit, () => Scenario.Builtin(SceneKind.Circle, int.MaxValue, 1).Dispose(), "a circle of 2^31-1 agents");
            Refused(Status.Argument, () => Scenario.Builtin((SceneKind)17, 10, 1).Dispose(), "scene kind 17");
            using (var sc = new Scenario(0.1, 1)) {
                sc.AddAgent(AgentDef.Default, Goal.ToPoint(new Vec2(5, 5), 1));
                Refused(Status.Limit, () => sc.SetWaypoints(0, new Vec2[1048577], false, 0), "too many waypoints");
                Refused(Status.Format, () => sc.Load(new byte[10]), "a scenario snapshot of 10 zero bytes");
            }
            // Memory: in TestAllocatorHooks. IO: no function of the C API reads or writes files
            // yet (the status exists for them).
        }

        private static void TestForeignHandlesRefused()
        {
            using (Simulation one = Small())
            using (Simulation two = Small()) {
                Ensure(one.Id != two.Id, "two identities");
                AgentId a = one.AgentAt(2);
                Same(one.Id, a.Sim, "the handle carries its simulation");
                Same(two.AgentAt(2).Slot, a.Slot, "the same slot in both");
                Same(-1, two.AgentIndex(a), "index of a foreign handle");
                OrcaException e = Refused(Status.Foreign, () => two.GetPosition(a), "another simulation's agent");
                Ensure(e.Message.Contains(one.Id.ToString()) && e.Message.Contains(two.Id.ToString()),
                       "the message names both simulations: " + e.Message);
                RefusedUnchanged(two, Status.Foreign, "", () => two.SetPosition(a, new Vec2(1, 1)), "set a foreign agent");
                RefusedUnchanged(two, Status.Foreign, "", () => two.RemoveAgent(a), "remove a foreign agent");
                RefusedUnchanged(two, Status.Foreign, "", () => two.RemoveAgents(new[] { two.AgentAt(0), a }), "a batch with a foreign agent");
                RefusedUnchanged(two, Status.Foreign, "", () => two.RemoveSegment(one.SegmentAt(0)), "a foreign segment");
                RefusedUnchanged(two, Status.Foreign, "", () => two.SetAvoidance(a, AgentAvoidance.Default), "avoidance of a foreign agent");
                // a snapshot moved across keeps the slots under the new identity
                two.Load(one.Save());
                Same(one.Hash, two.Hash, "loaded across");
                Refused(Status.Foreign, () => two.GetPosition(a), "still foreign after a load");
                Same(one.GetPosition(a), two.GetPosition(two.AgentAt(2)), "the same agent under the new identity");
            }
        }

        private static void TestDisposedObjects()
        {
            var sim = new Simulation();
            sim.AddAgent(new Vec2(0, 0));
            sim.Dispose();
            sim.Dispose(); // twice is fine
            try {
                int n = sim.AgentCount;
                throw new Failure("a disposed simulation answered " + n);
            } catch (ObjectDisposedException) {
            }
            // a scenario's simulation keeps the scenario alive; disposing the scenario ends both
            Scenario sc = Scenario.Builtin(SceneKind.Circle, 20, 1);
            Simulation inner = sc.Simulation;
            Same(20, inner.AgentCount, "the scenario's agents");
            Same(sc, inner.Scenario, "its scenario");
            sc.Dispose();
            try {
                int n = inner.AgentCount;
                throw new Failure("a disposed scenario's simulation answered " + n);
            } catch (ObjectDisposedException) {
            }
            // a navigator keeps its simulation alive (the native object) until it is disposed
            var s2 = new Simulation();
            s2.AddSegment(new Vec2(0, -1), new Vec2(0, 1));
            var nav = new Navigator(s2);
            s2.Dispose();
            Ensure(!nav.Visible(0, new Vec2(-1, 0), new Vec2(1, 0)), "the wall still seen through the navigator");
            nav.Dispose();
        }

        private static void TestSnapshotsRoundTrip()
        {
            using (Simulation sim = Small(2)) {
                sim.Separation = true;
                sim.DensitySpeed = DensitySpeed.Default;
                byte[] snap = sim.Save();
                ulong h0 = sim.Hash;
                ulong steps0 = sim.StepCount;
                sim.Step(0.25, 10);
                ulong h10 = sim.Hash;
                sim.Load(snap);
                Same(h0, sim.Hash, "hash after load");
                Same(steps0, sim.StepCount, "step count after load");
                Ensure(sim.Save().SequenceEqual(snap), "saved again: the same bytes");
                sim.Step(0.25, 10);
                Same(h10, sim.Hash, "stepped after load: the same bits");
                using (var other = new Simulation(3)) {
                    other.Load(snap);
                    other.Step(0.25, 10);
                    Same(h10, other.Hash, "another simulation (3 workers) from the snapshot");
                    Ensure(other.Separation && other.DensitySpeed.HasValue, "the options travel with the snapshot");
                }
            }
            using (Scenario sc = Scenario.Builtin(SceneKind.WallGap, 0, 1)) {
                sc.Step(40);
                byte[] snap = sc.Save();
                sc.Step(60);
                string want = sc.HexHash;
                using (var other = new Scenario(0.5, 99)) {
                    other.Load(snap);
                    Same("wallgap", other.Name, "the name travels");
                    Same(sc.Dt, other.Dt, "dt travels");
                    other.Step(60);
                    Same(want, other.HexHash, "scenario stepped after load");
                }
            }
        }

        private static void TestBulkCalls()
        {
            using (Simulation a = Small())
            using (Simulation b = Small()) {
                int n = a.AgentCount;
                // positions: bulk equals one by one, arrays, floats and spans
                Vec2[] pos = a.GetPositions();
                for (int i = 0; i < n; ++i) {
                    Same(a.GetPosition(a.AgentAt(i)), pos[i], "position " + i);
                }
                var f = new System.Numerics.Vector2[n];
                a.GetPositions(f);
                Same((float)pos[4].X, f[4].X, "float position");
                Span<Vec2> span = new Vec2[n]; // (mcs 6.8 miscompiles stackalloc into a Span)
                a.GetPositions(span);
                Same(pos[7], span[7], "positions into a span");
                // velocities
                var vel = new Vec2[n];
                a.GetVelocities(vel);
                Same(a.GetVelocity(a.AgentAt(5)), vel[5], "velocity 5");
                // preferred velocities: bulk set (array left as it was) equals one by one
                var pref = Enumerable.Range(0, n).Select(i => new Vec2(0.1 * i, -0.05 * i)).ToArray();
                var copy = (Vec2[])pref.Clone();
                a.SetPreferredVelocities(pref);
                Ensure(pref.SequenceEqual(copy), "the caller's array unchanged");
                for (int i = 0; i < n; ++i) {
                    b.SetPreferredVelocity(b.AgentAt(i), pref[i]);
                }
                Same(a.Hash, b.Hash, "bulk and one by one");
                var got = new Vec2[n];
                a.GetPreferredVelocities(got);
                Ensure(got.SequenceEqual(pref), "preferred velocities read back");
                Same(pref[3], a.GetPreferredVelocity(a.AgentAt(3)), "one read back");
                // floats widen exactly
                var fp = pref.Select(v => new System.Numerics.Vector2((float)v.X, (float)v.Y)).ToArray();
                a.SetPreferredVelocities(fp);
                a.GetPreferredVelocities(got);
                Same((double)fp[9].Y, got[9].Y, "float preferred velocity");
                // swap exchanges
                var swap = (Vec2[])pref.Clone();
                a.SwapPreferredVelocities(swap);
                Same((double)fp[9].Y, swap[9].Y, "swap gave the previous values");
                Span<Vec2> s2 = swap;
                a.SwapPreferredVelocities(s2);
                a.GetPreferredVelocities(got);
                Same((double)fp[9].Y, got[9].Y, "swapped back through a span");
                a.Step(0.25);
                b.SetPreferredVelocities(fp);
                b.Step(0.25);
                Same(a.Hash, b.Hash, "after a step");
                // Vec2 and System.Numerics.Vector2
                Vec2 w = new System.Numerics.Vector2(1.5f, -2.25f);
                Same(new Vec2(1.5, -2.25), w, "implicit from Vector2");
                Same(new System.Numerics.Vector2(0.1f, 3f), (System.Numerics.Vector2)new Vec2(0.1, 3), "explicit to Vector2");
                Same("(0.1, -3)", new Vec2(0.1, -3).ToString(), "ToString");
                // empty simulations
                using (var e = new Simulation()) {
                    e.SetPreferredVelocities(new Vec2[0]);
                    Same(0, e.GetPositions().Length, "no positions");
                }
            }
        }

        private static void TestAgentsSegmentsBoundaries()
        {
            using (var sim = new Simulation()) {
                AgentId[] ids = sim.AddAgents(Enumerable.Range(0, 6).Select(i => AgentDef.At(new Vec2(i * 3, 0))).ToArray());
                Same(6, sim.AgentCount, "agents");
                Same(2, sim.AgentIndex(ids[2]), "index");
                sim.RemoveAgents(new[] { ids[1], ids[4] });
                Same(4, sim.AgentCount, "after removing two");
                Same(ids[5], sim.AgentAt(3), "order kept");
                Ensure(sim.AgentAt(9).IsNull, "null handle out of range");
                SegmentId[] poly = sim.AddPolyline(new[] { new Vec2(0, 5), new Vec2(5, 5), new Vec2(5, 9) }, false);
                Same(2, poly.Length, "open polyline");
                SegmentId[] segs = sim.AddSegments(new[] { new Vec2(-9, 0) }, new[] { new Vec2(-9, 4) });
                Same(3, sim.SegmentCount, "segments");
                Vec2 p, q;
                sim.GetSegment(segs[0], out p, out q);
                Same(new Vec2(-9, 4), q, "segment end");
                sim.RemoveSegments(poly);
                Same(1, sim.SegmentCount, "after removing the polyline");
                Same(segs[0], sim.SegmentAt(0), "segment order");
                var loop = new[] { new Vec2(-20, -20), new Vec2(30, -20), new Vec2(30, 20), new Vec2(-20, 20) };
                BoundaryId bid = sim.AddBoundary(loop);
                Same(1, sim.BoundaryCount, "loops");
                Same(bid, sim.BoundaryAt(0), "loop handle");
                Ensure(sim.GetBoundary(bid).SequenceEqual(loop), "loop points");
                double deepest;
                int outside;
                sim.MeasureBoundary(out deepest, out outside);
                Same(0, outside, "agents outside");
                Ensure(sim.SeparationActive, "a loop makes the step separate coincident agents");
                sim.RemoveBoundary(bid);
                Same(0, sim.BoundaryCount, "loop removed");
            }
        }

        private static void TestExtensionsAndDiagnostics()
        {
            using (Simulation sim = Small()) {
                AgentId a = sim.AgentAt(1);
                AgentAvoidance av = sim.GetAvoidance(a);
                Same(1.0, av.Priority, "default priority");
                sim.SetPriority(a, 4);
                sim.SetLayers(a, 3, 5);
                sim.SetLocked(a, true);
                av = sim.GetAvoidance(a);
                Ensure(av.Priority == 4 && av.Layers == 3 && av.Mask == 5 && av.Locked == 1, "avoidance fields");
                Ensure(!sim.Separation, "separation off");
                sim.Separation = true;
                Ensure(sim.Separation && sim.SeparationActive, "separation on");
                Ensure(!sim.DensitySpeed.HasValue, "density speed off");
                sim.DensitySpeed = DensitySpeed.Default;
                Same(1.913, sim.DensitySpeed.Value.Gamma, "density gamma");
                sim.DensitySpeed = null;
                Ensure(!sim.DensitySpeed.HasValue, "density speed off again");
                // the pedestrian model (docs/pedestrians.md): on, a stream, its counts
                Ensure(!sim.Pedestrian.HasValue, "pedestrian model off");
                sim.Pedestrian = Pedestrian.Default;
                Ensure(sim.Pedestrian.Value.TimeGap == 0.5 && sim.Pedestrian.Value.MaxPlanes == 4, "pedestrian defaults");
                sim.SetStream(sim.AgentAt(2), 3);
                Same(3, sim.GetStream(sim.AgentAt(2)), "stream");
                Same(-1, sim.GetStream(sim.AgentAt(3)), "no stream");
                RefusedUnchanged(sim, Status.Argument, "stream", () => sim.SetStream(sim.AgentAt(2), -2), "stream -2");
                sim.Diagnostics = true;
                sim.Step(0.25);
                Same(sim.GetAllDiagnostics().Sum(d => d.HeadwayPlanes), sim.StepDiagnostics.Headway, "headway sum");
                sim.Pedestrian = null;
                Ensure(!sim.Pedestrian.HasValue, "pedestrian model off again");
                sim.Step(0.25);
                AgentDiagnostics[] all = sim.GetAllDiagnostics();
                Same(10, all.Length, "diagnostics of every agent");
                Same(1, all[1].Locked, "the locked agent");
                Same(all[4].Candidates, sim.GetDiagnostics(sim.AgentAt(4)).Candidates, "bulk equals one");
                StepDiagnostics st = sim.StepDiagnostics;
                Same(10, st.Agents, "agents in the step");
                Same(all.Sum(d => d.Blocked), st.Blocked, "blocked sum");
                Same(1, st.Locked, "locked count");
                int hard;
                HalfPlane[] planes = sim.AgentConstraints(sim.AgentAt(4), 0.25, out hard);
                int[] agents, segments;
                sim.AgentNeighbors(sim.AgentAt(4), out agents, out segments);
                Same(agents.Length + segments.Length, planes.Length, "a constraint per neighbour and wall");
                Same(2, hard, "hard: the wall's and the locked neighbour's (agent 1)");
                Ensure(agents.Contains(1) && segments.Length == 1, "agent 1 and the wall are neighbours");
                double ao, wo;
                sim.MeasureOverlap(out ao, out wo);
                Ensure(ao >= 0 && wo >= 0, "overlaps");
                Ensure(sim.LastFallbackCount >= 0, "fallback count");
            }
        }

        private static void TestQueries()
        {
            using (Simulation sim = Small()) {
                Vec2[] pos = sim.GetPositions();
                Vec2 c = new Vec2(10, 1);
                int[] near = sim.QueryRadius(c, 6);
                var brute = Enumerable.Range(0, pos.Length)
                    .Select(i => new { i, d = (pos[i].X - c.X) * (pos[i].X - c.X) + (pos[i].Y - c.Y) * (pos[i].Y - c.Y) })
                    .Where(x => x.d <= 36).OrderBy(x => x.d).ThenBy(x => x.i).Select(x => x.i).ToArray();
                Ensure(near.SequenceEqual(brute), "radius query equals a scan");
                int[] k3 = sim.QueryNearest(c, 3);
                var order = Enumerable.Range(0, pos.Length)
                    .OrderBy(i => (pos[i].X - c.X) * (pos[i].X - c.X) + (pos[i].Y - c.Y) * (pos[i].Y - c.Y)).ThenBy(i => i);
                Ensure(k3.SequenceEqual(order.Take(3)), "3 nearest equal a scan");
                Same(10, sim.QueryNearest(c, 50).Length, "k beyond the count");
                int[] box = sim.QueryBox(new Vec2(0, -1), new Vec2(12, 10));
                var inBox = Enumerable.Range(0, pos.Length)
                    .Where(i => pos[i].X >= 0 && pos[i].X <= 12 && pos[i].Y >= -1 && pos[i].Y <= 10).ToArray();
                Ensure(box.SequenceEqual(inBox), "box query equals a scan");
            }
        }

        private static void TestScenarioApi()
        {
            using (var sc = new Scenario(0.1, 5)) {
                sc.Name = "mine";
                Same("mine", sc.Name, "name");
                Same(5ul, sc.Seed, "seed");
                AgentDef d = AgentDef.At(new Vec2(0, 0));
                d.Radius = 0.5;
                sc.AddAgent(d, Goal.ToPoint(new Vec2(10, 0), 1.5));
                sc.AddAgent(AgentDef.At(new Vec2(0, 5)), Goal.WithVelocity(new Vec2(0.5, 0)));
                Vec2 start;
                Goal g = sc.GetGoal(0, out start);
                Same(GoalKind.Point, g.Kind, "goal kind");
                Same(new Vec2(10, 0), g.Target, "goal target");
                sc.SetWaypoints(0, new[] { new Vec2(5, 3) }, false, 0.5);
                bool loop;
                double arrive;
                Vec2[] wp = sc.GetWaypoints(0, out loop, out arrive);
                Ensure(wp.Length == 1 && !loop && arrive == 0.5, "waypoints read back");
                Same(0, sc.GetWaypointIndex(0), "first waypoint");
                int set = sc.AddGoalSet("gate", new[] { new Vec2(20, 20) });
                Same(set, sc.FindGoalSet("gate"), "find the set");
                Same(-1, sc.FindGoalSet("nope"), "no such set");
                Same(1, sc.GoalSetCount, "sets");
                string name;
                Same(new Vec2(20, 20), sc.GetGoalSet(set, out name)[0], "set point");
                Same("gate", name, "set name");
                sc.SetGoalSetExit(set, 0);
                double ad;
                Ensure(sc.GetGoalSetExit(set, out ad) && ad == 0, "exit");
                sc.Navigation = true;
                Ensure(sc.Navigation, "navigation on");
                sc.Recording = true;
                sc.Step(120);
                Same(1, sc.GetWaypointIndex(0), "waypoint passed");
                NavCorner[] corners;
                NavAgent nav = sc.GetNavigation(0, out corners);
                Same(1, nav.Navigating, "navigating");
                Same(0, sc.NavigationUnreachable, "unreachable");
                Ensure(sc.ArrivedCount >= 1, "arrived");
                Ensure(sc.MaxAgentOverlap >= 0 && sc.MaxWallOverlap >= 0, "overlaps recorded");
                Ensure(sc.FallbackTotal >= 0, "fallback total");
                Ensure(sc.AllArrivedStep >= -1, "all arrived step");
            }
        }

        // Navigation's options (docs/navigation.md): the setters do what the scene file's
        // keywords do (the same hash every step), the counts add up once everyone has left,
        // and bad values are refused without a change.
        private static string ExitScene(string navigation, string exit)
        {
            var text = new System.Text.StringBuilder();
            text.Append("orca-scene 1\ndt 0.25\n").Append(navigation).Append('\n');
            text.Append("polyline 0 0 12 0 12 12 0 12 0 0\n");
            text.Append("goalset doors 1 1 11 11 ").Append(exit).Append('\n');
            for (int k = 0; k < 16; ++k) {
                text.AppendFormat("agent {0} {1} goalset doors radius=0.3\n", 3 + (k % 4) * 2, 3 + (k / 4) * 2);
            }
            return text.ToString();
        }

        private static void TestExitChoiceAndNavCounts()
        {
            using (Scenario a = Scenario.FromSceneText(ExitScene("navigation on check=on exits=quickest", "exit arrive=0.5 capacity=2.5"), "a.txt"))
            using (Scenario b = Scenario.FromSceneText(ExitScene("navigation on", "exit arrive=0.5"), "b.txt"))
            using (Scenario plain = Scenario.FromSceneText(ExitScene("navigation on", "exit arrive=0.5"), "plain.txt")) {
                Ensure(a.NavCheck && a.ExitChoice == ExitChoice.Quickest && a.GetGoalSetCapacity(0) == 2.5, "the file's keywords");
                Ensure(!b.NavCheck && b.ExitChoice == ExitChoice.Nearest, "the defaults");
                b.NavCheck = true;
                b.ExitChoice = ExitChoice.Quickest;
                b.SetGoalSetCapacity(0, 2.5);
                Same("calm", Scenario.ExitChoiceName(ExitChoice.Calm), "a choice's name");
                Same(null, Scenario.ExitChoiceName((ExitChoice)7), "no name");
                ExitChoice parsed;
                Ensure(Scenario.TryParseExitChoice("quickest", out parsed) && parsed == ExitChoice.Quickest, "parse");
                Ensure(!Scenario.TryParseExitChoice("fastest", out parsed), "unknown name");
                ulong before = b.Hash;
                Refused(Status.Argument, () => b.ExitChoice = (ExitChoice)7, "a choice out of the enum");
                Refused(Status.Argument, () => b.SetGoalSetCapacity(0, 0), "capacity 0");
                Refused(Status.Argument, () => b.SetGoalSetCapacity(0, double.PositiveInfinity), "capacity infinite");
                Refused(Status.Argument, () => b.SetGoalSetCapacity(1, 1), "no such set");
                Same(before, b.Hash, "refusals change nothing");
                Same(2.5, b.GetGoalSetCapacity(0), "capacity kept");
                int n = a.Simulation.AgentCount, steps = 0;
                long last;
                while (a.GetExited(out last) < n && steps < 2000) {
                    a.Step();
                    b.Step();
                    ++steps;
                    Same(a.Hash, b.Hash, "hash at step " + steps);
                }
                Same(n, a.GetExited(out last), "everyone left");
                plain.Step(steps);
                Ensure(plain.Hash != a.Hash, "the options change this scene's walk");
                NavCounts c = a.NavCounts;
                Same(n, c.Exited, "counts: exited");
                Same(n, c.Arrived, "counts: arrived");
                Same(0, c.AtExits, "counts: none left at an exit");
                Ensure(c.Plans >= n && c.MostChanges <= 2 && c.Unreachable == 0, "counts: plans " + c.Plans + ", most changes " + c.MostChanges);
                long lastOfAll = -1;
                int departed = 0;
                for (int point = 0; point < 2; ++point) {
                    long lp;
                    departed += a.GetExitDepartures(0, point, out lp);
                    lastOfAll = Math.Max(lastOfAll, lp);
                }
                Same(n, departed, "departures add up");
                Same(last, lastOfAll, "the last departure");
            }
        }

        private static void TestNavigator()
        {
            using (var sim = new Simulation())
            using (var nav = new Navigator(sim)) {
                double len;
                int goal;
                NavCorner[] corners;
                Same(NavResult.Ok, nav.Path(0.5, new Vec2(0, 0), new[] { new Vec2(3, 4) }, out len, out goal, out corners), "open floor");
                Same(5.0, len, "length");
                Same(0, corners.Length, "no corners");
                sim.AddSegment(new Vec2(5, -10), new Vec2(5, 10));
                Same(NavResult.Ok, nav.Path(0.5, new Vec2(0, 0), new[] { new Vec2(10, 0) }, out len, out goal, out corners), "round the wall");
                Same(1, corners.Length, "round one end: one corner");
                Ensure(len > 10, "longer than straight");
                Ensure(!nav.Visible(0, new Vec2(0, 0), new Vec2(10, 0)), "the wall blocks the view");
                Ensure(nav.Visible(0.5, new Vec2(0, 11), new Vec2(10, 11)), "above the wall, 1 m away");
                Ensure(!nav.Visible(1.0, new Vec2(0, 11), new Vec2(10, 11)), "not farther than 1 m");
                Ensure(nav.Stats(0.5).Walls == 1, "stats");
                OrcaException e = Refused(Status.Argument, () => nav.Visible(-1, new Vec2(0, 0), new Vec2(1, 1)), "radius -1");
                Ensure(e.Message.Contains("radius"), e.Message);
                Refused(Status.Argument, () => nav.Path(0, new Vec2(0, 0), new[] { new Vec2(1, 1) }, out len, out goal, out corners), "path radius 0");
                Refused(Status.Argument, () => nav.Path(1, new Vec2(0, 0), new Vec2[0], out len, out goal, out corners), "no goals");
            }
        }

        private static void TestSolverBlocksEqualTheStep()
        {
            using (Simulation sim = Small()) {
                AgentId a = sim.AgentAt(4);
                int hard;
                HalfPlane[] planes = sim.AgentConstraints(a, 0.25, out hard);
                AgentDef d = sim.GetAgent(a);
                SolveResult r = Solver.Solve(planes, hard, d.MaxSpeed, d.PreferredVelocity);
                sim.Step(0.25);
                Same(r.Velocity, sim.GetVelocity(a), "the step's velocity is orca_solve's");
            }
            LpResult lp = Solver.LpSolve(new HalfPlane[0], 2.0, new Vec2(3, 4));
            Same(-1, lp.Failed, "feasible");
            Same(new Vec2(1.2, 1.6), lp.Velocity, "clipped to the disc");
            Refused(Status.Argument, () => Solver.LpSolve(new HalfPlane[0], -1, new Vec2(0, 0)), "max speed -1");
            ConstraintForm form;
            HalfPlane h = Solver.ConstraintAgent(new Vec2(4, 0), 1, new Vec2(2, 0), new Vec2(0, 0), 2, 0.25, 0.5, out form);
            Same(ConstraintForm.Cases, form, "apart: the case form");
            Ensure(Solver.SignedDistance(h, new Vec2(2, 0)) < 0, "the current velocity violates it");
            HalfPlane hs = Solver.ConstraintSegment(new Vec2(2, -1), new Vec2(2, 1), 0.5, 2, 0.25, out form);
            Same(ConstraintForm.Support, form, "segment apart: the support form");
            HalfPlane hb;
            Ensure(!Solver.ConstraintBoundary(new Vec2(0, 0), new Vec2(0, 0), 0, 1, out hb), "a zero stretch gives none");
            VelocityObstacle vo = Solver.VoSupport(new Vec2(3, 0), new Vec2(3, 0), 1, 2, new Vec2(0, 0));
            Ensure(vo.Distance > 0, "zero velocity outside the obstacle");
            Same(VoCaseKind.Cutoff, Solver.VoAgentCases(new Vec2(3, 0), 1, 2, new Vec2(1, 0)).Kind, "cut-off case");
            Same(9.0, Solver.SegmentDistanceSquared(new Vec2(3, -1), new Vec2(3, 1)), "distance squared");
            Same(-1, Solver.LpSolveDirection(new HalfPlane[0], 1, new Vec2(0, 1)).Failed, "direction program");
            Vec2 fb = Solver.LpFallback(new[] { hs, h }, 1, 1, 2.0);
            Ensure(!double.IsNaN(fb.X), "fallback velocity");
            Ensure(Solver.VoOverlap(new Vec2(0.5, 0), new Vec2(0.5, 0), 1, 0.25, new Vec2(0, 0)).Distance < 0, "overlap form: inside");
        }

        private static void TestRunTask()
        {
            using (Simulation sim = Small(3)) {
                var done = new int[1000];
                sim.RunTask(done.Length, (begin, end, worker) => {
                    for (int i = begin; i < end; ++i) {
                        done[i] += 1 + worker * 0;
                    }
                });
                Ensure(done.All(x => x == 1), "every item once");
                try {
                    sim.RunTask(10, (b, e, w) => { throw new InvalidOperationException("inside"); });
                    throw new Failure("the task's exception was lost");
                } catch (InvalidOperationException) {
                }
            }
        }

        // The allocator hooks through C# delegates: count the blocks, then fail allocations
        // (Status.Memory with the state unchanged), then restore the C library's.
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        private delegate IntPtr AllocFn(UIntPtr size, IntPtr context);
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        private delegate IntPtr ResizeFn(IntPtr ptr, UIntPtr size, IntPtr context);
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        private delegate void ReleaseFn(IntPtr ptr, IntPtr context);

        private static int live_, failAfter_ = -1;

        private static unsafe void TestAllocatorHooks()
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
            AllocFn alloc = (size, ctx) => {
                if (failAfter_ == 0) {
                    return IntPtr.Zero;
                }
                if (failAfter_ > 0) {
                    --failAfter_;
                }
                ++live_;
                return Marshal.AllocHGlobal((IntPtr)(long)size.ToUInt64());
            };
            ResizeFn resize = (p, size, ctx) => failAfter_ == 0 ? IntPtr.Zero : Marshal.ReAllocHGlobal(p, (IntPtr)(long)size.ToUInt64());
            ReleaseFn release = (p, ctx) => {
                --live_;
                Marshal.FreeHGlobal(p);
            };
            Allocator hooks = new Allocator {
                Alloc = Marshal.GetFunctionPointerForDelegate(alloc),
                Resize = Marshal.GetFunctionPointerForDelegate(resize),
                Release = Marshal.GetFunctionPointerForDelegate(release),
            };
            Allocator none = new Allocator();
            Same(Status.Null, Native.orca_set_allocator(&none), "hooks without functions");
            Same(Status.Ok, Native.orca_set_allocator(&hooks), "install the hooks");
            try {
                Same(hooks.Alloc, Native.orca_get_allocator().Alloc, "the hooks in use");
                using (Simulation sim = Small()) {
                    Ensure(live_ > 0, "allocations went through the hooks");
                    failAfter_ = 0;
                    AgentDef[] many = Enumerable.Range(0, 5000).Select(i => AgentDef.At(new Vec2(i, 50))).ToArray();
                    RefusedUnchanged(sim, Status.Memory, "", () => sim.AddAgents(many), "5000 agents without memory");
                    failAfter_ = -1;
                }
                failAfter_ = 0;
                Refused(Status.Memory, () => new Simulation().Dispose(), "a simulation without memory");
                failAfter_ = -1;
                Same(0, live_, "every block released");
            } finally {
                failAfter_ = -1;
                Native.orca_set_allocator(null);
                GC.KeepAlive(alloc);
                GC.KeepAlive(resize);
                GC.KeepAlive(release);
            }
        }
    }
}
