// SPDX-License-Identifier: MIT
// A program in RVO2-CS's style (its API, its singleton): agents spaced on a circle walk to
// the opposite point. Written against the drop-in (`using Orca.RVO;`); with `using RVO;`
// instead it builds against RVO2-CS itself. Runs until every agent is within its radius of
// its goal (at most 4000 steps) and prints the time it took; built with -define:ORCA it
// also prints the state hash. As RVO2-CS's Blocks example does, it adds a tiny perturbation
// to the preferred velocities (from a fixed generator: every run is the same): a small circle
// is so symmetric that, in binary64, its agents can come to rest in a ring round the centre
// (docs/dotnet.md, "The RVO drop-in").
//   mono Circle.exe [agents, default 200]
using System;
using System.Collections.Generic;
using Orca.RVO;

internal static class CircleProgram
{
    private static readonly List<Vector2> goals = new List<Vector2>();
    private static ulong state = 7;

    private static float Unit()
    {
        state = state * 6364136223846793005UL + 1442695040888963407UL;
        return (state >> 40) / 16777216.0f;
    }

    private static void Setup(int agents)
    {
        Simulator.Instance.setTimeStep(0.25f);
        Simulator.Instance.setAgentDefaults(15.0f, 10, 10.0f, 10.0f, 1.5f, 2.0f, new Vector2(0.0f, 0.0f));
        float ring = 0.8f * agents; // about 5 m of circumference per agent
        for (int i = 0; i < agents; ++i) {
            double a = 2.0 * Math.PI * i / agents;
            Vector2 start = ring * new Vector2((float)Math.Cos(a), (float)Math.Sin(a));
            Simulator.Instance.addAgent(start);
            goals.Add(-start);
        }
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
            float r = Simulator.Instance.getAgentRadius(i);
            if (RVOMath.absSq(Simulator.Instance.getAgentPosition(i) - goals[i]) > r * r) {
                return false;
            }
        }
        return true;
    }

    public static int Main(string[] args)
    {
        int agents = args.Length > 0 ? int.Parse(args[0]) : 200;
        Setup(agents);
        int steps = 0;
        while (!ReachedGoals()) {
            if (steps == 4000) {
                Console.WriteLine("circle: not every agent arrived in 4000 steps");
                return 1;
            }
            SetPreferredVelocities();
            Simulator.Instance.doStep();
            ++steps;
        }
        Console.WriteLine("circle: {0} agents at their goals after {1} steps, global time {2}",
                          agents, steps, Simulator.Instance.getGlobalTime());
#if ORCA
        Console.WriteLine("circle: hash {0}", Simulator.Instance.Simulation.HexHash);
#endif
        return 0;
    }
}
