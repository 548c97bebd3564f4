# SPDX-License-Identifier: MIT
# Windows x86 (32-bit) with MinGW-w64's gcc (Debian: gcc-mingw-w64-i686), SSE2 arithmetic
# (the library's CMake file adds -msse2 -mfpmath=sse on 32-bit x86), run under Wine (wine64
# runs 32-bit programs too where Debian's wine32 is installed).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86)
set(ORCA_MINGW_TRIPLE i686-w64-mingw32)
include(${CMAKE_CURRENT_LIST_DIR}/mingw-w64-common.cmake)
set(CMAKE_C_COMPILER ${ORCA_MINGW_TRIPLE}-gcc)
# C++ only for a consumer that wants it (Debian: g++-mingw-w64-*; orca itself is C).
find_program(ORCA_MINGW_CXX ${ORCA_MINGW_TRIPLE}-g++)
if(ORCA_MINGW_CXX)
  set(CMAKE_CXX_COMPILER ${ORCA_MINGW_CXX})
endif()
