# SPDX-License-Identifier: MIT
# Windows x86-64 with MinGW-w64's gcc (Debian: gcc-mingw-w64-x86-64), run under Wine:
#   cmake -S . -B build/mingw -G Ninja --toolchain cmake/toolchains/mingw-w64-x86_64.cmake
# ctest runs the programs through scripts/wine-run (CMAKE_CROSSCOMPILING_EMULATOR).
set(CMAKE_SYSTEM_PROCESSOR AMD64)
set(ORCA_MINGW_TRIPLE x86_64-w64-mingw32)
include(${CMAKE_CURRENT_LIST_DIR}/mingw-w64-common.cmake)
