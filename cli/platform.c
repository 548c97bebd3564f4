/* SPDX-License-Identifier: MIT */
/* The orca command: what differs between POSIX systems and Windows (cli.h, "platform"). The
 * rest of the command is the same C on both. Windows: MinGW-w64 (tested under Wine) and MSVC
 * (prepared, docs/determinism.md, "Windows"). */
#if !defined(_WIN32)
#define _XOPEN_SOURCE 700 /* POSIX 2008 with realpath */
#endif
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#if defined(_WIN32)

#define WIN32_LEAN_AND_MEAN
#include <io.h>
#include <windows.h>

void cli_platform_init(void)
{
    /* The standard streams in binary mode: a scene file's bytes reach the parser as they are
     * (CR LF is the parser's business: docs/scene-format.md), and the outputs written to
     * standard output are the same bytes as on every other system. */
    _setmode(0, _O_BINARY);
    _setmode(1, _O_BINARY);
    _setmode(2, _O_BINARY);
}

int cli_stderr_is_terminal(void) { return _isatty(2); }

double cli_now(void)
{
    static LARGE_INTEGER freq;
    LARGE_INTEGER now;
    if (freq.QuadPart == 0) {
        QueryPerformanceFrequency(&freq);
    }
    QueryPerformanceCounter(&now);
    return (double)now.QuadPart / (double)freq.QuadPart;
}

int cli_cpu_count(void)
{
    DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    if (n < 1) {
        return 1;
    }
    return n > 1024 ? 1024 : (int)n;
}

int cli_open_read(const char *path)
{
    /* binary (no CR LF translation, no stop at ^Z), not inherited by child processes */
    int fd = _open(path, _O_RDONLY | _O_BINARY | _O_NOINHERIT);
    if (fd < 0 && errno == EACCES) {
        /* Windows refuses to open a directory as a file with "permission denied" */
        struct stat st;
        if (stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR) {
            errno = EISDIR;
        }
    }
    return fd;
}

long cli_read_fd(int fd, void *buf, size_t size)
{
    unsigned n = size > 0x40000000u ? 0x40000000u : (unsigned)size;
    return _read(fd, buf, n);
}

void cli_close_fd(int fd) { _close(fd); }

int cli_temp_file(char *path)
{
    /* path ends in XXXXXX: six letters and digits from a counter, the process and the clock,
     * created only if no such file exists (like mkstemp) */
    static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    static unsigned long long counter;
    size_t len = strlen(path);
    if (len < 6 || strcmp(path + len - 6, "XXXXXX") != 0) {
        errno = EINVAL;
        return -1;
    }
    char *x = path + len - 6;
    for (int attempt = 0; attempt < 1000; ++attempt) {
        unsigned long long v = (unsigned long long)GetCurrentProcessId() * 2654435761u ^
                               (unsigned long long)GetTickCount64() ^ (++counter * 40503u);
        for (int i = 0; i < 6; ++i) {
            x[i] = chars[v % 36u];
            v /= 36u;
        }
        int fd = _open(path, _O_CREAT | _O_EXCL | _O_RDWR | _O_BINARY | _O_NOINHERIT,
                       _S_IREAD | _S_IWRITE);
        if (fd >= 0 || errno != EEXIST) {
            return fd;
        }
    }
    errno = EEXIST;
    return -1;
}

void cli_temp_mode(int fd, int exists, unsigned mode)
{
    /* Windows files have no Unix mode: the new file gets the directory's defaults. */
    (void)fd;
    (void)exists;
    (void)mode;
}

int cli_sync_fd(int fd) { return _commit(fd); }

/* errno for the Win32 errors that replacing a file meets (EIO for the rest). */
static int errno_of(DWORD e)
{
    switch (e) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
        return ENOENT;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
        return EACCES;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL:
        return ENOSPC;
    case ERROR_NOT_SAME_DEVICE:
        return EXDEV;
    case ERROR_WRITE_PROTECT:
        return EROFS;
    case ERROR_FILENAME_EXCED_RANGE:
        return ENAMETOOLONG;
    default:
        return EIO;
    }
}

int cli_replace_file(const char *from, const char *to)
{
    /* rename() on Windows refuses an existing target: MoveFileEx replaces it, in one step on
     * the same volume, and flushes before it returns. */
    if (!MoveFileExA(from, to, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
        errno = errno_of(GetLastError());
        return -1;
    }
    return 0;
}

int cli_remove_file(const char *path) { return _unlink(path); }

char *cli_link_target(const char *path)
{
    (void)path; /* symbolic links are rare on Windows: the path itself is replaced */
    return NULL;
}

int cli_same_file(const char *a, const char *b)
{
    /* The volume and the file index: Windows' inode (st_ino is 0 there). */
    BY_HANDLE_FILE_INFORMATION ia, ib;
    int same = 0;
    HANDLE ha = CreateFileA(a, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                            OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
    HANDLE hb = CreateFileA(b, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                            OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
    if (ha != INVALID_HANDLE_VALUE && hb != INVALID_HANDLE_VALUE &&
        GetFileInformationByHandle(ha, &ia) && GetFileInformationByHandle(hb, &ib)) {
        same = ia.dwVolumeSerialNumber == ib.dwVolumeSerialNumber &&
               ia.nFileIndexHigh == ib.nFileIndexHigh && ia.nFileIndexLow == ib.nFileIndexLow;
    }
    if (ha != INVALID_HANDLE_VALUE) {
        CloseHandle(ha);
    }
    if (hb != INVALID_HANDLE_VALUE) {
        CloseHandle(hb);
    }
    return same;
}

void cli_on_termination(void (*handler)(int))
{
    /* Ctrl+C, Ctrl+Break and termination requests (the C runtime's signals on Windows) */
    static const int sigs[] = {SIGINT, SIGTERM, SIGBREAK};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; ++i) {
        void (*old)(int) = signal(sigs[i], handler);
        if (old == SIG_IGN) {
            signal(sigs[i], SIG_IGN);
        }
    }
}

int cli_is_separator(char c) { return c == '/' || c == '\\' || c == ':'; }

int cli_path_kind(const char *path)
{
    /* GetFileType tells a disk file from a device (NUL, CON, COM1) or a pipe, which stat()
     * does not on every C runtime. */
    HANDLE h = CreateFileA(path, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
    if (h == INVALID_HANDLE_VALUE) {
        return CLI_PATH_NONE;
    }
    int kind = CLI_PATH_OTHER;
    BY_HANDLE_FILE_INFORMATION info;
    if (GetFileType(h) == FILE_TYPE_DISK && GetFileInformationByHandle(h, &info)) {
        kind = info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY ? CLI_PATH_DIR : CLI_PATH_FILE;
    }
    CloseHandle(h);
    return kind;
}

#else /* POSIX */

#include <unistd.h>

void cli_platform_init(void) {}

int cli_stderr_is_terminal(void) { return isatty(STDERR_FILENO); }

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cli_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) {
        return 1;
    }
    return n > 1024 ? 1024 : (int)n;
}

int cli_open_read(const char *path) { return open(path, O_RDONLY | O_CLOEXEC); }

long cli_read_fd(int fd, void *buf, size_t size) { return (long)read(fd, buf, size); }

void cli_close_fd(int fd) { close(fd); }

int cli_temp_file(char *path) { return mkstemp(path); }

void cli_temp_mode(int fd, int exists, unsigned mode)
{
    /* mkstemp makes the file 0600: give it the mode the target has, or the one a new file
     * would get (0666 less the umask) */
    if (!exists) {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666u & ~(unsigned)mask;
    }
    if (fchmod(fd, (mode_t)(mode & 07777u)) != 0) {
        /* not fatal: the file is written all the same */
    }
}

int cli_sync_fd(int fd)
{
    /* file systems that cannot sync (a pipe, a read-only mount) are not an error */
    return fsync(fd) != 0 && errno != EINVAL && errno != EROFS ? -1 : 0;
}

int cli_replace_file(const char *from, const char *to) { return rename(from, to); }

int cli_remove_file(const char *path) { return unlink(path); }

char *cli_link_target(const char *path)
{
    struct stat lst;
    if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
        return realpath(path, NULL);
    }
    return NULL;
}

int cli_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

void cli_on_termination(void (*handler)(int))
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; ++i) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN) {
            continue; /* keep an ignored signal ignored (nohup, a shell's trap '') */
        }
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = handler;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND | SA_NODEFER;
        sigaction(sigs[i], &sa, NULL);
    }
}

int cli_is_separator(char c) { return c == '/'; }

int cli_path_kind(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        return CLI_PATH_NONE;
    }
    return S_ISREG(st.st_mode) ? CLI_PATH_FILE : S_ISDIR(st.st_mode) ? CLI_PATH_DIR : CLI_PATH_OTHER;
}

#endif
