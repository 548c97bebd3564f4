/* SPDX-License-Identifier: MIT */
/* Private: the few thread primitives the worker pool (pool.c) needs, on POSIX threads or on
 * the Win32 API (_WIN32: MinGW-w64 and MSVC alike, so that a Windows build needs no pthreads
 * library). Header-only, so that the tests can start threads the same way. Nothing here
 * touches a floating-point value: the pool's results never depend on it (docs/determinism.md,
 * "Threads").
 *
 *   ORCA_THREAD_PROC(name)       defines a thread's function: `ORCA_THREAD_PROC(f) { ...;
 *                                return 0; }` with its argument in `arg` (a void *)
 *   orca_thread_start(&t, f, a)  0, or an error number (errno's, or GetLastError's on Windows)
 *   orca_thread_join(t)          waits for the thread and releases it
 *   orca_thread_id()             the calling thread's identity (compare with ==)
 *   orca_mutex_*, orca_cond_*    init (0 on success), destroy, lock, unlock, wait, signal,
 *                                broadcast, as pthreads' (Windows: SRW lock, condition variable)
 *   orca_cpu_count()             online processors (at least 1)
 *   ORCA_CPU_RELAX()             the CPU's hint inside a spin loop (pause, yield), or nothing */
#ifndef ORCA_THREAD_H
#define ORCA_THREAD_H

#if defined(_WIN32)

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <errno.h>
#include <process.h>
#include <stdint.h>
#include <windows.h>
/* windows.h's 16-bit leftovers, which would take these names from the includer's variables */
#undef near
#undef far

typedef HANDLE orca_thread;
typedef SRWLOCK orca_mutex;
typedef CONDITION_VARIABLE orca_cond;
typedef DWORD orca_thread_ident;

#define ORCA_THREAD_PROC(name) static unsigned __stdcall name(void *arg)
typedef unsigned(__stdcall orca_thread_proc)(void *);

static inline int orca_thread_start(orca_thread *t, orca_thread_proc *fn, void *arg)
{
    /* _beginthreadex, not CreateThread: the C runtime's per-thread state is set up. */
    uintptr_t h = _beginthreadex(NULL, 0, fn, arg, 0, NULL);
    if (h == 0) {
        return errno ? errno : EAGAIN;
    }
    *t = (HANDLE)h;
    return 0;
}
static inline void orca_thread_join(orca_thread t)
{
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
}
#define orca_thread_id() GetCurrentThreadId() /* (a macro: unused in the library) */

static inline int orca_mutex_init(orca_mutex *m)
{
    InitializeSRWLock(m);
    return 0;
}
static inline void orca_mutex_destroy(orca_mutex *m) { (void)m; }
static inline void orca_mutex_lock(orca_mutex *m) { AcquireSRWLockExclusive(m); }
static inline void orca_mutex_unlock(orca_mutex *m) { ReleaseSRWLockExclusive(m); }
static inline void orca_cond_init(orca_cond *c) { InitializeConditionVariable(c); }
static inline void orca_cond_destroy(orca_cond *c) { (void)c; }
static inline void orca_cond_wait(orca_cond *c, orca_mutex *m)
{
    SleepConditionVariableSRW(c, m, INFINITE, 0);
}
static inline void orca_cond_signal(orca_cond *c) { WakeConditionVariable(c); }
static inline void orca_cond_broadcast(orca_cond *c) { WakeAllConditionVariable(c); }

static inline int orca_cpu_count(void)
{
    /* All processor groups (more than 64 processors), where the system knows them. */
    DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    if (n == 0) {
        SYSTEM_INFO si;
        GetSystemInfo(&si);
        n = si.dwNumberOfProcessors;
    }
    return n < 1 ? 1 : (int)n;
}

/* YieldProcessor is the pause instruction on x86 and yield on ARM, for MSVC and MinGW. */
#define ORCA_CPU_RELAX() YieldProcessor()

#else /* POSIX threads */

#include <pthread.h>
#include <unistd.h>

typedef pthread_t orca_thread;
typedef pthread_mutex_t orca_mutex;
typedef pthread_cond_t orca_cond;
typedef pthread_t orca_thread_ident;

#define ORCA_THREAD_PROC(name) static void *name(void *arg)
typedef void *orca_thread_proc(void *);

static inline int orca_thread_start(orca_thread *t, orca_thread_proc *fn, void *arg)
{
    return pthread_create(t, NULL, fn, arg);
}
static inline void orca_thread_join(orca_thread t) { pthread_join(t, NULL); }
#define orca_thread_id() pthread_self()

static inline int orca_mutex_init(orca_mutex *m) { return pthread_mutex_init(m, NULL); }
static inline void orca_mutex_destroy(orca_mutex *m) { pthread_mutex_destroy(m); }
static inline void orca_mutex_lock(orca_mutex *m) { pthread_mutex_lock(m); }
static inline void orca_mutex_unlock(orca_mutex *m) { pthread_mutex_unlock(m); }
static inline void orca_cond_init(orca_cond *c) { pthread_cond_init(c, NULL); }
static inline void orca_cond_destroy(orca_cond *c) { pthread_cond_destroy(c); }
static inline void orca_cond_wait(orca_cond *c, orca_mutex *m) { pthread_cond_wait(c, m); }
static inline void orca_cond_signal(orca_cond *c) { pthread_cond_signal(c); }
static inline void orca_cond_broadcast(orca_cond *c) { pthread_cond_broadcast(c); }

static inline int orca_cpu_count(void)
{
#ifdef _SC_NPROCESSORS_ONLN
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (n > 1 << 20 ? 1 << 20 : (int)n);
#else
    return 1;
#endif
}

#if defined(__x86_64__) || defined(__i386__)
#define ORCA_CPU_RELAX() __builtin_ia32_pause()
#elif defined(__aarch64__) || (defined(__arm__) && defined(__ARM_ARCH) && __ARM_ARCH >= 7)
#define ORCA_CPU_RELAX() __asm__ __volatile__("yield")
#else
#define ORCA_CPU_RELAX() ((void)0)
#endif

#endif
#endif
