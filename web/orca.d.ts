/// <reference lib="esnext.disposable" />
// SPDX-License-Identifier: MIT
// TypeScript declarations of web/orca.mjs (docs/web.md, "The JavaScript API"); checked with
// `tsc --noEmit` against a typed consumer (scripts/npm-pack, web/test/package-app/).
// Symbol.dispose: TypeScript 5.2 or later.

/** The library's statuses (orca_status): name -> code. */
export declare const STATUS: Readonly<{
  ORCA_OK: 0; ORCA_ERR_ARGUMENT: -1; ORCA_ERR_NULL: -2; ORCA_ERR_MEMORY: -3; ORCA_ERR_STALE: -4;
  ORCA_ERR_FORMAT: -5; ORCA_ERR_LIMIT: -6; ORCA_ERR_IO: -7; ORCA_ERR_FOREIGN: -8;
}>;
export type StatusName = Exclude<keyof typeof STATUS, 'ORCA_OK'>;

/** What every failure of the module throws. */
export declare class OrcaError extends Error {
  constructor(status: StatusName, message: string, options?: { cause?: unknown });
  readonly name: 'OrcaError';
  /** The status's name, e.g. 'ORCA_ERR_ARGUMENT'. */
  readonly status: StatusName;
  /** Its number (STATUS[status]). */
  readonly code: number;
}

export declare const SCENES: readonly ['circle', 'crossing', 'wallgap', 'corridor', 'random'];
export type SceneName = (typeof SCENES)[number];
export declare const GOAL: Readonly<{ POINT: 0; VELOCITY: 1; NONE: 2; SET: 3 }>;
export type GoalKind = (typeof GOAL)[keyof typeof GOAL];
export declare const LIMITS: Readonly<{
  AGENTS: number; SEGMENTS: number; BOUNDARY_EDGES: number; WAYPOINTS: number; NAV_GOALS: number;
}>;

export type Vec2 = readonly [number, number] | Float64Array;
/** 'KIND:SLOT:GENERATION:SIM', e.g. 'agent:3:1:7'. */
export type Handle = string;
export interface HandleParts { kind: 'agent' | 'segment' | 'boundary'; slot: number; generation: number; sim: number }
export declare function parseHandle(h: unknown): HandleParts | null;
export declare function simdSupported(): boolean;

export interface LoadOptions {
  /** 'auto' (default): SIMD128 where the engine validates it. */
  simd?: 'auto' | boolean;
  /** The module to use instead of the files next to orca.mjs. */
  wasm?: string | URL | Response | Promise<Response> | ArrayBuffer | ArrayBufferView;
  /** Where orca.wasm and orca-simd.wasm are. */
  baseUrl?: string | URL;
  /** For tests: wraps the module's exports (e.g. to make ow_malloc fail). */
  wrapExports?: (exports: WebAssembly.Exports) => WebAssembly.Exports;
}
export declare function loadOrca(options?: LoadOptions): Promise<Orca>;

export interface AgentDef {
  position: [number, number]; velocity: [number, number]; preferredVelocity: [number, number];
  radius: number; maxSpeed: number; neighborDist: number; maxNeighbors: number;
  timeHorizon: number; obstacleTimeHorizon: number;
}
export interface Avoidance { priority: number; layers: number; mask: number; locked: boolean }
export type AgentInput = Partial<Omit<AgentDef, 'position' | 'velocity' | 'preferredVelocity'>> & {
  position?: Vec2; velocity?: Vec2; preferredVelocity?: Vec2;
  priority?: number; layers?: number; mask?: number; locked?: boolean | number; stream?: number;
};
export interface Goal { kind: GoalKind; target: [number, number]; speed: number }
export interface GoalInput { kind?: GoalKind; target?: Vec2; speed?: number; goalSet?: string | number | null }
export interface SceneOptions {
  agents?: number; seed?: number | bigint; dt?: number; speed?: number; agent?: AgentInput;
  pedestrian?: boolean;
}
/** orca.readScene's options: the text's name in messages (default '<scene>'), a dt and seed
 * that replace the file's (as `orca run --dt`, `--seed`), and the pedestrian preset (as
 * `orca run --pedestrian`). */
export interface ReadSceneOptions {
  name?: string; dt?: number; seed?: number | bigint; pedestrian?: boolean;
}
export interface Corner { vertex: [number, number]; side: 1 | -1; enter: [number, number]; leave: [number, number] }
export type NavResult = 'ok' | 'no_path' | 'start_blocked' | 'goal_blocked';
export interface PathResult { result: NavResult; length: number | null; goalIndex: number | null; corners: Corner[] }
export interface Diagnostics {
  fallback: Int32Array; failedConstraint: Int32Array; neighborCount: Int32Array; candidates: Int32Array;
  neighborsCut: Int32Array; blocked: Int32Array; locked: Int32Array; headwayPlanes: Int32Array;
  counterMode: Int32Array;
}
export interface AgentDiagnostics {
  fallback: number; failedConstraint: number; neighborCount: number; candidates: number;
  neighborsCut: number; blocked: number; locked: number; headwayPlanes: number; counterMode: number;
}
export interface DensitySpeed { radius: number; gamma: number; maxDensity: number }
export interface Pedestrian { timeGap: number; buffer: number; counterReach: number; maxPlanes: number }

/** The loaded module. */
export declare class Orca {
  private constructor();
  readonly simd: boolean;
  readonly version: string;
  defaultAgent(): AgentDef;
  defaultGoal(): Goal;
  pedestrianAgent(): AgentDef;
  pedestrianDefaults(): Pedestrian;
  pedestrianFreeSpeed(seed: number | bigint, key: number | bigint): number;
  createSim(): Sim;
  createScene(name: SceneName | 'custom', options?: SceneOptions): Scene;
  /** A scene file's text (docs/scene-format.md), read and built as `orca run` does. */
  readScene(text: string | Uint8Array, options?: ReadSceneOptions): Scene;
  createNav(sim: Sim): Nav;
}

/** A simulation (orca_sim). */
export declare class Sim {
  private constructor();
  destroy(): void;
  [Symbol.dispose](): void;
  readonly destroyed: boolean;
  readonly id: number;
  addAgent(def?: AgentInput): Handle;
  removeAgent(id: Handle): void;
  removeAgents(ids: Handle[]): void;
  readonly agentCount: number;
  agentAt(index: number): Handle;
  agentIndex(id: Handle): number;
  getAgent(id: Handle): AgentDef;
  setAgent(id: Handle, def: AgentInput): void;
  addSegment(a: Vec2, b: Vec2): Handle;
  addSegments(a: Vec2[], b: Vec2[]): Handle[];
  removeSegment(id: Handle): void;
  removeSegments(ids: Handle[]): void;
  readonly segmentCount: number;
  segments(): { a: [number, number]; b: [number, number]; id: Handle }[];
  addBoundary(points: Vec2[]): Handle;
  removeBoundary(id: Handle): void;
  readonly boundaryCount: number;
  boundaries(): { points: [number, number][]; id: Handle }[];
  measureBoundary(): { deepest: number; outside: number };
  setPreferredVelocities(v: ArrayLike<number>): void;
  step(dt: number): void;
  readonly stepCount: number;
  readonly lastFallbackCount: number;
  hash(): string;
  /** A view on the module's memory, checked at each call (`v === sim.positions()`: current). */
  positions(): Float64Array;
  velocities(): Float64Array;
  positionsInto<T extends Float64Array>(out: T): T;
  velocitiesInto<T extends Float64Array>(out: T): T;
  handles(): Handle[];
  measureOverlap(): { agents: number; walls: number };
  queryRadius(center: Vec2, radius: number): number[];
  queryNearest(point: Vec2, k: number): number[];
  queryBox(lo: Vec2, hi: Vec2): number[];
  getAvoidance(id: Handle): Avoidance;
  setAvoidance(id: Handle, settings: Partial<Omit<Avoidance, 'locked'>> & { locked?: boolean | number }): void;
  setPriority(id: Handle, priority: number): void;
  setLayers(id: Handle, layers: number, mask: number): void;
  setLocked(id: Handle, locked: boolean | number): void;
  setDiagnostics(on: boolean): void;
  readonly diagnosticsEnabled: boolean;
  setSeparation(on: boolean): void;
  readonly separation: boolean;
  readonly separationActive: boolean;
  setDensitySpeed(params: Partial<DensitySpeed> | null): void;
  readonly densitySpeed: DensitySpeed | null;
  setPedestrian(params: Partial<Pedestrian> | null): void;
  readonly pedestrian: Pedestrian | null;
  setStream(id: Handle, stream: number): void;
  getStream(id: Handle): number;
  diagnostics(): Diagnostics;
  agentDiagnostics(id: Handle): AgentDiagnostics;
  stepDiagnostics(): {
    agents: number; fallback: number; cut: number; blocked: number; locked: number; headway: number;
    counter: number;
  };
  navPath(radius: number, start: Vec2, goals: Vec2[]): PathResult;
  vectorKernels: boolean;
  save(): Uint8Array;
  load(bytes: Uint8Array): void;
}

/** The path query over a simulation's walls (orca/nav.h). */
export declare class Nav {
  private constructor();
  readonly sim: Sim;
  destroy(): void;
  [Symbol.dispose](): void;
  readonly destroyed: boolean;
  path(radius: number, start: Vec2, goals: Vec2[]): PathResult;
  stats(radius: number): { walls: number; vertices: number; legs: number; bytes: number };
}

/** A scenario (orca_scenario): a simulation, goals and the preferred-velocity rule. */
export declare class Scene {
  private constructor();
  readonly sim: Sim;
  destroy(): void;
  [Symbol.dispose](): void;
  readonly destroyed: boolean;
  readonly name: string;
  readonly dt: number;
  readonly seed: bigint;
  step(): void;
  addAgent(def?: AgentInput, goal?: GoalInput): Handle;
  setPedestrian(params: Partial<Pedestrian> | null): void;
  readonly pedestrian: Pedestrian | null;
  setGoal(index: number, goal?: GoalInput): void;
  goal(index: number): Goal & { start: [number, number]; goalSet: string | null };
  setNavigation(on: boolean): void;
  readonly navigation: boolean;
  readonly navUnreachable: number;
  readonly exited: { count: number; lastStep: number };
  setNavCheck(on: boolean): void;
  readonly navCheck: boolean;
  setExitChoice(choice: 'nearest' | 'calm' | 'quickest'): void;
  readonly exitChoice: 'nearest' | 'calm' | 'quickest';
  setGoalSetCapacity(set: string | number, capacity: number): void;
  goalSetCapacity(set: string | number): number;
  exitDepartures(set: string | number, point: number): { count: number; lastStep: number };
  readonly navCounts: {
    plans: number; reroutes: number; replans: number; exitChanges: number; exitReturns: number;
    agentsChanged: number; mostChanges: number; exited: number; atExits: number; arrived: number;
    unreachable: number;
  };
  addGoalSet(name: string, points: Vec2[], options?: { exit?: boolean; arriveDistance?: number }): number;
  setGoalSetExit(set: string | number, arriveDistance?: number): void;
  readonly goalSets: string[];
  goalSet(set: string | number): { index: number; name: string; points: [number, number][]; exit: boolean; arriveDistance: number };
  agentNav(index: number): {
    navigating: boolean; result: NavResult | null; corner: number; corners: number; length: number;
    plans: number; reroutes: number; goal: [number, number];
  };
  agentPath(index: number): Corner[];
  setWaypoints(index: number, points: Vec2[], options?: { loop?: boolean; arriveDistance?: number }): void;
  waypoints(index: number): { points: [number, number][]; loop: boolean; arriveDistance: number; current: number };
  setWaypointIndex(index: number, current: number): void;
  hash(): string;
  readonly arrivedCount: number;
  readonly allArrivedStep: number;
  readonly maxAgentOverlap: number;
  readonly maxWallOverlap: number;
  readonly fallbackTotal: number;
  set recording(on: boolean);
  /** The scene as scene-file text (what `orca scene` writes). */
  toSceneFile(comment?: string): string;
  save(): Uint8Array;
  load(bytes: Uint8Array): void;
}
