// SPDX-License-Identifier: MIT
// RVO2-CS's RVOMath (its public functions: abs, absSq, normalize), in float as there: what
// an RVO2-CS program computes its preferred velocities with. The simulation does not use it.
using System;

namespace Orca.RVO
{
    public struct RVOMath
    {
        /// <summary>The length of a vector.</summary>
        public static float abs(Vector2 vector)
        {
            return (float)Math.Sqrt(absSq(vector));
        }

        /// <summary>The squared length of a vector.</summary>
        public static float absSq(Vector2 vector)
        {
            return vector * vector;
        }

        /// <summary>The vector divided by its length.</summary>
        public static Vector2 normalize(Vector2 vector)
        {
            return vector / abs(vector);
        }
    }
}
