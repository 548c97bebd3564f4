# SPDX-License-Identifier: MIT
# Windows x86 (32-bit) with MinGW-w64's gcc (Debian: gcc-mingw-w64-i686), SSE2 arithmetic
# (the library's CMake file adds -msse2 -mfpmath=sse on 32-bit x86), run under Wine (it needs
# Debian's 32-bit Wine, wine32, an i386 package, beside wine64).
set(CMAKE_SYSTEM_PROCESSOR x86)
set(ORCA_MINGW_TRIPLE i686-w64-mingw32)
include(${CMAKE_CURRENT_LIST_DIR}/mingw-w64-common.cmake)
