#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The cross-target determinism matrix (issue 5).
#
# Builds the library (src/*.c) together with one program with a plain compiler command per
# target, runs it (natively, under qemu-<arch>, or under Node.js for wasm32-wasi), and
# compares its whole stdout with a golden file. Every target must print exactly the golden
# output; the control targets, built with multiply-add contraction into FMA allowed, must
# print something DIFFERENT (proof that the matrix can see a one-rounding change).
#
# Usage: scripts/matrix.sh            (from anywhere; paths are relative to the repository)
#        scripts/matrix.sh --list     (list the targets and exit)
#
# Environment (defaults in brackets):
#   MATRIX_SOURCES      the program's .c files, space separated, patterns allowed (cli/*.c)
#                       [test/determinism_main.c]
#   MATRIX_GOLDEN       the expected stdout [test/golden/determinism.txt]
#   MATRIX_ARGS         arguments passed to the program, space separated [none]
#   MATRIX_OUT          build and output directory [build-matrix]
#   MATRIX_LIB_SOURCES  the library's .c files, space separated, patterns allowed [src/*.c]
#   MATRIX_REQUIRE_ALL  1: a target whose toolchain is missing FAILs (CI); 0: it is SKIPped [0]
#   MATRIX_TARGETS      only these targets (names or shell patterns, space/comma separated) [all]
#   MATRIX_JOBS         targets built and run at the same time [number of CPUs]
#   MATRIX_TIMEOUT      seconds allowed for one target's run [1200]
#   MATRIX_CFLAGS       extra flags for every compile, e.g. -Werror [none]
#   MATRIX_RECORD       1: first write MATRIX_GOLDEN from the reference target (x86_64-gcc-O2),
#                       then check every target against it [0]
#
# Every compile uses -std=c17 -ffp-contract=off -fno-fast-math -O<level> (controls: fast),
# -Iinclude -Isrc -Itest -I<each program source's directory>, and links -lpthread -lm. wasm32-wasi has no threads: it is compiled
# with -DORCA_NO_THREADS and links neither pthread nor a separate libm; wasm32-wasi-clang-simd128
# adds -msimd128. The Windows targets (MinGW-w64, run under Wine by scripts/wine-run) use the
# Win32 threads of src/thread.h and link nothing more; i686 needs Debian's 32-bit Wine (wine32,
# an i386 package) and is skipped without it.
#
# Output: one line per target "name STATUS first-output-line seconds [note]", failure details
# indented below it, then "matrix: N passed, N failed[, N skipped] (wall Ns)". Exit status 0
# when nothing failed, 1 otherwise, 2 on a usage error. Per-target files (build.sh with the
# exact command, build.log, stdout, stderr) are in $MATRIX_OUT/<target>/.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

MATRIX_SOURCES=${MATRIX_SOURCES:-test/determinism_main.c}
MATRIX_GOLDEN=${MATRIX_GOLDEN:-test/golden/determinism.txt}
MATRIX_ARGS=${MATRIX_ARGS:-}
MATRIX_OUT=${MATRIX_OUT:-build-matrix}
MATRIX_REQUIRE_ALL=${MATRIX_REQUIRE_ALL:-0}
MATRIX_TARGETS=${MATRIX_TARGETS:-}
MATRIX_JOBS=${MATRIX_JOBS:-$(nproc 2>/dev/null || echo 1)}
MATRIX_TIMEOUT=${MATRIX_TIMEOUT:-1200}
MATRIX_CFLAGS=${MATRIX_CFLAGS:-}
MATRIX_RECORD=${MATRIX_RECORD:-0}

REFERENCE_TARGET=x86_64-gcc-O2

# The targets, in report order. Controls (control-*) must differ from the golden output; a
# control whose program reports MISMATCH lines (exit status 1: its variants, such as the vector
# kernels and the scalar code, disagree under contraction) differs too and passes.
ALL_TARGETS=(
    x86_64-gcc-O0
    x86_64-gcc-O2
    x86_64-gcc-O3-native
    x86_64-clang-O0
    x86_64-clang-O2
    x86_64-clang-O3-native
    i686-gcc-sse2
    i686-clang-sse2
    aarch64-gcc
    aarch64-clang
    s390x-gcc
    s390x-clang
    riscv64-gcc
    x86_64-musl-gcc-static
    wasm32-wasi-clang
    wasm32-wasi-clang-simd128
    x86_64-windows-mingw-gcc
    x86_64-windows-mingw-clang
    i686-windows-mingw-gcc-sse2
    control-aarch64-gcc-fma
    control-x86_64-gcc-native-fma
)

# Space separated words into the array EXPANDED; a word with * ? or [ is a file pattern
# (e.g. cli/*.c), expanded in sorted order.
expand_files() {
    local words=() w matches=()
    EXPANDED=()
    read -r -a words <<<"$1"
    for w in "${words[@]}"; do
        if [[ $w == *[*?[]* ]]; then
            mapfile -t matches < <(compgen -G "$w" | LC_ALL=C sort || true)
            if [[ ${#matches[@]} -eq 0 ]]; then
                echo "matrix: pattern '$w' matches no file" >&2
                exit 2
            fi
            EXPANDED+=("${matches[@]}")
        else
            EXPANDED+=("$w")
        fi
    done
}
expand_files "$MATRIX_SOURCES"
PROGRAM_SOURCES=("${EXPANDED[@]}")
read -r -a PROGRAM_ARGS <<<"$MATRIX_ARGS"
# The library: every src/*.c unless MATRIX_LIB_SOURCES names the files (space separated).
if [[ -n ${MATRIX_LIB_SOURCES:-} ]]; then
    expand_files "$MATRIX_LIB_SOURCES"
    LIB_SOURCES=("${EXPANDED[@]}")
else
    LIB_SOURCES=(src/*.c)
fi

usage() {
    sed -n '3,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'
}

case "${1:-}" in
    "") ;;
    --list) printf '%s\n' "${ALL_TARGETS[@]}"; exit 0 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "matrix: unknown argument '$1' (try --help)" >&2; exit 2 ;;
esac

if [[ ${#PROGRAM_SOURCES[@]} -eq 0 ]]; then
    echo "matrix: MATRIX_SOURCES is empty" >&2
    exit 2
fi
for f in "${PROGRAM_SOURCES[@]}" "${LIB_SOURCES[@]}"; do
    if [[ ! -f $f ]]; then
        echo "matrix: source file '$f' not found (paths are relative to $ROOT)" >&2
        exit 2
    fi
done
# Include paths: the public headers, the library's private headers, test/, and the directory
# of every program source (so a program in cli/ finds its own headers).
INCLUDES=(-Iinclude -Isrc -Itest)
for f in "${PROGRAM_SOURCES[@]}"; do
    d=$(dirname "$f")
    [[ " ${INCLUDES[*]} " == *" -I$d "* ]] || INCLUDES+=("-I$d")
done
if ! [[ $MATRIX_JOBS =~ ^[1-9][0-9]*$ ]]; then
    echo "matrix: MATRIX_JOBS must be a positive integer" >&2
    exit 2
fi

# Select targets.
SELECTED=()
if [[ -z $MATRIX_TARGETS ]]; then
    SELECTED=("${ALL_TARGETS[@]}")
else
    read -r -a patterns <<<"${MATRIX_TARGETS//,/ }"
    for t in "${ALL_TARGETS[@]}"; do
        for p in "${patterns[@]}"; do
            # shellcheck disable=SC2053 # the pattern is meant to match as a glob
            if [[ $t == $p ]]; then
                SELECTED+=("$t")
                break
            fi
        done
    done
    if [[ ${#SELECTED[@]} -eq 0 ]]; then
        echo "matrix: MATRIX_TARGETS='$MATRIX_TARGETS' matches no target (see --list)" >&2
        exit 2
    fi
fi

now_us() { echo "${EPOCHREALTIME//[!0-9]/}"; }
fmt_secs() { # microseconds -> "12.34"
    local us=$1
    printf '%d.%02d' $((us / 1000000)) $((us % 1000000 / 10000))
}

cpu_has_fma() { grep -qw fma /proc/cpuinfo 2>/dev/null; }

# ---------------------------------------------------------------------------------------
# Target definitions. Sets:
#   T_CC      compiler command (array)
#   T_FLAGS   target flags (array), T_OPT the optimisation flags (array)
#   T_LIBS    link libraries (array)
#   T_RUN     runner prefix (array; empty = native)
#   T_ALT_RUN runner to retry with when the native run cannot execute (exit 126)
#   T_NEEDS   commands (bare names) and files (absolute paths) the target needs
#   T_EXE     output file name
#   T_CONTROL 1 for a control target
#   T_UNSUPPORTED  non-empty: the host cannot run this target at all (always SKIP)
#   T_NOTE    a remark printed with the result
# ---------------------------------------------------------------------------------------
define_target() {
    local name=$1
    T_CC=() T_FLAGS=() T_OPT=(-O2) T_LIBS=(-lpthread -lm) T_RUN=() T_ALT_RUN=() T_NEEDS=()
    T_EXE=prog T_CONTROL=0 T_UNSUPPORTED='' T_NOTE=''
    local gnu_cross
    case $name in
        x86_64-gcc-O0) T_CC=(gcc) T_OPT=(-O0) T_NEEDS=(gcc) ;;
        x86_64-gcc-O2) T_CC=(gcc) T_OPT=(-O2) T_NEEDS=(gcc) ;;
        x86_64-gcc-O3-native) T_CC=(gcc) T_OPT=(-O3 -march=native) T_NEEDS=(gcc) ;;
        x86_64-clang-O0) T_CC=(clang) T_OPT=(-O0) T_NEEDS=(clang) ;;
        x86_64-clang-O2) T_CC=(clang) T_OPT=(-O2) T_NEEDS=(clang) ;;
        x86_64-clang-O3-native) T_CC=(clang) T_OPT=(-O3 -march=native) T_NEEDS=(clang) ;;
        i686-gcc-sse2 | i686-clang-sse2)
            # 32-bit x86 with SSE2 arithmetic (FLT_EVAL_METHOD 0). Run natively when the
            # kernel can execute 32-bit binaries, else under qemu-i386.
            if [[ $name == i686-gcc-* ]]; then T_CC=(gcc); else T_CC=(clang); fi
            T_FLAGS=(-m32 -msse2 -mfpmath=sse)
            # <asm/errno.h> for -m32 without Debian's gcc-multilib (scripts/m32-include)
            local m32
            read -r -a m32 <<<"$("$ROOT/scripts/m32-include" "$MATRIX_OUT/$name")"
            T_FLAGS+=("${m32[@]}")
            T_ALT_RUN=(qemu-i386)
            T_NEEDS=("${T_CC[0]}" /usr/lib32/crt1.o)
            if command -v gcc >/dev/null 2>&1; then
                T_NEEDS+=("$(gcc -m32 -print-libgcc-file-name 2>/dev/null || echo /nonexistent/32-bit-libgcc)")
            fi
            ;;
        aarch64-gcc | s390x-gcc | riscv64-gcc | control-aarch64-gcc-fma)
            local arch=${name#control-}
            arch=${arch%%-*}
            gnu_cross=$arch-linux-gnu
            T_CC=("$gnu_cross-gcc")
            # Static: qemu then needs no target library path (-L kept for a dynamic build).
            T_FLAGS=(-static)
            T_RUN=("qemu-$arch" -L "/usr/$gnu_cross")
            T_NEEDS=("$gnu_cross-gcc" "/usr/$gnu_cross/lib/libc.a" "qemu-$arch")
            if [[ $name == control-* ]]; then
                T_CONTROL=1
            fi
            ;;
        aarch64-clang | s390x-clang)
            # clang finds the GNU cross installation (crt files, libc, <triplet>-ld; lld
            # cannot link s390x, the GNU linker can).
            local arch=${name%%-*}
            gnu_cross=$arch-linux-gnu
            T_CC=(clang "--target=$gnu_cross")
            T_FLAGS=(-static)
            T_RUN=("qemu-$arch" -L "/usr/$gnu_cross")
            T_NEEDS=(clang "$gnu_cross-gcc" "$gnu_cross-ld" "/usr/$gnu_cross/lib/libc.a" "qemu-$arch")
            ;;
        x86_64-musl-gcc-static)
            T_CC=(musl-gcc) T_FLAGS=(-static) T_NEEDS=(musl-gcc)
            ;;
        wasm32-wasi-clang | wasm32-wasi-clang-simd128)
            # wasi-libc: no pthreads, libm inside libc. 8 MiB of stack instead of wasm-ld's
            # 64 KiB default. Run by Node.js (node:wasi, preview1). The simd128 target is
            # the browser's SIMD128 module (web/orca-simd.wasm): -msimd128, the constraint
            # kernel in f64x2 vectors (src/kernels.c), checked against its own scalar step.
            T_CC=(clang --target=wasm32-wasi)
            T_FLAGS=(-DORCA_NO_THREADS "-Wl,-z,stack-size=8388608")
            [[ $name == *-simd128 ]] && T_FLAGS+=(-msimd128)
            T_LIBS=()
            T_EXE=prog.wasm
            T_RUN=(node --no-warnings "$ROOT/scripts/wasi-run.mjs")
            T_NEEDS=(clang wasm-ld node /usr/lib/wasm32-wasi/libc.a)
            if command -v clang >/dev/null 2>&1; then
                T_NEEDS+=("$(clang --target=wasm32-wasi -print-libgcc-file-name 2>/dev/null || echo /nonexistent/wasm32-builtins)")
            fi
            ;;
        x86_64-windows-mingw-gcc | x86_64-windows-mingw-clang | i686-windows-mingw-gcc-sse2)
            # Windows with MinGW-w64's headers and C runtime, run under Wine (scripts/wine-run,
            # one Wine prefix for every run). The C99 printf of MinGW-w64 (as the library's
            # CMake build has it); static, so that Wine needs no MinGW DLL. Debian's clang
            # finds neither MinGW gcc's libgcc nor a PE linker by itself: -L and lld.
            local triple=x86_64-w64-mingw32
            [[ $name == i686-* ]] && triple=i686-w64-mingw32
            T_FLAGS=(-static -D__USE_MINGW_ANSI_STDIO=1)
            T_LIBS=()
            T_EXE=prog.exe
            T_RUN=("$ROOT/scripts/wine-run")
            T_NEEDS=("$triple-gcc" /usr/lib/wine/wine64)
            if [[ $name == *-clang ]]; then
                local libgcc
                libgcc=$("$triple-gcc" -print-libgcc-file-name 2>/dev/null || echo /nonexistent/libgcc.a)
                T_CC=(clang --target=x86_64-w64-windows-gnu -fuse-ld=lld "-L${libgcc%/*}")
                T_NEEDS+=(clang ld.lld "$libgcc")
            else
                T_CC=("$triple-gcc")
            fi
            if [[ $name == i686-* ]]; then
                T_FLAGS+=(-msse2 -mfpmath=sse)
                if [[ ! -e /usr/lib/wine/wine && ! -e /usr/lib/i386-linux-gnu/wine/wine ]]; then
                    T_UNSUPPORTED="no 32-bit Wine (Debian's wine32, an i386 package)"
                fi
            fi
            ;;
        control-x86_64-gcc-native-fma)
            T_CC=(gcc) T_OPT=(-O3 -march=native) T_NEEDS=(gcc) T_CONTROL=1
            if ! cpu_has_fma; then
                T_UNSUPPORTED="this CPU has no FMA instructions"
            fi
            ;;
        *)
            echo "matrix: internal error: no definition for target $name" >&2
            return 1
            ;;
    esac
}

# Builds and runs one target in $MATRIX_OUT/<name>/; writes the files the parent judges:
#   state   one of: missing, unsupported, build-failed, ran
#   note    free text (missing tools, runner used)
#   rc      the program's exit status
#   time    build and run microseconds
execute_target() {
    local name=$1
    local dir=$MATRIX_OUT/$name
    rm -rf "$dir"
    mkdir -p "$dir"
    local t0 t1 t2
    t0=$(now_us)
    define_target "$name"

    if [[ -n $T_UNSUPPORTED ]]; then
        echo unsupported >"$dir/state"
        echo "$T_UNSUPPORTED" >"$dir/note"
        echo "0 0" >"$dir/time"
        touch "$dir/done"
        return 0
    fi
    local missing=() need
    for need in "${T_NEEDS[@]}"; do
        if [[ $need == /* ]]; then
            [[ -e $need ]] || missing+=("$need")
        else
            command -v "$need" >/dev/null 2>&1 || missing+=("$need")
        fi
    done
    if [[ ${#missing[@]} -gt 0 ]]; then
        echo missing >"$dir/state"
        echo "toolchain missing: ${missing[*]} (scripts/install-deps.sh)" >"$dir/note"
        echo "0 0" >"$dir/time"
        touch "$dir/done"
        return 0
    fi

    local contract=-ffp-contract=off
    if [[ $T_CONTROL == 1 ]]; then
        contract=-ffp-contract=fast
    fi
    local extra=()
    read -r -a extra <<<"$MATRIX_CFLAGS"
    local cmd=("${T_CC[@]}" -std=c17 "$contract" -fno-fast-math "${T_OPT[@]}" "${T_FLAGS[@]}"
        "${extra[@]}" "${INCLUDES[@]}" "${LIB_SOURCES[@]}" "${PROGRAM_SOURCES[@]}"
        -o "$dir/$T_EXE" "${T_LIBS[@]}")
    {
        echo "#!/bin/sh"
        echo "# $name: run from $ROOT"
        printf '%q ' "${cmd[@]}"
        echo
    } >"$dir/build.sh"
    if ! "${cmd[@]}" >"$dir/build.log" 2>&1; then
        t1=$(now_us)
        echo build-failed >"$dir/state"
        echo "build failed ($dir/build.log)" >"$dir/note"
        echo "$((t1 - t0)) 0" >"$dir/time"
        touch "$dir/done"
        return 0
    fi
    t1=$(now_us)

    local rc=0 runner=("${T_RUN[@]}") note=
    # A native run goes through bash's exec: a binary the kernel cannot load (ENOEXEC: a
    # 32-bit program without the kernel's IA-32 support) then exits 126, where timeout's
    # execvp would hand it to /bin/sh as a script.
    local native=()
    [[ ${#runner[@]} -eq 0 ]] && native=(bash -c 'exec "$0" "$@"')
    timeout "$MATRIX_TIMEOUT" "${runner[@]}" "${native[@]}" "$dir/$T_EXE" "${PROGRAM_ARGS[@]}" \
        >"$dir/stdout" 2>"$dir/stderr" || rc=$?
    if [[ $rc == 126 && ${#T_ALT_RUN[@]} -gt 0 ]]; then
        # The kernel refused the binary (e.g. no 32-bit x86 support): emulate it.
        if command -v "${T_ALT_RUN[0]}" >/dev/null 2>&1; then
            runner=("${T_ALT_RUN[@]}")
            rc=0
            timeout "$MATRIX_TIMEOUT" "${runner[@]}" "$dir/$T_EXE" "${PROGRAM_ARGS[@]}" \
                >"$dir/stdout" 2>"$dir/stderr" || rc=$?
        else
            note="the kernel cannot run it and ${T_ALT_RUN[0]} is missing; "
        fi
    fi
    t2=$(now_us)
    if [[ ${#runner[@]} -eq 0 ]]; then
        note+="native"
    else
        note+="${runner[0]##*/}"
        [[ ${runner[0]} == node ]] && note="node $(node --version 2>/dev/null || true)"
    fi
    [[ $rc == 124 ]] && note+="; timed out after ${MATRIX_TIMEOUT}s"
    local warnings
    warnings=$(grep -c 'warning:' "$dir/build.log" || true)
    ((warnings > 0)) && note+="; $warnings compiler warnings in build.log"
    [[ -n $T_NOTE ]] && note+="; $T_NOTE"
    echo ran >"$dir/state"
    echo "$rc" >"$dir/rc"
    echo "$note" >"$dir/note"
    echo "$((t1 - t0)) $((t2 - t1))" >"$dir/time"
    touch "$dir/done"
}

# ---------------------------------------------------------------------------------------
# Judging and reporting (parent process, in target order)
# ---------------------------------------------------------------------------------------
PASSED=0 FAILED=0 SKIPPED=0

indent() { sed -e 's/^/      | /'; }

report_target() {
    local name=$1
    local dir=$MATRIX_OUT/$name
    local state=internal note='' status first=- details=() build_us=0 run_us=0 rc=''
    if [[ -f $dir/done ]]; then
        state=$(cat "$dir/state")
        note=$(cat "$dir/note")
        read -r build_us run_us <"$dir/time"
    fi
    case $state in
        internal)
            status=FAIL note="the matrix script itself failed on this target (see $dir)" ;;
        unsupported)
            status=SKIP ;;
        missing)
            if [[ $MATRIX_REQUIRE_ALL == 1 ]]; then
                status=FAIL note+="; MATRIX_REQUIRE_ALL=1"
            else
                status=SKIP
            fi
            ;;
        build-failed)
            status=FAIL
            details+=("$(tail -n 15 "$dir/build.log" || true)")
            ;;
        ran)
            rc=$(cat "$dir/rc")
            first=$(head -n 1 "$dir/stdout" || true)
            # Shown: the first line, or "<its first word> <its hash>" when it is long and
            # carries a 16-hex-digit hash ("circle agents=100 ... hash=4be6..." -> "circle 4be6...").
            if ((${#first} > 40)) && [[ $first =~ (^|[^0-9a-fA-F])([0-9a-fA-F]{16})([^0-9a-fA-F]|$) ]]; then
                first="${first%% *} ${BASH_REMATCH[2]}"
            fi
            first=${first:0:48}
            [[ -z $first ]] && first="(no output)"
            local mismatches=0
            if [[ $name == control-* && $rc == 1 ]] && grep -q '^MISMATCH ' "$dir/stdout"; then
                # Under contraction the vector kernels and the scalar code (or two inlined
                # copies of one expression) may contract differently: the program then
                # reports the disagreement and exits 1. That is a difference too.
                mismatches=$(grep -c '^MISMATCH ' "$dir/stdout" || true)
                rc=0
            fi
            if [[ $rc != 0 ]]; then
                status=FAIL note="exit status $rc; $note"
                [[ -s $dir/stderr ]] && details+=("$(tail -n 10 "$dir/stderr" || true)")
            elif [[ ! -f $MATRIX_GOLDEN ]]; then
                status=FAIL
                note="golden file $MATRIX_GOLDEN missing (MATRIX_RECORD=1 records it from $REFERENCE_TARGET); $note"
            elif [[ $name == control-* ]]; then
                if cmp -s "$dir/stdout" "$MATRIX_GOLDEN"; then
                    status=FAIL
                    note="control build (FMA contraction allowed) printed the golden output: the scenarios are too weak to see a one-rounding difference; $note"
                else
                    local total differing
                    total=$(wc -l <"$MATRIX_GOLDEN")
                    differing=$(diff "$MATRIX_GOLDEN" "$dir/stdout" | grep -c '^>' || true)
                    status=PASS
                    note="differs from golden as required ($differing of $total lines); $note"
                    if ((mismatches > 0)); then
                        note="$note; $mismatches variant(s) disagreed within the build"
                    fi
                fi
            elif cmp -s "$dir/stdout" "$MATRIX_GOLDEN"; then
                status=PASS
            else
                status=FAIL
                note="output differs from $MATRIX_GOLDEN; $note"
                details+=("$(diff "$MATRIX_GOLDEN" "$dir/stdout" | head -n 12 || true)")
            fi
            ;;
    esac
    case $status in
        PASS) PASSED=$((PASSED + 1)) ;;
        FAIL) FAILED=$((FAILED + 1)) ;;
        SKIP) SKIPPED=$((SKIPPED + 1)) ;;
    esac
    local secs
    secs=$(fmt_secs $((build_us + run_us)))
    local timing=
    if ((build_us + run_us > 0)); then
        timing="build $(fmt_secs "$build_us")s run $(fmt_secs "$run_us")s"
    fi
    printf '%-30s %-4s  %-26s %7ss  %s\n' "$name" "$status" "$first" "$secs" \
        "${timing:+($timing) }$note"
    local d
    for d in "${details[@]}"; do
        [[ -n $d ]] && printf '%s\n' "$d" | indent
    done
    return 0
}

# ---------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------
mkdir -p "$MATRIX_OUT"
# Results of an earlier run must not be reported as this run's: clear every selected target
# before any starts (the reporter prints a target as soon as its "done" file exists).
for t in "${SELECTED[@]}"; do
    rm -rf "${MATRIX_OUT:?}/$t"
done
WALL0=$(now_us)
echo "matrix: ${#SELECTED[@]} targets, library: ${LIB_SOURCES[*]}, program: ${PROGRAM_SOURCES[*]}${PROGRAM_ARGS[*]:+ (args: ${PROGRAM_ARGS[*]})}, golden: $MATRIX_GOLDEN, jobs: $MATRIX_JOBS"

DONE_EARLY=()
if [[ $MATRIX_RECORD == 1 ]]; then
    (execute_target "$REFERENCE_TARGET") || true
    ref_dir=$MATRIX_OUT/$REFERENCE_TARGET
    if [[ -f $ref_dir/rc && $(cat "$ref_dir/rc") == 0 ]]; then
        mkdir -p "$(dirname "$MATRIX_GOLDEN")"
        cp "$ref_dir/stdout" "$MATRIX_GOLDEN"
        echo "matrix: recorded $MATRIX_GOLDEN from $REFERENCE_TARGET"
    else
        echo "matrix: could not record $MATRIX_GOLDEN: $REFERENCE_TARGET did not run cleanly" >&2
    fi
    DONE_EARLY=("$REFERENCE_TARGET")
fi

next_report=0
report_ready() { # report, in order, every target that has finished
    while ((next_report < ${#SELECTED[@]})); do
        local t=${SELECTED[next_report]}
        [[ -f $MATRIX_OUT/$t/done ]] || return 0
        report_target "$t"
        next_report=$((next_report + 1))
    done
}

for t in "${SELECTED[@]}"; do
    if [[ " ${DONE_EARLY[*]} " == *" $t "* ]]; then
        continue
    fi
    while (($(jobs -rp | wc -l) >= MATRIX_JOBS)); do
        wait -n || true
        report_ready
    done
    # A failing command inside the job must not leave the parent waiting for a "done" file:
    # the parent treats a target without one as a FAIL after `wait`.
    (execute_target "$t") &
done
while (($(jobs -rp | wc -l) > 0)); do
    wait -n || true
    report_ready
done
wait || true
while ((next_report < ${#SELECTED[@]})); do
    report_target "${SELECTED[next_report]}"
    next_report=$((next_report + 1))
done

WALL1=$(now_us)
summary="matrix: $PASSED passed, $FAILED failed"
((SKIPPED > 0)) && summary+=", $SKIPPED skipped"
echo "$summary (wall $(fmt_secs $((WALL1 - WALL0)))s)"
((FAILED == 0))
