// SPDX-License-Identifier: MIT
// Process-wide facts of the library: its version, its bits version, status names, and the
// deterministic angle functions (the same bits everywhere, unlike Math.Sin and Math.Atan2).
namespace Orca
{
    public static class Library
    {
        /// <summary>The version of the library that runs ("0.3.0").</summary>
        public static string Version { get { return Native.Utf8(Native.orca_version()); } }

        /// <summary>The bits version: the same number means the same results, bit for bit.
        /// </summary>
        public static int BitsVersion { get { return Native.orca_bits_version(); } }

        /// <summary>"ORCA_ERR_ARGUMENT" for Status.Argument, "unknown status" for others.
        /// </summary>
        public static string StatusName(Status status)
        {
            return Native.Utf8(Native.orca_status_name((int)status));
        }

        /// <summary>Sine and cosine of 2*pi*turns with + - * / only (orca_sincos_turns): the
        /// same bits on every machine.</summary>
        public static void SinCosTurns(double turns, out double sine, out double cosine)
        {
            Native.orca_sincos_turns(turns, out sine, out cosine);
        }

        /// <summary>The angle of (x, y) in [0, 2*pi) without libm (orca_nav_angle).</summary>
        public static double Angle(double y, double x)
        {
            return Native.orca_nav_angle(y, x);
        }

        /// <summary>The name of a built-in scene ("circle", ...).</summary>
        public static string SceneName(SceneKind kind)
        {
            return Native.Utf8(Native.orca_scene_name(kind));
        }

        /// <summary>The scene of a name, or -1 when unknown.</summary>
        public static int SceneFromName(string name)
        {
            return Native.orca_scene_from_name(Native.Utf8Z(name ?? ""));
        }

        /// <summary>"ORCA_NAV_NO_PATH" and the like.</summary>
        public static string NavResultName(NavResult result)
        {
            return Native.Utf8(Native.orca_nav_result_name((int)result));
        }
    }
}
