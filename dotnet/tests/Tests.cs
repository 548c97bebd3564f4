// SPDX-License-Identifier: MIT
// The binding's tests (scripts/test-dotnet builds and runs them under Mono): a tiny runner in
// the style of test/test.h, one method per test. Prints "ok NAME" or "FAIL NAME: why" for
// each and "dotnet-tests: N passed, N failed".
//   mono Tests.exe ROOT SCENE_CALLS_OUTPUT [NAME ...]
// ROOT is the repository (test/golden/, include/orca/); SCENE_CALLS_OUTPUT what
// dotnet/tests/scene_calls.c printed.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Runtime.InteropServices;
using System.Text.RegularExpressions;
using Orca;

namespace OrcaTests
{
    internal sealed class Failure : Exception
    {
        public Failure(string message) : base(message) { }
    }

    internal static partial class Tests
    {
        private static string root_;
        private static string sceneCalls_;

        private static void Ensure(bool condition, string what)
        {
            if (!condition) {
                throw new Failure(what);
            }
        }

        private static void Same<T>(T expected, T got, string what)
        {
            if (!EqualityComparer<T>.Default.Equals(expected, got)) {
                throw new Failure(what + ": expected " + expected + ", got " + got);
            }
        }

        /// <summary>Runs action, which must throw OrcaException with status; returns it.
        /// </summary>
        private static OrcaException Refused(Status status, Action action, string what)
        {
            try {
                action();
            } catch (OrcaException e) {
                if (e.Status != status) {
                    throw new Failure(what + ": status " + e.Status + " (" + e.Message + "), expected " + status);
                }
                Ensure(e.Message.Length > 0, what + ": empty message");
                return e;
            }
            throw new Failure(what + ": not refused (expected " + status + ")");
        }

        private static int Main(string[] args)
        {
            if (args.Length < 2) {
                Console.Error.WriteLine("usage: Tests.exe ROOT SCENE_CALLS_OUTPUT [NAME ...]");
                return 2;
            }
            root_ = args[0];
            sceneCalls_ = args[1];
            string[] only = args.Skip(2).ToArray();
            // the allocator test first: it may only run while no orca object exists
            var tests = typeof(Tests).GetMethods(BindingFlags.Static | BindingFlags.NonPublic)
                .Where(m => m.Name.StartsWith("Test", StringComparison.Ordinal) && m.GetParameters().Length == 0)
                .OrderBy(m => m.Name == "TestAllocatorHooks" ? 0 : 1).ThenBy(m => m.Name, StringComparer.Ordinal)
                .ToList();
            int passed = 0, failed = 0;
            foreach (MethodInfo m in tests) {
                string name = m.Name.Substring(4);
                if (only.Length > 0 && !only.Contains(name)) {
                    continue;
                }
                var watch = System.Diagnostics.Stopwatch.StartNew();
                try {
                    m.Invoke(null, null);
                    Console.WriteLine("ok   {0} ({1} ms)", name, watch.ElapsedMilliseconds);
                    ++passed;
                } catch (TargetInvocationException e) {
                    Exception inner = e.InnerException;
                    Console.WriteLine("FAIL {0}: {1}", name, inner is Failure ? inner.Message : inner.ToString());
                    ++failed;
                }
            }
            Console.WriteLine("dotnet-tests: {0} passed, {1} failed", passed, failed);
            return failed == 0 ? 0 : 1;
        }

        // --- the same bits as the C library ------------------------------------------------

        // test/determinism.c's cases: the agent count asked for (0: the scene's default)
        private static readonly Dictionary<string, int> Requested = new Dictionary<string, int> {
            { "circle", 100 }, { "crossing", 0 }, { "wallgap", 0 }, { "corridor", 0 }, { "random", 1000 },
        };

        private static List<string[]> Golden()
        {
            var rows = new List<string[]>();
            foreach (string line in File.ReadAllLines(Path.Combine(root_, "test", "golden", "determinism.txt"))) {
                Match m = Regex.Match(line, @"^(\w+) agents=(\d+) steps=(\d+) hash=([0-9a-f]{16})$");
                if (m.Success) {
                    rows.Add(new[] { m.Groups[1].Value, m.Groups[2].Value, m.Groups[3].Value, m.Groups[4].Value });
                }
            }
            return rows;
        }

        private static string RunScene(string name, int steps, int workers, bool vector, out int agents)
        {
            using (Scenario sc = Scenario.Builtin((SceneKind)Library.SceneFromName(name), Requested[name], 1, workers)) {
                sc.Simulation.VectorKernels = vector;
                sc.Step(steps);
                Same((ulong)steps, sc.Simulation.StepCount, name + " step count");
                agents = sc.Simulation.AgentCount;
                return sc.Simulation.HexHash;
            }
        }

        private static void TestGoldenHashes()
        {
            List<string[]> rows = Golden();
            Same(5, rows.Count, "scenes in test/golden/determinism.txt");
            foreach (string[] r in rows) {
                int agents;
                string hash = RunScene(r[0], int.Parse(r[2]), 1, true, out agents);
                Same(r[3], hash, r[0] + " hash at step " + r[2]);
                Same(int.Parse(r[1]), agents, r[0] + " agents");
            }
        }

        private static void TestCircleIs4be6d7e7a7e24a3a()
        {
            int agents;
            Same("4be6d7e7a7e24a3a", RunScene("circle", 400, 1, true, out agents), "circle at step 400");
        }

        private static void TestWorkersAndKernelsSameBits()
        {
            foreach (string[] r in Golden().Where(r => r[0] == "circle" || r[0] == "wallgap")) {
                foreach (var v in new[] { Tuple.Create(1, false), Tuple.Create(2, true), Tuple.Create(3, false) }) {
                    int agents;
                    Same(r[3], RunScene(r[0], int.Parse(r[2]), v.Item1, v.Item2, out agents),
                         r[0] + " on " + v.Item1 + " workers, vector kernels " + v.Item2);
                }
            }
        }

        private static void TestDefaultsScene()
        {
            // test/golden/defaults.txt: the Python binding's and the scene file's defaults scene
            // is a file; here only the agent defaults themselves, which every front end shares
            AgentDef d = AgentDef.Default;
            Same(1.5, d.Radius, "radius");
            Same(2.0, d.MaxSpeed, "max speed");
            Same(15.0, d.NeighborDist, "neighbour distance");
            Same(10, d.MaxNeighbors, "max neighbours");
            Same(10.0, d.TimeHorizon, "time horizon");
            Same(10.0, d.ObstacleTimeHorizon, "obstacle time horizon");
            Goal g = Goal.Default;
            Same(GoalKind.None, g.Kind, "goal kind");
            Same(1.0, g.PreferredSpeed, "goal speed");
            Same(1u, AgentAvoidance.Default.Layers, "layers");
            Same(5.4, DensitySpeed.Default.MaxDensity, "max density");
        }

        private static void TestSceneFiles()
        {
            // the scene files with recorded hashes: test/golden/defaults.txt and a validation run
            // of test/golden/validation.txt, read and built by the library's reader
            string[] defaults = File.ReadAllText(Path.Combine(root_, "test", "golden", "defaults.txt")).Split(' ', '=', '\n');
            string[] valid = File.ReadAllLines(Path.Combine(root_, "test", "golden", "validation.txt"))
                .First(l => l.StartsWith("rimea04-single-1-short.txt ", StringComparison.Ordinal)).Split(' ');
            var runs = new[] {
                new { File = Path.Combine("test", "golden", "defaults-scene.txt"), Steps = int.Parse(defaults[2]), Hash = defaults[4] },
                new { File = Path.Combine("examples", "validation", valid[0]), Steps = int.Parse(valid[1]), Hash = valid[2] },
            };
            foreach (var run in runs) {
                using (Scenario sc = Scenario.FromSceneFile(Path.Combine(root_, run.File))) {
                    sc.Step(run.Steps);
                    Same(run.Hash, sc.HexHash, run.File + ", " + run.Steps + " steps");
                }
            }
            // written and read back: the same text, the same steps; dt and seed replaced
            string patrol = Path.Combine(root_, "examples", "patrol.txt");
            using (Scenario a = Scenario.FromSceneFile(patrol))
            using (Scenario b = Scenario.FromSceneText(a.ToSceneFile("from C#"), "written.txt"))
            using (Scenario c = Scenario.FromSceneFile(patrol, 2, 0.125, 99)) {
                Same(a.ToSceneFile("from C#"), b.ToSceneFile("from C#"), "the text read back");
                a.Step(50);
                b.Step(50);
                Same(a.HexHash, b.HexHash, "read back, 50 steps");
                Same(0.125, c.Dt, "dt replaced");
                Same(99ul, c.Seed, "seed replaced");
            }
            OrcaException e = Refused(Status.Format, () => Scenario.FromSceneText("agent 0 0\nagent 3 0 radius=-1\n", "bad.txt"), "a bad line");
            Same("bad.txt:2: radius must be > 0, got '-1'", e.Message, "its message");
            e = Refused(Status.Argument, () => Scenario.FromSceneFile(Path.Combine(root_, "no-such-scene.txt")), "a missing file");
            Ensure(e.Message.Contains("no-such-scene.txt: cannot open"), e.Message);
            e = Refused(Status.Argument, () => Scenario.FromSceneText("boundary 0 0 10 0 10 10 0 10\nagent 30 5\n", "w.txt"), "an agent outside");
            Ensure(e.Message.StartsWith("w.txt:2: agent 0: ", StringComparison.Ordinal), e.Message);
        }

        private static Dictionary<string, string> SceneCallsOutput()
        {
            var lines = new Dictionary<string, string>();
            foreach (string line in File.ReadAllLines(sceneCalls_)) {
                int sp = line.IndexOf(' ');
                if (sp > 0) {
                    lines[line.Substring(0, sp) + " " + line.Substring(sp + 1).Split(' ')[0]] = line;
                }
            }
            return lines;
        }

        private static AgentDef PlainAgent(int i)
        {
            AgentDef d = AgentDef.Default;
            d.Position = new Vec2((i % 8) * 3.0 - 10.5, (i / 8) * 3.0 - 7.5);
            d.Radius = 0.5 + (i % 3) * 0.125;
            d.MaxSpeed = 1.5 + (i % 4) * 0.25;
            d.NeighborDist = 6.0;
            d.MaxNeighbors = 8;
            d.TimeHorizon = 3.0;
            d.ObstacleTimeHorizon = 2.0;
            return d;
        }

        private static Vec2 Toward(Vec2 p, Vec2 goal)
        {
            Vec2 d = new Vec2(goal.X - p.X, goal.Y - p.Y);
            double len2 = d.X * d.X + d.Y * d.Y;
            if (len2 > 1.0) {
                double len = Math.Sqrt(len2);
                d = new Vec2(d.X / len, d.Y / len);
            }
            return d;
        }

        private static void TestCallByCallPlainSceneEqualsC()
        {
            var c = SceneCallsOutput();
            using (var sim = new Simulation(2)) {
                var ids = new AgentId[48];
                for (int i = 0; i < 48; ++i) {
                    ids[i] = sim.AddAgent(PlainAgent(i));
                }
                sim.AddSegment(new Vec2(-2, 12), new Vec2(2, 12));
                sim.AddPolyline(new[] { new Vec2(18, -2), new Vec2(22, -2), new Vec2(22, 2), new Vec2(18, 2) }, true);
                AgentAvoidance av = AgentAvoidance.Default;
                av.Priority = 2.0;
                sim.SetAvoidance(ids[5], av);
                sim.SetLayers(ids[7], 2, 1);
                sim.SetVelocity(ids[9], new Vec2(0.5, 0));
                sim.SetLocked(ids[9], true);
                sim.RemoveAgent(ids[11]);
                var goals = Enumerable.Range(0, 48).Where(i => i != 11)
                    .Select(i => new Vec2(-PlainAgent(i).Position.X, -PlainAgent(i).Position.Y)).ToArray();
                Same(c["plain steps=0"], "plain steps=0 hash=" + sim.HexHash, "the scene as built");
                int n = sim.AgentCount;
                var pos = new Vec2[n];
                var pref = new Vec2[n];
                for (int k = 0; k < 120; ++k) {
                    sim.GetPositions(pos);
                    for (int i = 0; i < n; ++i) {
                        pref[i] = Toward(pos[i], goals[i]);
                    }
                    sim.SetPreferredVelocities(pref);
                    sim.Step(0.1);
                }
                Same(c["plain steps=120"], "plain steps=120 hash=" + sim.HexHash, "after 120 steps");
            }
        }

        private static void TestCallByCallScenarioEqualsC()
        {
            var c = SceneCallsOutput();
            using (var sc = new Scenario(0.1, 7)) {
                Simulation sim = sc.Simulation;
                sim.AddBoundary(new[] { new Vec2(-30, -30), new Vec2(30, -30), new Vec2(30, 30), new Vec2(-30, 30) });
                sim.AddSegment(new Vec2(-10, 5), new Vec2(10, 5));
                int set = sc.AddGoalSet("exit", new[] { new Vec2(25, 25), new Vec2(-25, 25) });
                sc.SetGoalSetExit(set, 1.0);
                for (int i = 0; i < 30; ++i) {
                    AgentDef d = AgentDef.Default;
                    d.Position = new Vec2((i % 6) * 4.0 - 10.0, (i / 6) * 2.5 - 15.0);
                    d.Radius = 0.4;
                    d.MaxSpeed = 1.8;
                    d.NeighborDist = 5.0;
                    d.TimeHorizon = 2.0;
                    d.ObstacleTimeHorizon = 2.0;
                    Goal g = i % 3 == 0 ? Goal.ToSet(set, 1.4)
                                        : Goal.ToPoint(new Vec2(-d.Position.X, 15.0 + (i % 4)), 1.2);
                    sc.AddAgent(d, g);
                }
                sc.SetWaypoints(1, new[] { new Vec2(0, -20), new Vec2(10, -20) }, false, 0.0);
                sc.Navigation = true;
                sc.Step(450);
                long last;
                int exited = sc.GetExited(out last);
                Same(c["scenario steps=450"], "scenario steps=450 hash=" + sc.HexHash + " arrived=" +
                     sc.ArrivedCount + " exited=" + exited, "the scenario after 450 steps");
                Ensure(exited > 0 && last > 0, "agents left by the exit");
            }
        }

        // --- the whole C API is declared --------------------------------------------------

        private static void TestEveryHeaderFunctionDeclared()
        {
            var declared = new SortedSet<string>(StringComparer.Ordinal);
            foreach (string h in Directory.GetFiles(Path.Combine(root_, "include", "orca"), "*.h")) {
                string text = Regex.Replace(File.ReadAllText(h), @"/\*.*?\*/", "", RegexOptions.Singleline);
                foreach (Match m in Regex.Matches(text, @"ORCA_API\s+[^;{(]*?[\s*](orca_[a-z0-9_]+)\s*\(")) {
                    declared.Add(m.Groups[1].Value);
                }
            }
            var bound = new SortedSet<string>(StringComparer.Ordinal);
            foreach (MethodInfo m in typeof(Native).GetMethods(BindingFlags.Static | BindingFlags.Public)) {
                var dll = m.GetCustomAttribute<DllImportAttribute>();
                if (dll != null) {
                    bound.Add(string.IsNullOrEmpty(dll.EntryPoint) ? m.Name : dll.EntryPoint);
                }
            }
            Ensure(declared.Count > 100, "ORCA_API functions found in the headers: " + declared.Count);
            var missing = declared.Except(bound).ToList();
            var extra = bound.Except(declared).ToList();
            Ensure(missing.Count == 0, "declared in include/orca but not in Native: " + string.Join(", ", missing));
            Ensure(extra.Count == 0, "in Native but not in include/orca: " + string.Join(", ", extra));
        }

        private static void TestStructSizesMatchC()
        {
            // the sizes the C compiler gave scene_calls.c
            var types = new Dictionary<string, Type> {
                { "orca_vec2", typeof(Vec2) }, { "orca_halfplane", typeof(HalfPlane) },
                { "orca_agent_id", typeof(AgentId) }, { "orca_segment_id", typeof(SegmentId) },
                { "orca_boundary_id", typeof(BoundaryId) }, { "orca_agent_def", typeof(AgentDef) },
                { "orca_sim_def", typeof(SimDef) }, { "orca_scene_build_def", typeof(SceneBuildDef) },
                { "orca_agent_avoidance", typeof(AgentAvoidance) },
                { "orca_density_speed", typeof(DensitySpeed) },
                { "orca_pedestrian", typeof(Pedestrian) },
                { "orca_agent_diagnostics", typeof(AgentDiagnostics) },
                { "orca_step_diagnostics", typeof(StepDiagnostics) }, { "orca_goal", typeof(Goal) },
                { "orca_nav_corner", typeof(NavCorner) }, { "orca_nav_stats", typeof(NavStats) },
                { "orca_nav_agent", typeof(NavAgent) }, { "orca_nav_counts", typeof(NavCounts) },
                { "orca_vo", typeof(VelocityObstacle) },
                { "orca_vo_cases", typeof(VoCases) }, { "orca_lp_result", typeof(LpResult) },
                { "orca_solve_result", typeof(SolveResult) }, { "orca_allocator", typeof(Allocator) },
            };
            string sizes = File.ReadAllLines(sceneCalls_).First(l => l.StartsWith("sizes ", StringComparison.Ordinal));
            int checkedCount = 0;
            foreach (string item in sizes.Split(' ').Skip(1)) {
                string[] kv = item.Split('=');
                Same(int.Parse(kv[1]), Marshal.SizeOf(types[kv[0]]), "size of " + kv[0]);
                ++checkedCount;
            }
            Same(types.Count, checkedCount, "structs compared");
            // and the library reads and writes them so: a definition round-trips field by field
            using (var sim = new Simulation()) {
                AgentDef d = PlainAgent(13);
                d.Velocity = new Vec2(0.25, -0.5);
                d.PreferredVelocity = new Vec2(-1, 2);
                AgentDef e = sim.GetAgent(sim.AddAgent(d));
                Same(d.Position, e.Position, "position");
                Same(d.Velocity, e.Velocity, "velocity");
                Same(d.PreferredVelocity, e.PreferredVelocity, "preferred velocity");
                Same(d.Radius, e.Radius, "radius");
                Same(d.MaxSpeed, e.MaxSpeed, "max speed");
                Same(d.NeighborDist, e.NeighborDist, "neighbour distance");
                Same(d.MaxNeighbors, e.MaxNeighbors, "max neighbours");
                Same(d.TimeHorizon, e.TimeHorizon, "time horizon");
                Same(d.ObstacleTimeHorizon, e.ObstacleTimeHorizon, "obstacle time horizon");
            }
        }

        private static void TestVersion()
        {
            Ensure(Regex.IsMatch(Library.Version, @"^\d+\.\d+\.\d+$"), "version " + Library.Version);
            Same(2, Library.BitsVersion, "bits version");
            Same("ORCA_ERR_FOREIGN", Library.StatusName(Status.Foreign), "status name");
            Same("unknown status", Library.StatusName((Status)99), "unknown status");
            Same("wallgap", Library.SceneName(SceneKind.WallGap), "scene name");
            Same(-1, Library.SceneFromName("nope"), "unknown scene");
            Same("ORCA_NAV_NO_PATH", Library.NavResultName(NavResult.NoPath), "nav result name");
            double s, c;
            Library.SinCosTurns(0.25, out s, out c);
            Same(1.0, s, "sin(pi/2)");
            Same(Math.PI / 2, Library.Angle(1, 0), "angle of (0, 1)");
        }
    }
}
