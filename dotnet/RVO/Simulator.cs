// SPDX-License-Identifier: MIT
// RVO2-CS's Simulator (the singleton Simulator.Instance and its public methods, with their
// names, parameters and float types), over an Orca.Simulation: binary64 inside, the same
// bits on every machine and for any worker count. A program written for RVO2-CS builds against
// it with `using Orca.RVO;`. The differences (docs/dotnet.md, "The RVO drop-in", lists them):
//
// - Floats at the boundary: vectors and parameters given are widened exactly, values
//   returned are the simulation's doubles rounded to floats. The results are orca's (the
//   algorithm of docs/algorithm.md in binary64), not RVO2-CS's float arithmetic.
// - Obstacles: RVO2's polygons are one-sided; orca's segments are two-sided. addObstacle
//   keeps the polygon's vertices (getObstacleVertex, getNext/PrevObstacleVertexNo as in
//   RVO2-CS); processObstacles adds every pending polygon as its edges (n >= 3 vertices: n
//   segments, closed; 2 vertices: one segment), all or nothing.
// - queryVisibility is orca_nav_visible: every processed wall farther than radius from the
//   segment point1-point2 (docs/navigation.md, "Visibility").
// - Values are checked: what the library refuses (a radius of 0, NaN, ...) throws
//   Orca.OrcaException with the library's message, and nothing changes.
// - The neighbour and ORCA-line getters answer for the current state (what the next doStep
//   uses), unless RecordNeighbors is on: then a snapshot taken before each step makes them
//   report what the last doStep used, as RVO2-CS does.
// - SetNumWorkers: the step's threads (orca's pool; the results do not depend on them);
//   0 or less means the processor count, at most 64.
using System;
using System.Collections.Generic;

namespace Orca.RVO
{
    public class Simulator
    {
        private static readonly Simulator instance_ = new Simulator();

        private Orca.Simulation sim_;
        private Orca.Navigator nav_;
        private readonly List<AgentId> agents_ = new List<AgentId>();
        private AgentDef defaults_;
        private bool hasDefaults_;
        private readonly List<Vector2> vertices_ = new List<Vector2>();
        private readonly List<int> next_ = new List<int>();
        private readonly List<int> prev_ = new List<int>();
        private readonly List<int> segmentVertex_ = new List<int>(); // segment index -> vertex no
        private readonly List<int> pending_ = new List<int>();       // first vertex of each polygon
        private float timeStep_;
        private float globalTime_;
        private int numWorkers_;

        private bool record_;
        private byte[] before_;        // the state before the last step (RecordNeighbors)
        private double beforeDt_;
        private Orca.Simulation beforeSim_;
        private bool beforeLoaded_;
        private int cacheAgent_ = -1;  // the agent whose neighbours and lines are cached
        private int[] cacheAgents_;
        private int[] cacheSegments_;
        private IList<Line> cacheLines_;

        public static Simulator Instance
        {
            get { return instance_; }
        }

        private Simulator()
        {
            Clear();
        }

        /// <summary>The Orca.Simulation underneath (its hash, snapshots, the whole API).
        /// </summary>
        public Orca.Simulation Simulation
        {
            get { return sim_; }
        }

        /// <summary>Whether the neighbour and ORCA-line getters report what the last doStep
        /// used (a snapshot before each step, linear in the agents) rather than the current
        /// state. Off by default.</summary>
        public bool RecordNeighbors
        {
            get { return record_; }
            set {
                record_ = value;
                before_ = null;
                Changed();
            }
        }

        private void Changed()
        {
            cacheAgent_ = -1;
            beforeLoaded_ = false;
        }

        private AgentId Id(int agentNo)
        {
            return agents_[agentNo];
        }

        private AgentDef Def(int agentNo)
        {
            return sim_.GetAgent(Id(agentNo));
        }

        private delegate void Edit(ref AgentDef def);

        /// <summary>Changes one field of an agent (the library checks the whole definition).
        /// </summary>
        private void Modify(int agentNo, Edit edit)
        {
            AgentDef d = Def(agentNo);
            edit(ref d);
            sim_.SetAgent(Id(agentNo), d);
            Changed();
        }

        /// <summary>Adds an agent with the defaults; its number, or -1 when setAgentDefaults
        /// has not been called.</summary>
        public int addAgent(Vector2 position)
        {
            if (!hasDefaults_) {
                return -1;
            }
            AgentDef def = defaults_;
            def.Position = position.ToVec2();
            return Add(def);
        }

        public int addAgent(Vector2 position, float neighborDist, int maxNeighbors, float timeHorizon,
                            float timeHorizonObst, float radius, float maxSpeed, Vector2 velocity)
        {
            AgentDef def = Make(neighborDist, maxNeighbors, timeHorizon, timeHorizonObst, radius,
                                maxSpeed, velocity);
            def.Position = position.ToVec2();
            return Add(def);
        }

        private int Add(AgentDef def)
        {
            agents_.Add(sim_.AddAgent(def));
            Changed();
            return agents_.Count - 1;
        }

        private static AgentDef Make(float neighborDist, int maxNeighbors, float timeHorizon,
                                     float timeHorizonObst, float radius, float maxSpeed,
                                     Vector2 velocity)
        {
            AgentDef def = AgentDef.Default;
            def.NeighborDist = neighborDist;
            def.MaxNeighbors = maxNeighbors;
            def.TimeHorizon = timeHorizon;
            def.ObstacleTimeHorizon = timeHorizonObst;
            def.Radius = radius;
            def.MaxSpeed = maxSpeed;
            def.Velocity = velocity.ToVec2();
            return def;
        }

        /// <summary>Adds a polygon (or with two vertices a segment); the number of its first
        /// vertex, or -1 with fewer than two vertices. It takes effect at processObstacles.
        /// </summary>
        public int addObstacle(IList<Vector2> vertices)
        {
            if (vertices.Count < 2) {
                return -1;
            }
            int first = vertices_.Count, n = vertices.Count;
            for (int i = 0; i < n; ++i) {
                vertices_.Add(vertices[i]);
                next_.Add(first + (i + 1) % n);
                prev_.Add(first + (i + n - 1) % n);
            }
            pending_.Add(first);
            return first;
        }

        /// <summary>Puts the obstacles added since the last call into the simulation: each
        /// polygon's edges as two-sided segments, every point checked first (a refusal adds
        /// none and keeps them pending).</summary>
        public void processObstacles()
        {
            List<Vec2> a = new List<Vec2>(), b = new List<Vec2>();
            List<int> owner = new List<int>();
            foreach (int first in pending_) {
                int n = 1;
                while (next_[first + n - 1] != first) {
                    ++n;
                }
                int edges = n == 2 ? 1 : n;
                for (int k = 0; k < edges; ++k) {
                    a.Add(vertices_[first + k].ToVec2());
                    b.Add(vertices_[next_[first + k]].ToVec2());
                    owner.Add(first + k);
                }
            }
            sim_.AddSegments(a.ToArray(), b.ToArray());
            segmentVertex_.AddRange(owner);
            pending_.Clear();
            Changed();
        }

        /// <summary>Whether point1 and point2 see each other: every processed obstacle edge
        /// farther than radius from the segment between them (orca_nav_visible).</summary>
        public bool queryVisibility(Vector2 point1, Vector2 point2, float radius)
        {
            if (nav_ == null) {
                nav_ = new Orca.Navigator(sim_);
            }
            return nav_.Visible(radius, point1.ToVec2(), point2.ToVec2());
        }

        /// <summary>Removes every agent and obstacle and the defaults; time step 0.1, global
        /// time 0, workers reset.</summary>
        public void Clear()
        {
            if (nav_ != null) {
                nav_.Dispose();
                nav_ = null;
            }
            if (beforeSim_ != null) {
                beforeSim_.Dispose();
                beforeSim_ = null;
            }
            if (sim_ != null) {
                sim_.Dispose();
            }
            sim_ = new Orca.Simulation(1);
            agents_.Clear();
            hasDefaults_ = false;
            vertices_.Clear();
            next_.Clear();
            prev_.Clear();
            segmentVertex_.Clear();
            pending_.Clear();
            globalTime_ = 0.0f;
            timeStep_ = 0.1f;
            before_ = null;
            Changed();
            SetNumWorkers(0);
        }

        /// <summary>One step of the time step; returns the global time after it.</summary>
        public float doStep()
        {
            byte[] before = record_ ? sim_.Save() : null;
            sim_.Step(timeStep_);
            if (record_) {
                before_ = before;
                beforeDt_ = timeStep_;
            }
            Changed();
            globalTime_ += timeStep_;
            return globalTime_;
        }

        // --- neighbours and ORCA lines -----------------------------------------------------

        /// <summary>The simulation the getters look at and the step length they use.</summary>
        private Orca.Simulation Observed(out double dt)
        {
            if (!record_ || before_ == null) {
                dt = timeStep_;
                return sim_;
            }
            if (beforeSim_ == null) {
                beforeSim_ = new Orca.Simulation(1);
            }
            if (!beforeLoaded_) {
                beforeSim_.Load(before_);
                beforeLoaded_ = true;
            }
            dt = beforeDt_;
            return beforeSim_;
        }

        private void Neighbors(int agentNo)
        {
            if (cacheAgent_ == agentNo) {
                return;
            }
            double dt;
            Orca.Simulation s = Observed(out dt);
            AgentId id = s.AgentAt(agentNo);
            if (id.IsNull) {
                throw new ArgumentOutOfRangeException("agentNo", agentNo, "no such agent");
            }
            s.AgentNeighbors(id, out cacheAgents_, out cacheSegments_);
            int hard;
            HalfPlane[] planes = s.AgentConstraints(id, dt, out hard);
            List<Line> lines = new List<Line>(planes.Length);
            foreach (HalfPlane h in planes) {
                Line l;
                l.point = Vector2.From(h.Point);
                l.direction = new Vector2((float)h.Normal.Y, (float)-h.Normal.X);
                lines.Add(l);
            }
            cacheLines_ = lines.AsReadOnly();
            cacheAgent_ = agentNo;
        }

        public int getAgentAgentNeighbor(int agentNo, int neighborNo)
        {
            Neighbors(agentNo);
            return cacheAgents_[neighborNo];
        }

        public int getAgentNumAgentNeighbors(int agentNo)
        {
            Neighbors(agentNo);
            return cacheAgents_.Length;
        }

        public int getAgentNumObstacleNeighbors(int agentNo)
        {
            Neighbors(agentNo);
            return cacheSegments_.Length;
        }

        /// <summary>The number of the first vertex of the neighbouring obstacle edge.</summary>
        public int getAgentObstacleNeighbor(int agentNo, int neighborNo)
        {
            Neighbors(agentNo);
            return segmentVertex_[cacheSegments_[neighborNo]];
        }

        /// <summary>The agent's ORCA constraints as lines (permitted side on the left),
        /// obstacle lines first.</summary>
        public IList<Line> getAgentOrcaLines(int agentNo)
        {
            Neighbors(agentNo);
            return cacheLines_;
        }

        // --- agent parameters --------------------------------------------------------------

        public int getAgentMaxNeighbors(int agentNo)
        {
            return Def(agentNo).MaxNeighbors;
        }

        public float getAgentMaxSpeed(int agentNo)
        {
            return (float)Def(agentNo).MaxSpeed;
        }

        public float getAgentNeighborDist(int agentNo)
        {
            return (float)Def(agentNo).NeighborDist;
        }

        public Vector2 getAgentPosition(int agentNo)
        {
            return Vector2.From(sim_.GetPosition(Id(agentNo)));
        }

        public Vector2 getAgentPrefVelocity(int agentNo)
        {
            return Vector2.From(Def(agentNo).PreferredVelocity);
        }

        public float getAgentRadius(int agentNo)
        {
            return (float)Def(agentNo).Radius;
        }

        public float getAgentTimeHorizon(int agentNo)
        {
            return (float)Def(agentNo).TimeHorizon;
        }

        public float getAgentTimeHorizonObst(int agentNo)
        {
            return (float)Def(agentNo).ObstacleTimeHorizon;
        }

        public Vector2 getAgentVelocity(int agentNo)
        {
            return Vector2.From(sim_.GetVelocity(Id(agentNo)));
        }

        public float getGlobalTime()
        {
            return globalTime_;
        }

        public int getNumAgents()
        {
            return agents_.Count;
        }

        public int getNumObstacleVertices()
        {
            return vertices_.Count;
        }

        public int GetNumWorkers()
        {
            return numWorkers_;
        }

        public Vector2 getObstacleVertex(int vertexNo)
        {
            return vertices_[vertexNo];
        }

        public int getNextObstacleVertexNo(int vertexNo)
        {
            return next_[vertexNo];
        }

        public int getPrevObstacleVertexNo(int vertexNo)
        {
            return prev_[vertexNo];
        }

        public float getTimeStep()
        {
            return timeStep_;
        }

        /// <summary>The parameters addAgent(position) gives new agents (checked when an agent
        /// is added).</summary>
        public void setAgentDefaults(float neighborDist, int maxNeighbors, float timeHorizon,
                                     float timeHorizonObst, float radius, float maxSpeed,
                                     Vector2 velocity)
        {
            defaults_ = Make(neighborDist, maxNeighbors, timeHorizon, timeHorizonObst, radius,
                             maxSpeed, velocity);
            hasDefaults_ = true;
        }

        public void setAgentMaxNeighbors(int agentNo, int maxNeighbors)
        {
            Modify(agentNo, (ref AgentDef d) => d.MaxNeighbors = maxNeighbors);
        }

        public void setAgentMaxSpeed(int agentNo, float maxSpeed)
        {
            Modify(agentNo, (ref AgentDef d) => d.MaxSpeed = maxSpeed);
        }

        public void setAgentNeighborDist(int agentNo, float neighborDist)
        {
            Modify(agentNo, (ref AgentDef d) => d.NeighborDist = neighborDist);
        }

        public void setAgentPosition(int agentNo, Vector2 position)
        {
            sim_.SetPosition(Id(agentNo), position.ToVec2());
            Changed();
        }

        public void setAgentPrefVelocity(int agentNo, Vector2 prefVelocity)
        {
            sim_.SetPreferredVelocity(Id(agentNo), prefVelocity.ToVec2());
            Changed();
        }

        public void setAgentRadius(int agentNo, float radius)
        {
            Modify(agentNo, (ref AgentDef d) => d.Radius = radius);
        }

        public void setAgentTimeHorizon(int agentNo, float timeHorizon)
        {
            Modify(agentNo, (ref AgentDef d) => d.TimeHorizon = timeHorizon);
        }

        public void setAgentTimeHorizonObst(int agentNo, float timeHorizonObst)
        {
            Modify(agentNo, (ref AgentDef d) => d.ObstacleTimeHorizon = timeHorizonObst);
        }

        public void setAgentVelocity(int agentNo, Vector2 velocity)
        {
            sim_.SetVelocity(Id(agentNo), velocity.ToVec2());
            Changed();
        }

        public void setGlobalTime(float globalTime)
        {
            globalTime_ = globalTime;
        }

        /// <summary>The step's threads (1 to 64; 0 or less: the processor count, at most 64).
        /// The results are the same for any count.</summary>
        public void SetNumWorkers(int numWorkers)
        {
            int n = numWorkers > 0 ? numWorkers : Math.Min(Environment.ProcessorCount, 64);
            sim_.WorkerCount = n;
            numWorkers_ = n;
        }

        /// <summary>The step length (s), checked at the next doStep.</summary>
        public void setTimeStep(float timeStep)
        {
            timeStep_ = timeStep;
        }
    }
}
