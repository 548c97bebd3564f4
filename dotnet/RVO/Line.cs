// SPDX-License-Identifier: MIT
// RVO2-CS's Line: a directed line; the permitted velocities lie on its left. The drop-in
// writes orca's half-planes (docs/algorithm.md §2) as such lines: point = the half-plane's
// point, direction = its normal turned clockwise, (n.y, -n.x), so that the normal is the
// direction's left normal.
namespace Orca.RVO
{
    public struct Line
    {
        public Vector2 direction;
        public Vector2 point;
    }
}
