/* SPDX-License-Identifier: MIT */
/* The determinism program of the cross-target matrix (scripts/matrix.sh): prints the hash of
 * every built-in scenario after a fixed number of steps (test/determinism.c). The matrix
 * compares the output with test/golden/determinism.txt, which test_determinism also checks. */
#include "determinism.c"

#if defined(_WIN32)
#include <fcntl.h>
#include <io.h>
#endif

int main(void)
{
#if defined(_WIN32)
    _setmode(_fileno(stdout), _O_BINARY); /* "\n", not "\r\n": the golden file's bytes */
#endif
    return det_write(stdout) == 0 ? 0 : 1;
}
