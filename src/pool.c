/* SPDX-License-Identifier: MIT */
#include "pool.h"

#include "alloc.h"

#ifndef ORCA_NO_THREADS
#include <stdatomic.h>

#include "thread.h"

/* A thread that waits for the next run or for the workers first spins this many times
 * (checking an atomic, with the CPU's pause hint: about 0.2 ms on this project's machine,
 * where a pause takes about 10 ns; up to about 1 ms where it takes longer) before it sleeps
 * on the condition variable. Waking a sleeping thread costs tens of microseconds (more under
 * a hypervisor), which small crowds pay on every parallel pass: measured at 1,000 agents on
 * two workers, 2.5 M agent-steps/s with sleeping alone, 3.2 M with a spin of 40 us. The spin
 * covers the caller's serial work between passes (the grid's sort: about 0.1 ms at 10,000
 * agents), so that a worker is still awake for the next pass. Only while the pool has no more
 * threads than the machine has online CPUs: with more, spinning threads take the CPUs from
 * working ones (the determinism test, which runs up to eight workers on two CPUs, took four
 * times the CPU time). */
#define POOL_SPIN 20000

#define POOL_RELAX() ORCA_CPU_RELAX()

/* The fields that threads write while a run goes on (each worker's range, pending) are kept
 * a cache line (or more) away from each other and from the run's description, which every
 * thread reads: otherwise each taken chunk would move the line the others read from.
 * Padding, not alignment: the pool comes from the allocator hooks, which promise no more
 * than malloc. */
#define POOL_LINE 64

/* A worker's share of a run: the items [lo, hi) not taken yet, packed in one word (lo in the
 * low 32 bits) so that its owner (from the front) and others (from the back) take chunks
 * with one compare-and-exchange. The word sits POOL_LINE bytes into a slot of 2 POOL_LINE,
 * so that two words are never on one line, however the array is aligned. */
typedef struct pool_slot {
    char pad0[POOL_LINE];
    atomic_ullong range;
    char pad1[POOL_LINE - sizeof(atomic_ullong)];
} pool_slot;

struct orca_pool {
    int threads;
    int spin; /* POOL_SPIN, or 0 when there are more threads than online CPUs */
    orca_thread *handles;
    orca_mutex mutex;
    orca_cond start;
    orca_cond done;
    atomic_int quit;
    struct pool_arg *args; /* per thread: what pool_main is started with */
    pool_slot *slots;      /* per thread: its share of the current run */
    char pad0[POOL_LINE];
    atomic_ulong generation; /* changed under the mutex; read by spinning threads too */
    orca_task_fn *fn;
    void *ctx;
    int count;
    int least; /* the smallest chunk */
    char pad2[POOL_LINE];
    atomic_int pending; /* workers not done with the current run */
    char pad3[POOL_LINE];
};

typedef struct pool_arg {
    orca_pool *pool;
    int worker;
} pool_arg;

static unsigned long long pool_pack(long long lo, long long hi)
{
    return (unsigned long long)lo | (unsigned long long)hi << 32;
}

/* Takes a chunk of slot's range: from the front (the owner) or the back (another worker), a
 * half of what is left but at least `least` items (all of it when fewer are left). Returns 0
 * when nothing is left, else 1 with the chunk in [*begin, *end). */
static int pool_take(pool_slot *slot, long long least, int front, long long *begin,
                     long long *end)
{
    unsigned long long cur = atomic_load_explicit(&slot->range, memory_order_relaxed);
    for (;;) {
        long long lo = (long long)(cur & 0xffffffffu), hi = (long long)(cur >> 32);
        long long left = hi - lo;
        if (left <= 0) {
            return 0;
        }
        long long chunk = left / 2 < least ? least : left / 2;
        chunk = chunk > left ? left : chunk;
        unsigned long long next = front ? pool_pack(lo + chunk, hi) : pool_pack(lo, hi - chunk);
        /* on failure cur holds the current value: try again with it */
        if (atomic_compare_exchange_weak(&slot->range, &cur, next)) {
            *begin = front ? lo : hi - chunk;
            *end = front ? lo + chunk : hi;
            return 1;
        }
    }
}

/* Each worker owns a share of the items, the same one in every run of the same count (worker
 * w: the w-th of threads equal parts), and takes chunks of it from the front, in order: the
 * step's items are agents in the grid's order, so a worker keeps the same region of the
 * crowd from one step to the next, and the data of its agents stays in its CPU's cache.
 * Measured against chunks of one shared range, which handed a region to whichever thread
 * came first: 1,000 agents on two workers 3 to 4% faster, 10,000 2%. A worker whose share
 * is done takes from the back of the others' (a half of what is left there), so that a
 * worker the machine slows down, or with the harder items, does fewer; the chunks get
 * smaller as a share empties, so the threads finish close together. */
static void pool_range(orca_pool *p, int worker)
{
    long long least = p->least, begin, end;
    orca_task_fn *fn = p->fn;
    void *ctx = p->ctx;
    while (pool_take(&p->slots[worker], least, 1, &begin, &end)) {
        fn((int)begin, (int)end, worker, ctx);
    }
    for (int k = 1; k < p->threads; ++k) {
        pool_slot *other = &p->slots[(worker + k) % p->threads];
        while (pool_take(other, least, 0, &begin, &end)) {
            fn((int)begin, (int)end, worker, ctx);
        }
    }
}

ORCA_THREAD_PROC(pool_main)
{
    pool_arg a = *(pool_arg *)arg;
    orca_pool *p = a.pool;
    unsigned long seen = 0;
    for (;;) {
        /* the next run: spin a while, then sleep (the run's fields were written before its
         * generation was stored, so seeing the new generation makes them visible) */
        for (int k = 0; k < p->spin && atomic_load(&p->generation) == seen &&
                        !atomic_load(&p->quit);
             ++k) {
            POOL_RELAX();
        }
        if (atomic_load(&p->generation) == seen && !atomic_load(&p->quit)) {
            orca_mutex_lock(&p->mutex);
            while (!atomic_load(&p->quit) && atomic_load(&p->generation) == seen) {
                orca_cond_wait(&p->start, &p->mutex);
            }
            orca_mutex_unlock(&p->mutex);
        }
        if (atomic_load(&p->quit)) {
            break;
        }
        seen = atomic_load(&p->generation);
        pool_range(p, a.worker);
        if (atomic_fetch_sub(&p->pending, 1) == 1) {
            /* the last one: wake the caller if it sleeps (under the mutex, so that a caller
             * that saw pending > 0 there is already waiting) */
            orca_mutex_lock(&p->mutex);
            orca_cond_signal(&p->done);
            orca_mutex_unlock(&p->mutex);
        }
    }
    return 0;
}

orca_pool *orca_pool_create(int threads, int *error)
{
    if (error) {
        *error = 0;
    }
    if (threads < 2) {
        return NULL;
    }
    orca_pool *p = orca_mem_zalloc(1, sizeof *p);
    if (!p) {
        return NULL;
    }
    p->threads = threads;
    p->spin = 0;
    p->spin = orca_cpu_count() >= threads ? POOL_SPIN : 0;
    atomic_init(&p->generation, 0);
    atomic_init(&p->pending, 0);
    atomic_init(&p->quit, 0);
    p->handles = orca_mem_zalloc((size_t)threads, sizeof *p->handles);
    p->args = orca_mem_zalloc((size_t)threads, sizeof *p->args);
    p->slots = orca_mem_zalloc((size_t)threads, sizeof *p->slots);
    if (!p->handles || !p->args || !p->slots || orca_mutex_init(&p->mutex) != 0) {
        orca_mem_free(p->handles);
        orca_mem_free(p->args);
        orca_mem_free(p->slots);
        orca_mem_free(p);
        return NULL;
    }
    orca_cond_init(&p->start);
    orca_cond_init(&p->done);
    for (int w = 1; w < threads; ++w) {
        pool_arg *arg = &p->args[w];
        arg->pool = p;
        arg->worker = w;
        int rc = orca_thread_start(&p->handles[w], pool_main, arg);
        if (rc != 0) {
            if (error) {
                *error = rc;
            }
            p->threads = w;
            orca_pool_destroy(p);
            return NULL;
        }
    }
    return p;
}

void orca_pool_destroy(orca_pool *p)
{
    if (!p) {
        return;
    }
    orca_mutex_lock(&p->mutex);
    atomic_store(&p->quit, 1);
    orca_cond_broadcast(&p->start);
    orca_mutex_unlock(&p->mutex);
    for (int w = 1; w < p->threads; ++w) {
        orca_thread_join(p->handles[w]);
    }
    orca_cond_destroy(&p->start);
    orca_cond_destroy(&p->done);
    orca_mutex_destroy(&p->mutex);
    orca_mem_free(p->handles);
    orca_mem_free(p->args);
    orca_mem_free(p->slots);
    orca_mem_free(p);
}

int orca_pool_spins(const orca_pool *p)
{
    return p->spin > 0;
}

void orca_pool_run(orca_pool *p, orca_task_fn *fn, int count, void *ctx)
{
    orca_mutex_lock(&p->mutex);
    p->fn = fn;
    p->count = count;
    p->ctx = ctx;
    /* the last chunks: about a 64th of each thread's share, so that the threads finish
     * within a small part of the run (one item each when there are fewer items) */
    long long least = (long long)count / ((long long)p->threads * 64);
    p->least = (int)(least < 1 ? 1 : least);
    for (int w = 0; w < p->threads; ++w) {
        long long lo = (long long)count * w / p->threads;
        long long hi = (long long)count * (w + 1) / p->threads;
        atomic_store_explicit(&p->slots[w].range, pool_pack(lo, hi), memory_order_relaxed);
    }
    atomic_store(&p->pending, p->threads - 1);
    atomic_fetch_add(&p->generation, 1); /* after the fields above: spinning workers start */
    orca_cond_broadcast(&p->start);
    orca_mutex_unlock(&p->mutex);
    pool_range(p, 0);
    for (int k = 0; k < p->spin && atomic_load(&p->pending) > 0; ++k) {
        POOL_RELAX();
    }
    if (atomic_load(&p->pending) > 0) {
        orca_mutex_lock(&p->mutex);
        while (atomic_load(&p->pending) > 0) {
            orca_cond_wait(&p->done, &p->mutex);
        }
        orca_mutex_unlock(&p->mutex);
    }
}

#else /* ORCA_NO_THREADS: a build without threads (wasm32-wasi) runs everything on the caller. */

orca_pool *orca_pool_create(int threads, int *error)
{
    (void)threads;
    if (error) {
        *error = 0;
    }
    return NULL;
}
void orca_pool_destroy(orca_pool *pool) { (void)pool; }
int orca_pool_spins(const orca_pool *pool)
{
    (void)pool;
    return 0;
}
void orca_pool_run(orca_pool *pool, orca_task_fn *fn, int count, void *ctx)
{
    (void)pool;
    if (count > 0) {
        fn(0, count, 0, ctx);
    }
}
#endif
