# SPDX-License-Identifier: MIT
# What the MinGW-w64 toolchain files share (ORCA_MINGW_TRIPLE set before this is included):
# MinGW gcc as the compiler (the clang file sets its own after this).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_C_COMPILER ${ORCA_MINGW_TRIPLE}-gcc)
# C++ only for a consumer that wants it (Debian: g++-mingw-w64-*; orca itself is C).
find_program(ORCA_MINGW_CXX ${ORCA_MINGW_TRIPLE}-g++)
if(ORCA_MINGW_CXX)
  set(CMAKE_CXX_COMPILER ${ORCA_MINGW_CXX})
endif()
set(CMAKE_RC_COMPILER ${ORCA_MINGW_TRIPLE}-windres)
set(CMAKE_FIND_ROOT_PATH /usr/${ORCA_MINGW_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# Packages: the cross root and whatever prefix the caller names (a consumer's CMAKE_PREFIX_PATH).
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
# The programs carry the compiler's runtime (libgcc, and winpthread where the compiler's thread
# model needs it) inside them, so that Wine needs no DLL beyond the system's and orca.dll.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static-libgcc")
# ctest, and CMake's own try-runs, start the programs under Wine.
set(CMAKE_CROSSCOMPILING_EMULATOR ${CMAKE_CURRENT_LIST_DIR}/../../scripts/wine-run)
