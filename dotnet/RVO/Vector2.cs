// SPDX-License-Identifier: MIT
// RVO2-CS's Vector2 (the public surface of RVO.Vector2): a float vector with x(), y() and the
// operators of its API (* between two vectors is the dot product). The drop-in's simulation is
// binary64 inside: a Vector2 given to it is widened exactly, and one it returns is the
// simulation's double rounded to the nearest float (docs/dotnet.md, "The RVO drop-in").
using System.Globalization;

namespace Orca.RVO
{
    public struct Vector2
    {
        internal float x_;
        internal float y_;

        public Vector2(float x, float y)
        {
            x_ = x;
            y_ = y;
        }

        public float x()
        {
            return x_;
        }

        public float y()
        {
            return y_;
        }

        /// <summary>"(x,y)" with invariant-culture floats, as RVO2-CS prints.</summary>
        public override string ToString()
        {
            return "(" + x_.ToString(CultureInfo.InvariantCulture) + "," +
                   y_.ToString(CultureInfo.InvariantCulture) + ")";
        }

        /// <summary>The dot product.</summary>
        public static float operator *(Vector2 vector1, Vector2 vector2)
        {
            return vector1.x_ * vector2.x_ + vector1.y_ * vector2.y_;
        }

        public static Vector2 operator *(float scalar, Vector2 vector)
        {
            return new Vector2(vector.x_ * scalar, vector.y_ * scalar);
        }

        public static Vector2 operator *(Vector2 vector, float scalar)
        {
            return new Vector2(vector.x_ * scalar, vector.y_ * scalar);
        }

        public static Vector2 operator /(Vector2 vector, float scalar)
        {
            return new Vector2(vector.x_ / scalar, vector.y_ / scalar);
        }

        public static Vector2 operator +(Vector2 vector1, Vector2 vector2)
        {
            return new Vector2(vector1.x_ + vector2.x_, vector1.y_ + vector2.y_);
        }

        public static Vector2 operator -(Vector2 vector1, Vector2 vector2)
        {
            return new Vector2(vector1.x_ - vector2.x_, vector1.y_ - vector2.y_);
        }

        public static Vector2 operator -(Vector2 vector)
        {
            return new Vector2(-vector.x_, -vector.y_);
        }

        /// <summary>Widened exactly to the library's vector.</summary>
        internal Orca.Vec2 ToVec2()
        {
            return new Orca.Vec2(x_, y_);
        }

        /// <summary>The library's vector rounded to the nearest floats.</summary>
        internal static Vector2 From(Orca.Vec2 v)
        {
            return new Vector2((float)v.X, (float)v.Y);
        }
    }
}
