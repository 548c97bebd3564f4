// SPDX-License-Identifier: MIT
// The RVO2-CS drop-in (Orca.RVO): it gives the bits of an Orca.Simulation driven the same
// way, its getters and setters, obstacles and their vertex numbers, visibility, the
// neighbour getters with and without RecordNeighbors, refusals, and worker counts.
using System;
using System.Collections.Generic;
using System.Linq;
using Orca;
using Orca.RVO;

namespace OrcaTests
{
    internal static partial class Tests
    {
        private static Simulator Rvo
        {
            get {
                Simulator.Instance.Clear();
                return Simulator.Instance;
            }
        }

        /// <summary>A small crowd through the drop-in: 12 agents crossing, one obstacle.
        /// </summary>
        private static void RvoCrowd(Simulator s)
        {
            s.setTimeStep(0.25f);
            s.setAgentDefaults(15.0f, 10, 5.0f, 5.0f, 0.75f, 1.5f, new Orca.RVO.Vector2(0.0f, 0.0f));
            for (int i = 0; i < 12; ++i) {
                s.addAgent(new Orca.RVO.Vector2(i * 2.5f - 14.0f, (i % 2) * 6.0f - 3.0f));
            }
            s.addObstacle(new List<Orca.RVO.Vector2> {
                new Orca.RVO.Vector2(-1.0f, -0.5f), new Orca.RVO.Vector2(1.0f, -0.5f),
                new Orca.RVO.Vector2(1.0f, 0.5f), new Orca.RVO.Vector2(-1.0f, 0.5f),
            });
            s.processObstacles();
        }

        private static Orca.RVO.Vector2 RvoPreferred(int i, Orca.RVO.Vector2 p)
        {
            Orca.RVO.Vector2 goal = new Orca.RVO.Vector2(-(i * 2.5f - 14.0f), -((i % 2) * 6.0f - 3.0f));
            Orca.RVO.Vector2 v = goal - p;
            return RVOMath.absSq(v) > 1.0f ? RVOMath.normalize(v) : v;
        }

        private static void TestRvoEqualsTheBinding()
        {
            Simulator s = Rvo;
            RvoCrowd(s);
            using (var sim = new Simulation()) {
                for (int i = 0; i < 12; ++i) {
                    AgentDef d = AgentDef.Default;
                    d.Position = new Vec2(i * 2.5f - 14.0f, (i % 2) * 6.0f - 3.0f);
                    d.NeighborDist = 15;
                    d.MaxNeighbors = 10;
                    d.TimeHorizon = 5;
                    d.ObstacleTimeHorizon = 5;
                    d.Radius = 0.75;
                    d.MaxSpeed = 1.5;
                    sim.AddAgent(d);
                }
                sim.AddPolyline(new[] { new Vec2(-1, -0.5), new Vec2(1, -0.5), new Vec2(1, 0.5), new Vec2(-1, 0.5) }, true);
                Same(sim.Hash, s.Simulation.Hash, "as built");
                for (int k = 0; k < 60; ++k) {
                    for (int i = 0; i < 12; ++i) {
                        // the program's float arithmetic, widened exactly by both
                        Orca.RVO.Vector2 p = s.getAgentPosition(i);
                        Orca.RVO.Vector2 v = RvoPreferred(i, p);
                        s.setAgentPrefVelocity(i, v);
                        sim.SetPreferredVelocity(sim.AgentAt(i), new Vec2(v.x(), v.y()));
                    }
                    Same(0.25f * (k + 1), s.doStep(), "global time");
                    sim.Step(0.25);
                    for (int i = 0; i < 12; ++i) {
                        // positions are floats there: the bits of the state may then differ
                        // from sim's only through the preferred velocities, which are the same
                        Vec2 q = sim.GetPosition(sim.AgentAt(i));
                        Same(new Orca.RVO.Vector2((float)q.X, (float)q.Y).ToString(), s.getAgentPosition(i).ToString(), "position rounded");
                    }
                }
                Same(sim.Hash, s.Simulation.Hash, "after 60 steps");
            }
        }

        private static void TestRvoGettersAndSetters()
        {
            Simulator s = Rvo;
            Same(-1, s.addAgent(new Orca.RVO.Vector2(0, 0)), "addAgent without defaults");
            int a = s.addAgent(new Orca.RVO.Vector2(1.0f, 2.0f), 9.0f, 7, 3.0f, 4.0f, 0.5f, 1.25f, new Orca.RVO.Vector2(0.5f, 0.0f));
            Same(0, a, "first agent");
            Same(9.0f, s.getAgentNeighborDist(a), "neighbour distance");
            Same(7, s.getAgentMaxNeighbors(a), "max neighbours");
            Same(3.0f, s.getAgentTimeHorizon(a), "time horizon");
            Same(4.0f, s.getAgentTimeHorizonObst(a), "obstacle horizon");
            Same(0.5f, s.getAgentRadius(a), "radius");
            Same(1.25f, s.getAgentMaxSpeed(a), "max speed");
            Same("(0.5,0)", s.getAgentVelocity(a).ToString(), "velocity");
            s.setAgentNeighborDist(a, 4.0f);
            s.setAgentMaxNeighbors(a, 3);
            s.setAgentTimeHorizon(a, 1.5f);
            s.setAgentTimeHorizonObst(a, 2.5f);
            s.setAgentRadius(a, 0.25f);
            s.setAgentMaxSpeed(a, 2.0f);
            s.setAgentVelocity(a, new Orca.RVO.Vector2(0.0f, 1.0f));
            s.setAgentPosition(a, new Orca.RVO.Vector2(3.0f, 3.0f));
            s.setAgentPrefVelocity(a, new Orca.RVO.Vector2(-1.0f, 0.0f));
            Ensure(s.getAgentNeighborDist(a) == 4 && s.getAgentMaxNeighbors(a) == 3 && s.getAgentTimeHorizon(a) == 1.5f &&
                   s.getAgentTimeHorizonObst(a) == 2.5f && s.getAgentRadius(a) == 0.25f && s.getAgentMaxSpeed(a) == 2,
                   "parameters set");
            Same("(0,1)", s.getAgentVelocity(a).ToString(), "velocity set");
            Same("(3,3)", s.getAgentPosition(a).ToString(), "position set");
            Same("(-1,0)", s.getAgentPrefVelocity(a).ToString(), "preferred velocity set");
            s.setTimeStep(0.5f);
            Same(0.5f, s.getTimeStep(), "time step");
            s.setGlobalTime(10.0f);
            Same(10.5f, s.doStep(), "global time");
            Same(10.5f, s.getGlobalTime(), "global time read");
            Same(1, s.getNumAgents(), "agents");
            // refusals: the library's message, nothing changes
            ulong h = s.Simulation.Hash;
            Refused(Status.Argument, () => s.setAgentRadius(a, 0.0f), "radius 0");
            Refused(Status.Argument, () => s.setAgentMaxSpeed(a, float.NaN), "max speed NaN");
            Refused(Status.Argument, () => s.addAgent(new Orca.RVO.Vector2(0, 0), 1, 1, 1, 1, -1, 1, new Orca.RVO.Vector2(0, 0)), "radius -1");
            Same(h, s.Simulation.Hash, "unchanged by the refusals");
            Same(1, s.getNumAgents(), "no agent added");
            s.setTimeStep(-1.0f);
            Refused(Status.Argument, () => s.doStep(), "time step -1");
            Same(10.5f, s.getGlobalTime(), "no time passed");
            try {
                s.getAgentRadius(5);
                throw new Failure("agent 5 answered");
            } catch (ArgumentOutOfRangeException) {
            }
        }

        private static void TestRvoObstaclesAndVisibility()
        {
            Simulator s = Rvo;
            Same(-1, s.addObstacle(new List<Orca.RVO.Vector2> { new Orca.RVO.Vector2(0, 0) }), "one vertex");
            var square = new List<Orca.RVO.Vector2> {
                new Orca.RVO.Vector2(0, 0), new Orca.RVO.Vector2(4, 0), new Orca.RVO.Vector2(4, 4), new Orca.RVO.Vector2(0, 4),
            };
            Same(0, s.addObstacle(square), "first vertex of the square");
            Same(4, s.addObstacle(new List<Orca.RVO.Vector2> { new Orca.RVO.Vector2(10, 0), new Orca.RVO.Vector2(10, 4) }), "first vertex of the segment");
            Same(6, s.getNumObstacleVertices(), "vertices before processing");
            Same(1, s.getNextObstacleVertexNo(0), "next of 0");
            Same(0, s.getNextObstacleVertexNo(3), "next of 3 closes the square");
            Same(3, s.getPrevObstacleVertexNo(0), "previous of 0");
            Same(4, s.getNextObstacleVertexNo(5), "a segment's two vertices");
            Same("(4,4)", s.getObstacleVertex(2).ToString(), "vertex 2");
            Orca.RVO.Vector2 p = new Orca.RVO.Vector2(-2, 2), q = new Orca.RVO.Vector2(12, 2);
            Ensure(s.queryVisibility(p, q, 0), "nothing processed: visible");
            Same(0, s.Simulation.SegmentCount, "nothing in the simulation yet");
            s.processObstacles();
            Same(5, s.Simulation.SegmentCount, "4 edges and 1 segment");
            Ensure(!s.queryVisibility(p, q, 0), "through the square");
            Ensure(s.queryVisibility(new Orca.RVO.Vector2(-2, 6), new Orca.RVO.Vector2(12, 6), 1.5f), "2 m above, radius 1.5");
            Ensure(!s.queryVisibility(new Orca.RVO.Vector2(-2, 6), new Orca.RVO.Vector2(12, 6), 2.0f), "2 m above, radius 2");
            Ensure(!s.queryVisibility(new Orca.RVO.Vector2(6, 2), new Orca.RVO.Vector2(14, 2), 0), "through the segment");
            Refused(Status.Argument, () => s.queryVisibility(p, q, -1), "radius -1");
            // a bad vertex is refused at processing, and nothing of the batch is added
            s.addObstacle(new List<Orca.RVO.Vector2> { new Orca.RVO.Vector2(20, 0), new Orca.RVO.Vector2(21, 0), new Orca.RVO.Vector2(21, 1) });
            s.addObstacle(new List<Orca.RVO.Vector2> { new Orca.RVO.Vector2(30, 0), new Orca.RVO.Vector2(float.NaN, 0) });
            Refused(Status.Argument, () => s.processObstacles(), "a NaN vertex");
            Same(5, s.Simulation.SegmentCount, "no segment of the refused batch");
            // the obstacle neighbours name the first vertex of their edge
            s.setAgentDefaults(10, 10, 2, 2, 0.5f, 1, new Orca.RVO.Vector2(0, 0));
            int a = s.addAgent(new Orca.RVO.Vector2(2, 5));
            int[] agents, segments;
            s.Simulation.AgentNeighbors(s.Simulation.AgentAt(a), out agents, out segments);
            Same(segments.Length, s.getAgentNumObstacleNeighbors(a), "obstacle neighbours");
            var first = Enumerable.Range(0, segments.Length).Select(k => s.getAgentObstacleNeighbor(a, k)).ToList();
            // segment k of the square is the edge from vertex k; the segment's is vertex 4
            Ensure(first.SequenceEqual(segments.Select(k => k < 4 ? k : 4)), "first vertices " + string.Join(",", first));
            Ensure(first.Contains(2), "the square's top edge (from vertex 2) is a neighbour");
        }

        private static void TestRvoNeighborsAndLines()
        {
            Simulator s = Rvo;
            RvoCrowd(s);
            s.SetNumWorkers(1);
            for (int i = 0; i < 12; ++i) {
                s.setAgentPrefVelocity(i, RvoPreferred(i, s.getAgentPosition(i)));
            }
            // current state: what the next step uses
            int n = s.getAgentNumAgentNeighbors(5);
            int[] agents, segments;
            s.Simulation.AgentNeighbors(s.Simulation.AgentAt(5), out agents, out segments);
            Same(agents.Length, n, "neighbours now");
            Same(agents[0], s.getAgentAgentNeighbor(5, 0), "nearest neighbour");
            IList<Line> lines = s.getAgentOrcaLines(5);
            int hard;
            HalfPlane[] planes = s.Simulation.AgentConstraints(s.Simulation.AgentAt(5), 0.25, out hard);
            Same(planes.Length, lines.Count, "a line per half-plane");
            Same((float)planes[0].Normal.Y, lines[0].direction.x(), "direction = normal turned clockwise (x)");
            Same((float)-planes[0].Normal.X, lines[0].direction.y(), "direction = normal turned clockwise (y)");
            // recorded: what the last step used
            s.RecordNeighbors = true;
            byte[] before = s.Simulation.Save();
            s.doStep();
            using (var then = new Simulation()) {
                then.Load(before);
                then.AgentNeighbors(then.AgentAt(5), out agents, out segments);
                Same(agents.Length, s.getAgentNumAgentNeighbors(5), "neighbours of the last step");
                Same(agents[agents.Length - 1], s.getAgentAgentNeighbor(5, agents.Length - 1), "last neighbour of the last step");
                Same(segments.Length, s.getAgentNumObstacleNeighbors(5), "obstacles of the last step");
                planes = then.AgentConstraints(then.AgentAt(5), 0.25, out hard);
                Same((float)planes[planes.Length - 1].Point.X, s.getAgentOrcaLines(5)[planes.Length - 1].point.x(), "line of the last step");
            }
            s.RecordNeighbors = false;
        }

        private static void TestRvoWorkersSameBits()
        {
            string[] hashes = new string[3];
            int[] workers = { 1, 2, 0 };
            for (int w = 0; w < 3; ++w) {
                Simulator s = Rvo;
                s.SetNumWorkers(workers[w]);
                Ensure(s.GetNumWorkers() >= 1, "workers");
                RvoCrowd(s);
                for (int k = 0; k < 40; ++k) {
                    for (int i = 0; i < 12; ++i) {
                        s.setAgentPrefVelocity(i, RvoPreferred(i, s.getAgentPosition(i)));
                    }
                    s.doStep();
                }
                hashes[w] = s.Simulation.HexHash;
            }
            Ensure(hashes.Distinct().Count() == 1, "1, 2 and the processor count of workers: " + string.Join(" ", hashes));
            Same(Math.Min(Environment.ProcessorCount, 64), Simulator.Instance.GetNumWorkers(), "0 means the processor count");
            Refused(Status.Argument, () => Simulator.Instance.SetNumWorkers(65), "65 workers");
        }
    }
}
