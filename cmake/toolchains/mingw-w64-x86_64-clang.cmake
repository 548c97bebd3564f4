# SPDX-License-Identifier: MIT
# Windows x86-64 with clang --target=x86_64-w64-windows-gnu, on MinGW-w64's headers, libraries
# and linker (Debian: clang, gcc-mingw-w64-x86-64), run under Wine:
#   cmake -S . -B build/mingw-clang -G Ninja --toolchain cmake/toolchains/mingw-w64-x86_64-clang.cmake
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR AMD64)
set(ORCA_MINGW_TRIPLE x86_64-w64-mingw32)
include(${CMAKE_CURRENT_LIST_DIR}/mingw-w64-common.cmake)
set(CMAKE_C_COMPILER clang)
set(CMAKE_C_COMPILER_TARGET x86_64-w64-windows-gnu)
set(CMAKE_CXX_COMPILER clang++)
set(CMAKE_CXX_COMPILER_TARGET x86_64-w64-windows-gnu)
