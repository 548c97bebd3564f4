// SPDX-License-Identifier: MIT
// A program in RVO2-CS's style: four groups of agents in the corners cross to the opposite
// corners through the gaps between four square obstacles (polygons, counterclockwise). Written
// against the drop-in (`using Orca.RVO;`); with `using RVO;` it builds against RVO2-CS. A
// tiny perturbation of the preferred velocities breaks the symmetry; it comes from a fixed
// linear congruential generator, so every run is the same. Runs until every agent is within
// 15 m of its goal (at most 6000 steps); built with -define:ORCA it also prints the hash.
//   mono Blocks.exe [agents per group side, default 5]
using System;
using System.Collections.Generic;
using Orca.RVO;

internal static class BlocksProgram
{
    private static readonly List<Vector2> goals = new List<Vector2>();
    private static ulong state = 42;

    private static float Unit()
    {
        state = state * 6364136223846793005UL + 1442695040888963407UL;
        return (state >> 40) / 16777216.0f;
    }

    private static void Square(float x0, float y0, float x1, float y1)
    {
        IList<Vector2> square = new List<Vector2> {
            new Vector2(x0, y0), new Vector2(x1, y0), new Vector2(x1, y1), new Vector2(x0, y1),
        };
        Simulator.Instance.addObstacle(square);
    }

    private static void Setup(int side)
    {
        Simulator.Instance.setTimeStep(0.25f);
        Simulator.Instance.setAgentDefaults(15.0f, 10, 5.0f, 5.0f, 2.0f, 2.0f, new Vector2(0.0f, 0.0f));
        for (int i = 0; i < side; ++i) {
            for (int j = 0; j < side; ++j) {
                float u = 60.0f + i * 9.0f, w = 60.0f + j * 9.0f;
                Simulator.Instance.addAgent(new Vector2(u, w));
                goals.Add(new Vector2(-80.0f, -80.0f));
                Simulator.Instance.addAgent(new Vector2(-u, w));
                goals.Add(new Vector2(80.0f, -80.0f));
                Simulator.Instance.addAgent(new Vector2(u, -w));
                goals.Add(new Vector2(-80.0f, 80.0f));
                Simulator.Instance.addAgent(new Vector2(-u, -w));
                goals.Add(new Vector2(80.0f, 80.0f));
            }
        }
        Square(12.0f, 12.0f, 42.0f, 42.0f);
        Square(-42.0f, 12.0f, -12.0f, 42.0f);
        Square(-42.0f, -42.0f, -12.0f, -12.0f);
        Square(12.0f, -42.0f, 42.0f, -12.0f);
        // before processing, nothing blocks the view; after, the squares do
        Vector2 a = new Vector2(0.0f, 27.0f), b = new Vector2(50.0f, 27.0f);
        bool before = Simulator.Instance.queryVisibility(a, b, 0.0f);
        Simulator.Instance.processObstacles();
        bool after = Simulator.Instance.queryVisibility(a, b, 0.0f);
        bool gap = Simulator.Instance.queryVisibility(new Vector2(0.0f, 60.0f), new Vector2(0.0f, -60.0f), 2.0f);
        Console.WriteLine("blocks: {0} obstacle vertices; visibility across a square before processing {1}, after {2}; along the gap {3}",
                          Simulator.Instance.getNumObstacleVertices(), before, after, gap);
    }

    private static void SetPreferredVelocities()
    {
        for (int i = 0; i < Simulator.Instance.getNumAgents(); ++i) {
            Vector2 toGoal = goals[i] - Simulator.Instance.getAgentPosition(i);
            if (RVOMath.absSq(toGoal) > 1.0f) {
                toGoal = RVOMath.normalize(toGoal);
            }
            float angle = Unit() * 2.0f * (float)Math.PI, dist = Unit() * 0.0001f;
            Simulator.Instance.setAgentPrefVelocity(i, toGoal + dist * new Vector2((float)Math.Cos(angle), (float)Math.Sin(angle)));
        }
    }

    private static bool ReachedGoals()
    {
        for (int i = 0; i < Simulator.Instance.getNumAgents(); ++i) {
            if (RVOMath.absSq(Simulator.Instance.getAgentPosition(i) - goals[i]) > 225.0f) {
                return false;
            }
        }
        return true;
    }

    public static int Main(string[] args)
    {
        int side = args.Length > 0 ? int.Parse(args[0]) : 5;
        Setup(side);
        int steps = 0;
        while (!ReachedGoals()) {
            if (steps == 6000) {
                Console.WriteLine("blocks: not every agent arrived in 6000 steps");
                return 1;
            }
            SetPreferredVelocities();
            Simulator.Instance.doStep();
            ++steps;
        }
        Console.WriteLine("blocks: {0} agents within 15 m of their goals after {1} steps, global time {2}",
                          Simulator.Instance.getNumAgents(), steps, Simulator.Instance.getGlobalTime());
#if ORCA
        Console.WriteLine("blocks: hash {0}", Simulator.Instance.Simulation.HexHash);
#endif
        return 0;
    }
}
