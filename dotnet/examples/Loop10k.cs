// SPDX-License-Identifier: MIT
// The loop of a game or a learning environment, in C#: every step read all positions in bulk,
// compute every preferred velocity in C#, set them in bulk, step. On the scene of `orca bench`
// (the random scene, seed 1, after its 20 warm-up steps) this program times that loop against
// the library's own loop over the same steps (orca_scenario_step with recording off, what
// `orca bench` times), in alternating rounds, and prints both rates (medians) and their ratio,
// of wall time (as `orca bench` measures) and of the process's CPU time (steadier on a shared
// machine).
// The C# loop computes docs/scenarios.md's rule itself, perturbation included, so both loops
// give the same bits: the program checks that the two hashes are equal (exit status 1 if not).
//   mono Loop10k.exe [agents, default 10000] [steps, default 100] [workers, default 1] [rounds, default 5]
using System;
using System.Diagnostics;
using System.Linq;
using Orca;

internal static class Loop10k
{
    private const ulong G = 0x9E3779B97F4A7C15UL;

    private static ulong Mix(ulong z)
    {
        unchecked {
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
            return z ^ (z >> 31);
        }
    }

    /// <summary>docs/scenarios.md's rule for a point goal (target g, speed s): toward the goal,
    /// then the seeded perturbation of step k for the agent with key `key`.</summary>
    private static Vec2 Rule(Vec2 p, Vec2 g, double s, double dt, ulong seed, ulong k, ulong key)
    {
        double tx = g.X - p.X, ty = g.Y - p.Y;
        double dist = Math.Sqrt(tx * tx + ty * ty);
        Vec2 v = dist > s * dt ? new Vec2((tx / dist) * s, (ty / dist) * s) : new Vec2(tx / dt, ty / dt);
        ulong h1, h2;
        unchecked {
            h1 = Mix(Mix(Mix(seed + G) + k) + key);
            h2 = Mix(h1 + G);
        }
        double u1 = (double)(h1 >> 11) * (1.0 / 9007199254740992.0);
        double u2 = (double)(h2 >> 11) * (1.0 / 9007199254740992.0);
        double a = 1e-4 * s;
        return new Vec2(v.X + (2.0 * u1 - 1.0) * a, v.Y + (2.0 * u2 - 1.0) * a);
    }

    private static TimeSpan Cpu()
    {
        return Process.GetCurrentProcess().TotalProcessorTime;
    }

    private static double Median(double[] x)
    {
        double[] s = x.OrderBy(v => v).ToArray();
        return s.Length % 2 == 1 ? s[s.Length / 2] : 0.5 * (s[s.Length / 2 - 1] + s[s.Length / 2]);
    }

    public static int Main(string[] args)
    {
        int n = args.Length > 0 ? int.Parse(args[0]) : 10000;
        int steps = args.Length > 1 ? int.Parse(args[1]) : 100;
        int workers = args.Length > 2 ? int.Parse(args[2]) : 1;
        int rounds = args.Length > 3 ? int.Parse(args[3]) : 5;
        using (Scenario sc = Scenario.Builtin(SceneKind.Random, n, 1, workers)) {
            Simulation sim = sc.Simulation;
            sc.Recording = false;
            sc.Step(20); // orca bench's warm-up
            byte[] warm = sc.Save();
            int count = sim.AgentCount;
            var goals = new Vec2[count];
            var speeds = new double[count];
            for (int i = 0; i < count; ++i) {
                Goal g = sc.GetGoal(i);
                goals[i] = g.Target;
                speeds[i] = g.PreferredSpeed;
            }
            double dt = sc.Dt;
            ulong seed = sc.Seed;
            var pos = new Vec2[count];
            var pref = new Vec2[count];
            double[] library = new double[rounds], csharp = new double[rounds];
            double[] libraryCpu = new double[rounds], csharpCpu = new double[rounds];
            double work = (double)count * steps;
            string libraryHash = null, csharpHash = null;
            for (int r = 0; r < rounds; ++r) {
                sc.Load(warm);
                TimeSpan cpu = Cpu();
                var watch = Stopwatch.StartNew();
                sc.Step(steps);
                library[r] = work / watch.Elapsed.TotalSeconds;
                libraryCpu[r] = work / (Cpu() - cpu).TotalSeconds;
                libraryHash = sc.HexHash;

                sc.Load(warm);
                cpu = Cpu();
                watch.Restart();
                for (int k = 0; k < steps; ++k) {
                    sim.GetPositions(pos);
                    ulong stepCount = sim.StepCount;
                    for (int i = 0; i < count; ++i) {
                        pref[i] = Rule(pos[i], goals[i], speeds[i], dt, seed, stepCount, (ulong)i);
                    }
                    sim.SetPreferredVelocities(pref);
                    sim.Step(dt);
                }
                csharp[r] = work / watch.Elapsed.TotalSeconds;
                csharpCpu[r] = work / (Cpu() - cpu).TotalSeconds;
                csharpHash = sim.HexHash;
            }
            double lib = Median(library), cs = Median(csharp);
            double libCpu = Median(libraryCpu), csCpu = Median(csharpCpu);
            Console.WriteLine("{0} agents, {1} steps, {2} worker(s), median of {3} rounds: library loop {4:F3} M agent-steps/s, C# loop {5:F3} M agent-steps/s ({6:F1}% of the library's); of CPU time {7:F3} and {8:F3} M ({9:F1}%)",
                              count, steps, workers, rounds, lib / 1e6, cs / 1e6, 100.0 * cs / lib,
                              libCpu / 1e6, csCpu / 1e6, 100.0 * csCpu / libCpu);
            Console.WriteLine("hashes: library {0}, C# {1}", libraryHash, csharpHash);
            if (libraryHash != csharpHash) {
                Console.WriteLine("the C# loop's hash differs from the library's");
                return 1;
            }
        }
        return 0;
    }
}
