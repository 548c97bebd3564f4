// SPDX-License-Identifier: MIT
// The demo page's navigation scene (docs/web.md, "The page"), shared by web/app.js and the
// tests: a 40 x 24 m floor of three rooms joined by doors in the north, a partition in the
// west room, a pillar in the middle one; two groups of agents, each heading for its own exit
// (a goal set of one point, 'g0', 'g1') in the other group's room, so that their ways cross in
// the doors. With navigation off they press against the walls; with it on they walk round
// them and leave.

/** The walls: [[ax, ay], [bx, by]] in the order they are added. */
export const ROOMS_WALLS = [
  [[0, 0], [40, 0]], [[40, 0], [40, 24]], [[40, 24], [0, 24]], [[0, 24], [0, 0]],
  [[14, 0], [14, 19]], [[14, 22], [14, 24]], // the west room's door: y 19..22
  [[26, 0], [26, 2]], [[26, 5], [26, 19]], [[26, 22], [26, 24]], // the east room's: y 2..5, 19..22
  [[5, 12], [14, 12]], // a partition in the west room, open at its west end
  [[18, 9], [22, 9]], [[22, 9], [22, 15]], [[22, 15], [18, 15]], [[18, 15], [18, 9]], // a pillar
];
/** Each group's goal: the one point of its goal set ('g0', 'g1'), an exit (agents within
 * ROOMS_ARRIVE of it leave). */
export const ROOMS_GOALS = [[36, 4], [7, 4]];
export const ROOMS_ARRIVE = 1.0;
export const ROOMS_AGENT = { radius: 0.4, maxSpeed: 1.5, neighborDist: 5, timeHorizon: 2, obstacleTimeHorizon: 1.5 };
export const ROOMS_SPEED = 1.2;
export const ROOMS_MAX_GROUP = 48;

/** The start of agent k (0 ..) of group g (0: west room, 1: east room). */
export function roomsStart(g, k) {
  return g === 0 ? [2 + 1.5 * (k % 8), 2 + 1.5 * Math.floor(k / 8)]
    : [28 + 1.5 * (k % 8), 22 - 1.5 * Math.floor(k / 8)];
}

/**
 * The scene as a custom scenario of orca (loaded orca.mjs): `perGroup` agents in each group
 * (1 .. ROOMS_MAX_GROUP), seed, navigation on or off; goals: the groups' goal points
 * (default ROOMS_GOALS); agent: fields that replace ROOMS_AGENT's; speed: the preferred speed.
 * Agents are added group 0 first, then group 1, each in start order.
 */
export function roomsScene(orca, { perGroup = 20, seed = 1, navigation = true, goals = ROOMS_GOALS,
  agent = {}, speed = ROOMS_SPEED } = {}) {
  if (!Number.isInteger(perGroup) || perGroup < 1 || perGroup > ROOMS_MAX_GROUP) {
    throw Object.assign(new Error(`rooms: agents per group must be a whole number in [1, ${ROOMS_MAX_GROUP}], got ${perGroup}`),
      { status: 'ORCA_ERR_ARGUMENT' });
  }
  const sc = orca.createScene('custom', { dt: 0.25, seed });
  try {
    for (const [a, b] of ROOMS_WALLS) sc.sim.addSegment(a, b);
    goals.forEach((p, g) => sc.addGoalSet(`g${g}`, [p], { exit: true, arriveDistance: ROOMS_ARRIVE }));
    for (let g = 0; g < 2; ++g) {
      for (let k = 0; k < perGroup; ++k) {
        sc.addAgent({ ...ROOMS_AGENT, ...agent, position: roomsStart(g, k) }, { goalSet: g, speed });
      }
    }
    sc.setNavigation(navigation);
  } catch (e) {
    sc.destroy();
    throw e;
  }
  return sc;
}

/** The group (0 or 1) of agent i of a rooms scene, by its goal set's name: g0 or g1, or
 * g0.K / g1.K once moveRoomsExit moved the group's exit. */
export function roomsGroup(scene, i) {
  const set = scene.goal(i).goalSet;
  return set !== null && set.split('.')[0] === 'g1' ? 1 : 0;
}

/**
 * Moves group g's exit of a rooms scene to p: a new exit set `name` at p, and every agent of
 * the group heads for it (Scene.setGoal: each plans its path at the next step). The run goes
 * on: the same scenario, its step count and every agent's state.
 */
export function moveRoomsExit(scene, g, name, p) {
  scene.addGoalSet(name, [p], { exit: true, arriveDistance: ROOMS_ARRIVE });
  const n = scene.sim.agentCount;
  for (let i = 0; i < n; ++i) {
    const goal = scene.goal(i);
    if (goal.goalSet !== null && roomsGroup(scene, i) === g) scene.setGoal(i, { goalSet: name, speed: goal.speed });
  }
}
