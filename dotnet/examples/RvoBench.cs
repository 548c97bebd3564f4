// SPDX-License-Identifier: MIT
// A benchmark in RVO2-CS's API: the random scene of docs/performance.md's RVO2 comparison
// (agents uniform in a square of side 4*sqrt(N), random goals in it, radius 1.5, max speed 2,
// preferred speed 1, neighbour distance 15, 10 neighbours, both horizons 10, dt 0.25; starts and
// goals from a fixed generator) on one worker. Each step sets every preferred velocity toward
// its goal through setAgentPrefVelocity and calls doStep; 20 steps of warm-up, then `steps`
// timed steps. Prints agent-steps per second of wall time and of the process's CPU time.
// Written against the drop-in (`using Orca.RVO;`); with `using RVO;` it builds against
// RVO2-CS itself, which is how docs/performance.md compares the two.
//   mono RvoBench.exe [agents, default 10000] [steps, default 100]
using System;
using System.Collections.Generic;
using System.Diagnostics;
using Orca.RVO;

internal static class RvoBench
{
    private static ulong state = 1;

    private static float Unit()
    {
        state = state * 6364136223846793005UL + 1442695040888963407UL;
        return (state >> 40) / 16777216.0f;
    }

    public static int Main(string[] args)
    {
        int n = args.Length > 0 ? int.Parse(args[0]) : 10000;
        int steps = args.Length > 1 ? int.Parse(args[1]) : 100;
        float side = 4.0f * (float)Math.Sqrt(n);
        var goals = new List<Vector2>(n);
        Simulator sim = Simulator.Instance;
        sim.SetNumWorkers(1);
        sim.setTimeStep(0.25f);
        sim.setAgentDefaults(15.0f, 10, 10.0f, 10.0f, 1.5f, 2.0f, new Vector2(0.0f, 0.0f));
        for (int i = 0; i < n; ++i) {
            float x = (Unit() - 0.5f) * side, y = (Unit() - 0.5f) * side;
            sim.addAgent(new Vector2(x, y));
            goals.Add(new Vector2((Unit() - 0.5f) * side, (Unit() - 0.5f) * side));
        }
        Stopwatch wall = new Stopwatch();
        TimeSpan cpu0 = TimeSpan.Zero;
        for (int k = 0; k < 20 + steps; ++k) {
            if (k == 20) {
                cpu0 = Process.GetCurrentProcess().TotalProcessorTime;
                wall.Start();
            }
            for (int i = 0; i < n; ++i) {
                Vector2 toGoal = goals[i] - sim.getAgentPosition(i);
                if (RVOMath.absSq(toGoal) > 1.0f) {
                    toGoal = RVOMath.normalize(toGoal);
                }
                sim.setAgentPrefVelocity(i, toGoal);
            }
            sim.doStep();
        }
        wall.Stop();
        double cpu = (Process.GetCurrentProcess().TotalProcessorTime - cpu0).TotalSeconds;
        double work = (double)n * steps;
        Console.WriteLine("{0} agents, {1} steps: {2:F3} M agent-steps/s (wall), {3:F3} M agent-steps/s (CPU)",
                          n, steps, work / wall.Elapsed.TotalSeconds / 1e6, work / cpu / 1e6);
        return 0;
    }
}
