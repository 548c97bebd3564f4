// SPDX-License-Identifier: MIT
// The one exception type of the binding: every refusal of the library arrives as an
// OrcaException carrying the library's status and its message ("radius must be in
// [2^-30, 2^21] m, got -1"); the object is then exactly as it was before the call.
using System;

namespace Orca
{
    /// <summary>A call the library refused: <see cref="Status"/> is its orca_status and the
    /// message the library's own (orca_sim_last_error and the like). Nothing changed.</summary>
    [Serializable]
    public class OrcaException : Exception
    {
        /// <summary>The library's status (never Status.Ok).</summary>
        public Status Status { get; private set; }

        /// <summary>The status as the library names it ("ORCA_ERR_ARGUMENT").</summary>
        public string StatusName { get { return Native.Utf8(Native.orca_status_name((int)Status)); } }

        public OrcaException(Status status, string message)
            : base(string.IsNullOrEmpty(message) ? Native.Utf8(Native.orca_status_name((int)status)) : message)
        {
            Status = status;
        }

        protected OrcaException(System.Runtime.Serialization.SerializationInfo info,
                                System.Runtime.Serialization.StreamingContext context)
            : base(info, context)
        {
            Status = (Status)info.GetInt32("OrcaStatus");
        }

        public override void GetObjectData(System.Runtime.Serialization.SerializationInfo info,
                                           System.Runtime.Serialization.StreamingContext context)
        {
            base.GetObjectData(info, context);
            info.AddValue("OrcaStatus", (int)Status);
        }

        public override string ToString()
        {
            return "Orca.OrcaException (" + StatusName + "): " + Message;
        }
    }
}
