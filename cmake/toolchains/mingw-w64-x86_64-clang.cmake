# SPDX-License-Identifier: MIT
# Windows x86-64 with clang --target=x86_64-w64-windows-gnu, on MinGW-w64's headers, libraries
# and linker (Debian: clang, gcc-mingw-w64-x86-64), run under Wine:
#   cmake -S . -B build/mingw-clang -G Ninja --toolchain cmake/toolchains/mingw-w64-x86_64-clang.cmake
set(CMAKE_SYSTEM_PROCESSOR AMD64)
set(ORCA_MINGW_TRIPLE x86_64-w64-mingw32)
include(${CMAKE_CURRENT_LIST_DIR}/mingw-w64-common.cmake)
set(CMAKE_C_COMPILER clang)
set(CMAKE_C_COMPILER_TARGET x86_64-w64-windows-gnu)
set(CMAKE_CXX_COMPILER clang++)
set(CMAKE_CXX_COMPILER_TARGET x86_64-w64-windows-gnu)
# Debian's clang does not find MinGW gcc's libgcc (in .../12-win32 or 12-posix): name its
# directory, and link with lld (the host's ld knows no PE).
execute_process(COMMAND ${ORCA_MINGW_TRIPLE}-gcc -print-libgcc-file-name
                OUTPUT_VARIABLE orca_mingw_libgcc OUTPUT_STRIP_TRAILING_WHITESPACE)
get_filename_component(orca_mingw_libgcc_dir "${orca_mingw_libgcc}" DIRECTORY)
string(APPEND CMAKE_EXE_LINKER_FLAGS_INIT " -fuse-ld=lld -L${orca_mingw_libgcc_dir}")
string(APPEND CMAKE_SHARED_LINKER_FLAGS_INIT " -fuse-ld=lld -L${orca_mingw_libgcc_dir}")
