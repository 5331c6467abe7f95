/* The compiled simulation kernel: sim/kernel.py's play_matches in C (GDD 06 §3.3, §3.4, §5).
 *
 * It plays the reference match loop (match.play_match without events or scene hooks) and draws
 * exactly the cards the oracle engine.Engine draws for the same seed. That needs the oracle's RNG
 * stream bit for bit, so this file carries its own copy of CPython's MT19937 (_randommodule.c):
 * random.seed(int) is init_by_array over the seed's 32-bit words (least significant first, one
 * zero word for 0), getrandbits(k) takes the top k bits of one word for k <= 32 and fills words
 * least significant first for k > 32; Rng.below(n) draws getrandbits(n.bit_length()) until the
 * value is below n. Generators are seeded 64 at a time, side by side (mt_seed_all: the same
 * words as one init_by_array each). The rules then follow sim/kernel.py, on the bitsets of
 * masks.FastDeck (arrays of 64-bit words, bit c = card position c, deck order = bit order); the
 * eligible set is kept up to date as the match goes, and on decks wider than two words (128
 * cards) its sizes too (in all, per mode), where the Python kernel rebuilds them with a few
 * big-int operations, so large decks cost less here; on smaller decks a few popcounts are cheaper
 * than that bookkeeping.
 *
 * tests/test_kernel_differential.py runs the same differential tests against this kernel and the Python one.
 * Only the standard C API and C99 are used, so it builds with gcc, clang and MSVC; when it does
 * not build, sorteio uses the pure-Python kernel (setup.py marks the extension optional).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(_MSC_VER) && !defined(restrict)
#define restrict __restrict /* C99's restrict, as MSVC spells it */
#endif

#ifndef KERNEL_SOURCE_ID
#define KERNEL_SOURCE_ID 0 /* setup.py passes 48 bits of this file's SHA-256 */
#endif

/* -- bit helpers ------------------------------------------------------------------------------ */

#if defined(__GNUC__) || defined(__clang__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define popcount64(x) __builtin_popcountll(x)
#define ctz64(x) __builtin_ctzll(x)
/* n >= 1 */
#define bit_length(n) (64 - __builtin_clzll(n))
#else
#define ALWAYS_INLINE inline
#define LIKELY(x) (x)
static int popcount64(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}
#if defined(_MSC_VER)
#include <intrin.h>
static int ctz64(uint64_t x) {
    unsigned long i;
    if ((uint32_t)x) {
        _BitScanForward(&i, (unsigned long)(uint32_t)x);
        return (int)i;
    }
    _BitScanForward(&i, (unsigned long)(uint32_t)(x >> 32));
    return (int)i + 32;
}
#endif
static int bit_length(uint64_t n) {
    int k = 0;
    while (n) {
        k++;
        n >>= 1;
    }
    return k;
}
#endif

/* -- MT19937, as CPython's Modules/_randommodule.c --------------------------------------------- */

#define MT_N 624
#define MT_M 397
#define MATRIX_A 0x9908b0dfU
#define UPPER_MASK 0x80000000U
#define LOWER_MASK 0x7fffffffU

/* Generators are seeded MT_LANES at a time and their states interleaved: word i of lane l is
 * buf[i * MT_LANES + l]. Seeding (init_by_array) is one long chain of ~1,250 dependent
 * multiplications per generator, the floor of a match when done one generator at a time; across
 * lanes the same step is one SIMD instruction, so the compiler vectorises it (16 lanes per
 * AVX-512 instruction). 64 lanes rather than 32: four independent chains per AVX-512 step
 * instead of two, so the multiplier's latency is hidden (seeding ~2x cheaper per match, ~3% of
 * a padrao match; 128 lanes gained nothing more). A match then reads its own lane with a
 * stride. */
#define MT_LANES 64
#define MTW(mt, i) ((mt)[(size_t)(i) * MT_LANES])

#define MT_READY 128 /* < MT_N - MT_M: these words read only words not yet regenerated */

typedef struct {
    uint32_t *mt;    /* word 0 of this generator's lane: word i at MTW(mt, i) */
    const uint32_t *cur, *stop; /* the first outputs still to read, tempered by mt_seed_all and
                                   read in place in its lane (stride MT_LANES): no copy */
    int index;       /* next word of mt to read, as CPython's, once those are read; MT_N:
                        regenerate first */
    int twisted;     /* words 0..twisted-1 of this generation are regenerated */
} Mt;

static uint32_t mt_start[MT_N]; /* init_genrand(19650218): where every init_by_array starts */

static void mt_init_start(void) {
    uint32_t *mt = mt_start;
    mt[0] = 19650218U;
    for (int i = 1; i < MT_N; i++)
        mt[i] = 1812433253U * (mt[i - 1] ^ (mt[i - 1] >> 30)) + (uint32_t)i;
}

/* init_by_array(key, len) as CPython's random_seed calls it, one generator (any key length). */
static void mt_seed(Mt *g, const uint32_t *key, size_t len) {
    uint32_t *mt = g->mt, p;
    size_t i = 1, j = 0, k = MT_N > len ? MT_N : len;
    for (int w = 0; w < MT_N; w++) MTW(mt, w) = mt_start[w];
    p = MTW(mt, 0);
    for (; k; k--) {
        p = MTW(mt, i) = (MTW(mt, i) ^ ((p ^ (p >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= MT_N) {
            MTW(mt, 0) = p;
            i = 1;
        }
        if (j >= len) j = 0;
    }
    for (k = MT_N - 1; k; k--) {
        p = MTW(mt, i) = (MTW(mt, i) ^ ((p ^ (p >> 30)) * 1566083941U)) - (uint32_t)i;
        i++;
        if (i >= MT_N) {
            MTW(mt, 0) = p;
            i = 1;
        }
    }
    MTW(mt, 0) = 0x80000000U;
    g->index = g->twisted = MT_N;
    g->cur = g->stop = NULL; /* nothing tempered ahead */
}

/* gcc builds the vectorised loops for AVX-512 and AVX2 beside the baseline and picks one at load
 * time (the same results on each: 32-bit integer arithmetic only). Clones need the loader's
 * ifunc support (glibc: manylinux; not musl); elsewhere the portable loops are built alone. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__GLIBC__) && \
    !defined(SORTEIO_NO_CLONES) /* -DSORTEIO_NO_CLONES: the portable build (tests) */
#define SIMD_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#if __GNUC__ >= 11 /* the match loop with popcnt, tzcnt and lzcnt (x86-64-v3: 2013 CPUs on) */
#define HOT_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define HOT_CLONES __attribute__((target_clones("popcnt", "default")))
#endif
#else
#define SIMD_CLONES
#define HOT_CLONES
#endif

/* BMI2's pdep picks the k-th set bit in one instruction where it is fast: Intel from Haswell,
 * AMD from Zen 3 (Zen 1-2 run it in microcode, ~250 cycles; pdep_is_fast checks). The portable
 * select stays built beside it, for other CPUs and for the tests (set_portable). */
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && !defined(SORTEIO_NO_PDEP)
#define HAVE_PDEP 1
#include <cpuid.h>
#include <immintrin.h>
#define PDEP_TARGET __attribute__((target("popcnt,lzcnt,bmi,bmi2")))
#else
#define HAVE_PDEP 0
#endif

/* All MT_LANES lanes of `buf` seeded at once, lane l with the key (k0[l]) when len[l] == 1 or
 * (k0[l], k1[l]) when len[l] == 2, exactly as mt_seed; then the first MT_READY words of the first
 * generation regenerated (mt_twist's loop, all lanes side by side) and their outputs tempered
 * into `out` (mt_next's tempering): a match reads ~100 words from its engine's generator and ~60
 * from its player's. init_by_array's first loop reads init_genrand's words (the same for every
 * lane) for its first 623 steps; key word j of step s is s mod len, added with j. */
#define MT_BLOCK 64
SIMD_CLONES
static void mt_seed_all(uint32_t *restrict buf, uint32_t *restrict out,
                        const uint32_t *restrict k0, const uint32_t *restrict k1,
                        const int *restrict len) {
    uint32_t p[MT_LANES], even[MT_LANES], odd[MT_LANES];
    for (int l = 0; l < MT_LANES; l++) {
        p[l] = 19650218U;
        even[l] = k0[l];
        odd[l] = len[l] == 2 ? k1[l] + 1U : k0[l];
    }
    for (int i = 1; i < MT_N; i += 2) { /* steps 0..622 (even, odd): words 1..623 */
        const uint32_t start = mt_start[i];
        uint32_t *row = buf + (size_t)i * MT_LANES, *row2 = row + MT_LANES;
        for (int l = 0; l < MT_LANES; l++)
            p[l] = row[l] = (start ^ ((p[l] ^ (p[l] >> 30)) * 1664525U)) + even[l];
        if (i + 1 == MT_N) break;
        const uint32_t start2 = mt_start[i + 1];
        for (int l = 0; l < MT_LANES; l++)
            p[l] = row2[l] = (start2 ^ ((p[l] ^ (p[l] >> 30)) * 1664525U)) + odd[l];
    }
    { /* step 623 (odd): word 1 again, after mt[0] = mt[623] */
        uint32_t *row = buf + MT_LANES;
        for (int l = 0; l < MT_LANES; l++)
            p[l] = row[l] = (row[l] ^ ((p[l] ^ (p[l] >> 30)) * 1664525U)) + odd[l];
    }
    for (int i = 2; i <= MT_N; i++) { /* the second loop: words 2..623, then word 1 */
        const int w = i < MT_N ? i : 1;
        uint32_t *row = buf + (size_t)w * MT_LANES;
        for (int l = 0; l < MT_LANES; l++)
            p[l] = row[l] = (row[l] ^ ((p[l] ^ (p[l] >> 30)) * 1566083941U)) - (uint32_t)w;
    }
    for (int l = 0; l < MT_LANES; l++) buf[l] = 0x80000000U;
    for (int kk = 0; kk < MT_READY; kk++) { /* kk + 1 and kk + MT_M not yet regenerated */
        uint32_t *row = buf + (size_t)kk * MT_LANES, *tempered = out + (size_t)kk * MT_LANES;
        const uint32_t *next = row + MT_LANES, *far = buf + (size_t)(kk + MT_M) * MT_LANES;
        for (int l = 0; l < MT_LANES; l++) {
            uint32_t y = (row[l] & UPPER_MASK) | (next[l] & LOWER_MASK);
            y = row[l] = far[l] ^ (y >> 1) ^ ((0U - (y & 1U)) & MATRIX_A);
            y ^= (y >> 11);
            y ^= (y << 7) & 0x9d2c5680U;
            y ^= (y << 15) & 0xefc60000U;
            tempered[l] = y ^ (y >> 18);
        }
    }
}

/* The generator of lane `lane` of a buffer seeded by mt_seed_all; `out` (its tempered words)
 * must outlive the generator's first MT_READY reads. */
static void mt_lane(Mt *g, uint32_t *buf, const uint32_t *out, int lane) {
    g->mt = buf + lane;
    g->cur = out + lane;
    g->stop = g->cur + (size_t)MT_READY * MT_LANES;
    g->index = g->twisted = MT_READY;
}

/* CPython regenerates all 624 words at once when they run out; a match reads ~100, so words are
 * regenerated MT_BLOCK at a time, in the same order: word kk reads words kk+1 and kk+397 before
 * they are regenerated and word kk-227 after, exactly as the all-at-once loop does. */
static void mt_twist(Mt *g) {
    uint32_t y, *mt = g->mt;
    int kk = g->twisted, end = kk + MT_BLOCK < MT_N ? kk + MT_BLOCK : MT_N;
    for (; kk < end && kk < MT_N - MT_M; kk++) {
        y = (MTW(mt, kk) & UPPER_MASK) | (MTW(mt, kk + 1) & LOWER_MASK);
        MTW(mt, kk) = MTW(mt, kk + MT_M) ^ (y >> 1) ^ ((0U - (y & 1U)) & MATRIX_A);
    }
    for (; kk < end && kk < MT_N - 1; kk++) {
        y = (MTW(mt, kk) & UPPER_MASK) | (MTW(mt, kk + 1) & LOWER_MASK);
        MTW(mt, kk) = MTW(mt, kk + (MT_M - MT_N)) ^ (y >> 1) ^ ((0U - (y & 1U)) & MATRIX_A);
    }
    if (kk == MT_N - 1 && end == MT_N) {
        y = (MTW(mt, MT_N - 1) & UPPER_MASK) | (MTW(mt, 0) & LOWER_MASK);
        MTW(mt, MT_N - 1) = MTW(mt, MT_M - 1) ^ (y >> 1) ^ ((0U - (y & 1U)) & MATRIX_A);
        kk = MT_N;
    }
    g->twisted = kk;
}

/* Past the tempered words: the words regenerated MT_BLOCK at a time, tempered one by one. */
static uint32_t mt_next_slow(Mt *g) {
    uint32_t y;
    if (g->index >= g->twisted) {
        if (g->index >= MT_N) g->index = g->twisted = 0; /* a new generation */
        mt_twist(g);
    }
    y = MTW(g->mt, g->index);
    g->index++;
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

static ALWAYS_INLINE uint32_t mt_next(Mt *g) {
    if (LIKELY(g->cur != g->stop)) {
        const uint32_t y = *g->cur;
        g->cur += MT_LANES;
        return y;
    }
    return mt_next_slow(g);
}

/* random.getrandbits(k), 1 <= k <= 64. */
static ALWAYS_INLINE uint64_t mt_bits(Mt *g, int k) {
    if (k <= 32) return (uint64_t)(mt_next(g) >> (32 - k));
    uint64_t lo = mt_next(g);
    uint64_t hi = mt_next(g) >> (64 - k);
    return lo | (hi << 32);
}

/* Rng.below(n), n >= 1: rejection sampling on getrandbits(n.bit_length()). */
static ALWAYS_INLINE uint64_t mt_below(Mt *g, uint64_t n) {
    if (n <= 1) return 0;
    int k = bit_length(n);
    uint64_t r = mt_bits(g, k);
    while (r >= n) r = mt_bits(g, k);
    return r;
}
/* random.seed(int) takes abs(seed) as 32-bit words, least significant first, one for 0. */
static Py_ssize_t u64_words(uint64_t u, uint32_t *buf) {
    buf[0] = (uint32_t)u;
    if (u >> 32) {
        buf[1] = (uint32_t)(u >> 32);
        return 2;
    }
    return 1;
}

/* The words of any Python int seed. Returns the word count, 0 with an exception set on error;
 * *buf is replaced when too small. */
static Py_ssize_t seed_words(PyObject *seed, uint32_t **buf, Py_ssize_t *cap) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(seed, &overflow);
    if (v == -1 && PyErr_Occurred()) return 0;
    if (!overflow && v > LLONG_MIN) return u64_words((uint64_t)(v < 0 ? -v : v), *buf);
    /* A big seed: peel 32-bit words off with Python arithmetic (rare, so simple). */
    PyObject *n = PyNumber_Absolute(seed);
    if (n == NULL) return 0;
    PyObject *mask = PyLong_FromUnsignedLong(0xffffffffUL), *shift = PyLong_FromLong(32);
    Py_ssize_t len = 0;
    if (mask == NULL || shift == NULL) goto fail;
    while (PyObject_IsTrue(n)) {
        if (len >= *cap) {
            Py_ssize_t bigger = *cap * 2;
            uint32_t *grown = (uint32_t *)realloc(*buf, (size_t)bigger * sizeof(uint32_t));
            if (grown == NULL) {
                PyErr_NoMemory();
                goto fail;
            }
            *buf = grown;
            *cap = bigger;
        }
        PyObject *word = PyNumber_And(n, mask);
        if (word == NULL) goto fail;
        (*buf)[len++] = (uint32_t)PyLong_AsUnsignedLong(word);
        Py_DECREF(word);
        PyObject *rest = PyNumber_Rshift(n, shift);
        if (rest == NULL) goto fail;
        Py_DECREF(n);
        n = rest;
    }
    Py_DECREF(n);
    Py_DECREF(mask);
    Py_DECREF(shift);
    return len ? len : u64_words(0, *buf);
fail:
    Py_XDECREF(n);
    Py_XDECREF(mask);
    Py_XDECREF(shift);
    return 0;
}

/* The engine's and the player's keys of one match seed (player: seed ^ 0x5EED, as
 * match.make_policy). Returns 0 on success, -1 with an exception set. */
static int match_keys(PyObject *seed, int with_player, uint32_t **key, Py_ssize_t *cap,
                      Py_ssize_t *len, uint32_t **key2, Py_ssize_t *cap2, Py_ssize_t *len2) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(seed, &overflow);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (!overflow && v > LLONG_MIN) {
        long long p = v ^ 0x5EED; /* two's complement, like Python's ^ on ints */
        *len = u64_words((uint64_t)(v < 0 ? -v : v), *key);
        if (with_player) *len2 = u64_words((uint64_t)(p < 0 ? -p : p), *key2);
        return 0;
    }
    if ((*len = seed_words(seed, key, cap)) == 0) return -1;
    if (!with_player) return 0;
    PyObject *salt = PyLong_FromLong(0x5EED);
    PyObject *p = salt != NULL ? PyNumber_Xor(seed, salt) : NULL;
    Py_XDECREF(salt);
    *len2 = p != NULL ? seed_words(p, key2, cap2) : 0;
    Py_XDECREF(p);
    return *len2 ? 0 : -1;
}

/* -- the deck (a capsule built by compile_deck from a FastDeck) -------------------------------- */

typedef struct {
    int n_cards, n_meters, n_actors, n_modes, n_levels, words, meter_words;
    int n_slots, cap, meter_limit, em_limit, mode_limit, furious, max_options;
    uint64_t *base;        /* [5][words]: playable with ano_minimo <= year (index 0 unused) */
    uint64_t *non_actor;   /* [words] */
    uint64_t *actor_level; /* [n_actors][n_levels][words] */
    uint64_t *linked;      /* [n_meters][words] */
    uint64_t *attack;      /* [n_actors][words] */
    uint64_t *mode_mask;   /* [n_modes][words] */
    uint64_t *links;       /* [n_cards][meter_words]: meters a card is linked to (§3.2) */
    int *mode_of, *actor_of, *is_attack, *n_options, *option_start; /* per card */
    int *meff_start, *aeff_start; /* per option (global index), n+1 entries each */
    int *meff, *aeff;             /* (target, delta) pairs */
    int level_of[101];
    int *actor_rank, *init_meters, *init_sat;
    /* Sparse views built by compile_deck (cost linear in the cards, not in cards x groups):
     * lvl_cards[lvl_start[g]..lvl_start[g + 1]]: the cards of actor_level group g; band_*: the
     * cards whose ano_minimo is year y (base[y] & ~base[y - 1]), counted per mode when they are
     * not actor cards (always allowed, §3.1.4), listed when they are. */
    int *lvl_start, *lvl_cards, *band_mode, *band_actor;
    int band_n[5], band_actor_start[6];
} CDeck;

#define ROW(arr, i, w) ((arr) + (size_t)(i) * (size_t)(w))

static void cdeck_free(CDeck *d) {
    if (d == NULL) return;
    void *ptrs[] = {d->base,      d->non_actor,  d->actor_level, d->linked,      d->attack,
                    d->mode_mask, d->links,      d->mode_of,     d->actor_of,    d->is_attack,
                    d->n_options, d->option_start, d->meff_start, d->aeff_start, d->meff,
                    d->aeff,      d->actor_rank, d->init_meters, d->init_sat, d->lvl_start,
                    d->lvl_cards, d->band_mode,  d->band_actor};
    for (size_t i = 0; i < sizeof(ptrs) / sizeof(ptrs[0]); i++) free(ptrs[i]);
    free(d);
}

static void capsule_free(PyObject *capsule) {
    cdeck_free((CDeck *)PyCapsule_GetPointer(capsule, "sorteio.CDeck"));
}

/* A Python sequence of ints -> a new C array of exactly n ints (n = -1: any length, *out_n). */
static int *int_array(PyObject *seq, Py_ssize_t n, Py_ssize_t *out_n, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (fast == NULL) return NULL;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
    if (n >= 0 && len != n) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd items, got %zd", what, n, len);
        Py_DECREF(fast);
        return NULL;
    }
    int *out = (int *)malloc((size_t)(len > 0 ? len : 1) * sizeof(int));
    if (out == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) {
            free(out);
            Py_DECREF(fast);
            return NULL;
        }
        out[i] = (int)v;
    }
    if (out_n != NULL) *out_n = len;
    Py_DECREF(fast);
    return out;
}

/* A sequence of `rows` bytes objects of 8 * `words` bytes (int.to_bytes(..., "little")) -> one
 * flat array of 64-bit words: one Python object per bit set, whatever the deck's size. */
static uint64_t *word_rows(PyObject *seq, Py_ssize_t rows, int words, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (fast == NULL) return NULL;
    if (PySequence_Fast_GET_SIZE(fast) != rows) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd rows", what, rows);
        Py_DECREF(fast);
        return NULL;
    }
    uint64_t *out = (uint64_t *)calloc((size_t)(rows > 0 ? rows : 1) * (size_t)words, 8);
    if (out == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t r = 0; r < rows; r++) {
        char *bytes = NULL;
        Py_ssize_t len = 0;
        if (PyBytes_AsStringAndSize(PySequence_Fast_GET_ITEM(fast, r), &bytes, &len) < 0)
            goto fail;
        if (len != 8 * (Py_ssize_t)words) {
            PyErr_Format(PyExc_ValueError, "%s: row %zd must have %d bytes", what, r, 8 * words);
            goto fail;
        }
        for (int w = 0; w < words; w++) { /* little-endian bytes, on any host */
            uint64_t v = 0;
            for (int b = 7; b >= 0; b--) v = (v << 8) | (unsigned char)bytes[8 * w + b];
            out[(size_t)r * (size_t)words + (size_t)w] = v;
        }
    }
    Py_DECREF(fast);
    return out;
fail:
    free(out);
    Py_DECREF(fast);
    return NULL;
}

/* The set bits of row `x` appended to out[*n...] (callers size `out`). */
static void list_bits(const uint64_t *x, int words, int *out, int *n) {
    for (int w = 0; w < words; w++)
        for (uint64_t v = x[w]; v; v &= v - 1) out[(*n)++] = w * 64 + ctz64(v);
}

/* lvl_* and band_* of CDeck from its bit-set rows. Returns 0, or -1 with MemoryError set. */
static int sparse_views(CDeck *d) {
    const int W = d->words, groups = d->n_actors * d->n_levels, NMD = d->n_modes;
    long long total = 0;
    for (int g = 0; g < groups; g++)
        for (int w = 0; w < W; w++) total += popcount64(ROW(d->actor_level, g, W)[w]);
    d->lvl_start = (int *)malloc(sizeof(int) * (size_t)(groups + 1));
    d->lvl_cards = (int *)malloc(sizeof(int) * (size_t)(total > 0 ? total : 1));
    d->band_mode = (int *)calloc((size_t)5 * (size_t)(NMD > 0 ? NMD : 1), sizeof(int));
    d->band_actor = (int *)malloc(sizeof(int) * (size_t)(d->n_cards > 0 ? d->n_cards : 1));
    if (!d->lvl_start || !d->lvl_cards || !d->band_mode || !d->band_actor) {
        PyErr_NoMemory();
        return -1;
    }
    int n = 0;
    for (int g = 0; g < groups; g++) {
        d->lvl_start[g] = n;
        list_bits(ROW(d->actor_level, g, W), W, d->lvl_cards, &n);
    }
    d->lvl_start[groups] = n;
    n = 0;
    d->band_n[0] = 0;
    d->band_actor_start[0] = d->band_actor_start[1] = 0;
    for (int y = 1; y <= 4; y++) {
        const uint64_t *now = ROW(d->base, y, W), *before = ROW(d->base, y - 1, W);
        d->band_n[y] = 0;
        for (int w = 0; w < W; w++)
            for (uint64_t v = now[w] & ~before[w]; v; v &= v - 1) {
                int c = w * 64 + ctz64(v);
                if (d->actor_of[c] >= 0) {
                    d->band_actor[n++] = c;
                } else {
                    d->band_n[y]++;
                    d->band_mode[y * NMD + d->mode_of[c]]++;
                }
            }
        d->band_actor_start[y + 1] = n;
    }
    return 0;
}

static PyObject *compile_deck(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *sizes, *params, *base, *non_actor, *actor_level, *linked, *attack, *mode_mask,
        *links, *mode_of, *actor_of, *is_attack, *option_start, *meff_start, *meff, *aeff_start,
        *aeff, *level_of, *actor_rank, *init_meters, *init_sat;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOOOOOOOOO", &sizes, &params, &base, &non_actor,
                          &actor_level, &linked, &attack, &mode_mask, &links, &mode_of,
                          &actor_of, &is_attack, &option_start, &meff_start, &meff, &aeff_start,
                          &aeff, &level_of, &actor_rank, &init_meters, &init_sat))
        return NULL;
    CDeck *d = (CDeck *)calloc(1, sizeof(CDeck));
    if (d == NULL) return PyErr_NoMemory();
    int *v = NULL;
    Py_ssize_t n_opts = 0;
    if (!(v = int_array(sizes, 6, NULL, "sizes"))) goto fail;
    d->n_cards = v[0], d->n_meters = v[1], d->n_actors = v[2], d->n_modes = v[3];
    d->n_levels = v[4], d->furious = v[5];
    free(v);
    if (!(v = int_array(params, 5, NULL, "params"))) goto fail;
    d->n_slots = v[0], d->cap = v[1], d->meter_limit = v[2], d->em_limit = v[3];
    d->mode_limit = v[4];
    free(v);
    v = NULL;
    d->words = d->n_cards / 64 + 1;
    d->meter_words = d->n_meters / 64 + 1;
    int W = d->words;
    if (!(d->base = word_rows(base, 5, W, "base"))) goto fail;
    if (!(d->non_actor = word_rows(non_actor, 1, W, "non_actor"))) goto fail;
    if (!(d->actor_level = word_rows(actor_level, (Py_ssize_t)d->n_actors * d->n_levels, W,
                                     "actor_level")))
        goto fail;
    if (!(d->linked = word_rows(linked, d->n_meters, W, "linked"))) goto fail;
    if (!(d->attack = word_rows(attack, d->n_actors, W, "attack"))) goto fail;
    if (!(d->mode_mask = word_rows(mode_mask, d->n_modes, W, "mode_mask"))) goto fail;
    if (!(d->links = word_rows(links, d->n_cards, d->meter_words, "links"))) goto fail;
    if (!(d->mode_of = int_array(mode_of, d->n_cards, NULL, "mode_of"))) goto fail;
    if (!(d->actor_of = int_array(actor_of, d->n_cards, NULL, "actor_of"))) goto fail;
    if (!(d->is_attack = int_array(is_attack, d->n_cards, NULL, "is_attack"))) goto fail;
    if (!(d->option_start = int_array(option_start, d->n_cards + 1, NULL, "option_start")))
        goto fail;
    n_opts = d->option_start[d->n_cards];
    if (!(d->meff_start = int_array(meff_start, n_opts + 1, NULL, "meff_start"))) goto fail;
    if (!(d->aeff_start = int_array(aeff_start, n_opts + 1, NULL, "aeff_start"))) goto fail;
    if (!(d->meff = int_array(meff, 2 * (Py_ssize_t)d->meff_start[n_opts], NULL, "meff")))
        goto fail;
    if (!(d->aeff = int_array(aeff, 2 * (Py_ssize_t)d->aeff_start[n_opts], NULL, "aeff")))
        goto fail;
    if (!(v = int_array(level_of, 101, NULL, "level_of"))) goto fail;
    memcpy(d->level_of, v, sizeof(d->level_of));
    free(v);
    v = NULL;
    if (!(d->actor_rank = int_array(actor_rank, d->n_actors, NULL, "actor_rank"))) goto fail;
    if (!(d->init_meters = int_array(init_meters, d->n_meters, NULL, "init_meters"))) goto fail;
    if (!(d->init_sat = int_array(init_sat, d->n_actors, NULL, "init_sat"))) goto fail;
    d->n_options = (int *)malloc((size_t)(d->n_cards + 1) * sizeof(int));
    if (d->n_options == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    d->max_options = 1;
    for (int c = 0; c < d->n_cards; c++) {
        d->n_options[c] = d->option_start[c + 1] - d->option_start[c];
        if (d->n_options[c] > d->max_options) d->max_options = d->n_options[c];
    }
    if (sparse_views(d) < 0) goto fail;
    PyObject *capsule = PyCapsule_New(d, "sorteio.CDeck", capsule_free);
    if (capsule == NULL) goto fail;
    return capsule;
fail:
    free(v);
    cdeck_free(d);
    return NULL;
}

/* The benchmark's breakdown (benchmarks/bench_kernels.py): play() seeds the generators and
 * stops (PROF_SEEDING), or plays without adding to the per-card and per-meter tallies
 * (PROF_NO_TALLY: the same matches). Never set outside the benchmark. */
enum { PROF_OFF = 0, PROF_SEEDING = 1, PROF_NO_TALLY = 2 };
static int prof_mode = PROF_OFF;

/* -- whole matches ----------------------------------------------------------------------------- */

enum { OB_EM = 0, OB_ACT = 1, OB_MET = 2 };
enum { POLICY_RANDOM = 0, POLICY_PROTECT = 1, POLICY_LOOKAHEAD = 2 }; /* sim/ckernel.py's codes */

typedef struct {
    int kind, target, card, merged; /* merged: first meter of its list in merged_next, or -1 */
} Ob;

/* Accumulators of one call, added into the Python Tally by sim/ckernel.py. */
typedef struct {
    long long matches, catastrophes, cards_played, turns, turns_closed, short_turns, mandatory;
    long long *card_draws, *card_mandatory, *end_sum, *end_sq, *zeroed, *end_year, *close_n;
    long long *close_sum, *close_sq; /* [5][n_meters] */
} Acc;

/* Scratch space of one call, sized by the deck. */
typedef struct {
    uint64_t *ok, *played, *eligible, *reserved, *excluded, *pool, *fresh, *init_ok;
    uint64_t *picked; /* cards reserved for an obligation (shown or not) in this match */
    int *meters, *sat, *carried, *last_closing, *emergencies, *in_em, *spent, *attacked;
    int *merged_next, *fur, *low, *mcount, *order, *after, *ranked;
    int *mode_elig;  /* eligible cards per mode (popcount of eligible & the mode's cards) */
    int *turn_modes, *mode_listed; /* modes counted in this turn (mcount > 0 at some point) */
    int *mode_out; /* listed and at the limit (mcount >= mode_limit): its eligible cards are out */
    int n_tm;                      /* length of turn_modes (kept across matches: cleared at turns) */
    Ob *obs;
} Work;

/* Position of the r-th (0-based) set bit of v; r < popcount(v). */
static ALWAYS_INLINE int select64(uint64_t v, int r) {
    int pos = 0, c = popcount64(v & 0xffffffffULL);
    if (r >= c) r -= c, v >>= 32, pos += 32;
    c = popcount64(v & 0xffffULL);
    if (r >= c) r -= c, v >>= 16, pos += 16;
    c = popcount64(v & 0xffULL);
    if (r >= c) r -= c, v >>= 8, pos += 8;
    while (r--) v &= v - 1;
    return pos + ctz64(v);
}

/* The same with BMI2's pdep: deposit bit r into v's set bits. A call, not inlined, from code
 * built without BMI2; the PDEP copies of play_one (built for x86-64-v3) inline it. */
#if HAVE_PDEP
__attribute__((target("bmi2"))) static inline int select64_pdep(uint64_t v, int r) {
    return (int)__builtin_ctzll(_pdep_u64(1ULL << r, v));
}
#define SELECT(v, r, pdep) ((pdep) ? select64_pdep((v), (r)) : select64((v), (r)))
#else
#define SELECT(v, r, pdep) ((void)(pdep), select64((v), (r)))
#endif

static ALWAYS_INLINE int kth_set_bit(const uint64_t *x, int words, uint64_t r, const int pdep) {
    for (int w = 0; w < words; w++) {
        uint64_t v = x[w];
        int c = popcount64(v);
        if (r >= (uint64_t)c) {
            r -= (uint64_t)c;
            continue;
        }
        return w * 64 + SELECT(v, (int)r, pdep);
    }
    return -1; /* unreachable when r < popcount(x) */
}

static ALWAYS_INLINE long long count_bits(const uint64_t *x, int words) {
    long long n = 0;
    for (int w = 0; w < words; w++) n += popcount64(x[w]);
    return n;
}

static ALWAYS_INLINE int any_bit(const uint64_t *x, int words) {
    for (int w = 0; w < words; w++)
        if (x[w]) return 1;
    return 0;
}

#define HAS(x, c) (((x)[(c) >> 6] >> ((c)&63)) & 1U)

/* candidates[rng.below(len(candidates))] in deck order (engine._pick). */
static ALWAYS_INLINE int pick(Mt *g, const uint64_t *cand, int words, const int pdep) {
    long long n = count_bits(cand, words);
    return kth_set_bit(cand, words, mt_below(g, (uint64_t)n), pdep);
}

/* -- the keyed draw (sorteio/keyed.py, bit for bit): the per-card study's pairs ------------------
 * Each pick reads its own splitmix64 stream, keyed by (match, year, kind, target); proposal j is
 * deck position mulhi(mix64(key + j * GOLDEN), n_cards), and the pick is the first proposal in
 * the pool (uniform over the pool). Sides and the coin-flip player's choice: per (match, card). */
enum { KEY_EM = 0, KEY_ACT = 1, KEY_MET = 2, KEY_SLOT = 3, KEY_SIDES = 4, KEY_PLAYER = 5 };
#define GOLDEN 0x9E3779B97F4A7C15ULL

static ALWAYS_INLINE uint64_t mix64(uint64_t x) {
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

static ALWAYS_INLINE uint64_t family_key(uint64_t mk, int year, int kind, int target) {
    return mix64(mk ^ (((((uint64_t)year * 8 + (uint64_t)kind) << 16) | (uint64_t)target) * GOLDEN));
}

/* (u * n) >> 64 for n < 2**32, without a 128-bit type (MSVC has none). */
static ALWAYS_INLINE uint64_t mulhi_small(uint64_t u, uint64_t n) {
    return ((u >> 32) * n + (((u & 0xffffffffULL) * n) >> 32)) >> 32;
}

/* The i-th uniform integer below n of key's stream (keyed.below). */
static ALWAYS_INLINE int keyed_below(uint64_t key, int i, int n) {
    return (int)mulhi_small(mix64(key + (uint64_t)i * GOLDEN), (uint64_t)n);
}

/* keyed.first_in: the first proposal of key's stream in cand (non-empty). */
/* The first proposal of key's stream in cand (non-empty), four proposals at a time: a small pool
 * takes tens of proposals, each independent of the last, so the CPU works on four at once. */
static ALWAYS_INLINE int keyed_first(const uint64_t *cand, uint64_t key, int n_cards) {
    const uint64_t n = (uint64_t)n_cards;
    for (uint64_t j = key;; j += 4 * GOLDEN) {
        const int c1 = (int)mulhi_small(mix64(j + GOLDEN), n);
        const int c2 = (int)mulhi_small(mix64(j + 2 * GOLDEN), n);
        const int c3 = (int)mulhi_small(mix64(j + 3 * GOLDEN), n);
        const int c4 = (int)mulhi_small(mix64(j + 4 * GOLDEN), n);
        if (HAS(cand, c1)) return c1;
        if (HAS(cand, c2)) return c2;
        if (HAS(cand, c3)) return c3;
        if (HAS(cand, c4)) return c4;
    }
}

static ALWAYS_INLINE int keyed_pick(const uint64_t *cand, int words, uint64_t key, int n_cards) {
    if (count_bits(cand, words) == 1) return kth_set_bit(cand, words, 0, 0);
    return keyed_first(cand, key, n_cards);
}

/* Plays one match; `steps` (trace) gets (card, order, option, mandatory) tuples when not NULL.
 * Returns 0, or -1 with a Python exception set (only the trace can fail). */
/* min of `after` with option `o`'s effects applied (clamped); `ranked`: meters by ascending
 * value, so only the touched meters and the lowest untouched one are read. */
static int floor_after(const CDeck *d, const int *after, const int *ranked, int o) {
    const int lo = d->meff_start[o], hi = d->meff_start[o + 1];
    int v = 101;
    for (int r = 0; r < d->n_meters; r++) {
        int m = ranked[r], touched = 0;
        for (int e = lo; e < hi && !touched; e++) touched = d->meff[2 * e] == m;
        if (!touched) {
            v = after[m];
            break;
        }
    }
    for (int e = lo; e < hi; e++) {
        int w = after[d->meff[2 * e]] + d->meff[2 * e + 1];
        w = w < 0 ? 0 : (w > 100 ? 100 : w);
        if (w < v) v = w;
    }
    return v;
}

/* match.lookahead_policy: the highest (worst best reply over the cards that could come next,
 * floor after the option); ties: the option shown first. The eligible cards are read from
 * k->played/ok with this card already shown. */
static int lookahead_pick(const CDeck *d, Work *k, int card, int n_opt) {
    const int W = d->words, NM = d->n_meters, first = d->option_start[card];
    int option = k->order[0], best_score = -1, best_floor = -1, any = 0;
    for (int w = 0; w < W; w++) {
        k->pool[w] = k->eligible[w];
        any |= k->pool[w] != 0;
    }
    for (int i = 0; i < n_opt; i++) {
        int o = k->order[i], floor = 101;
        memcpy(k->after, k->meters, sizeof(int) * (size_t)NM);
        for (int e = d->meff_start[first + o]; e < d->meff_start[first + o + 1]; e++) {
            int m = d->meff[2 * e], v = k->after[m] + d->meff[2 * e + 1];
            k->after[m] = v < 0 ? 0 : (v > 100 ? 100 : v);
        }
        for (int m = 0; m < NM; m++)
            if (k->after[m] < floor) floor = k->after[m];
        int score = floor;
        if (floor > 0 && any) {
            for (int m = 0; m < NM; m++) { /* insertion sort by value; ties keep meter order */
                int r = m;
                while (r > 0 && k->after[k->ranked[r - 1]] > k->after[m]) {
                    k->ranked[r] = k->ranked[r - 1];
                    r--;
                }
                k->ranked[r] = m;
            }
            score = 101;
            for (int w = 0; w < W && score > 0; w++) {
                for (uint64_t x = k->pool[w]; x && score > 0; x &= x - 1) {
                    int c = w * 64 + ctz64(x), best_reply = -1;
                    for (int r = d->option_start[c]; r < d->option_start[c + 1]; r++) {
                        int f = floor_after(d, k->after, k->ranked, r);
                        if (f > best_reply) best_reply = f;
                        if (best_reply >= score) break; /* cannot lower the min any more */
                    }
                    if (best_reply < score) score = best_reply;
                }
            }
        }
        if (score > best_score || (score == best_score && floor > best_floor)) {
            option = o;
            best_score = score;
            best_floor = floor;
        }
    }
    return option;
}

/* mode_out[md] again after mcount[md] changed; *n_out_modes (the eligible cards of the modes
 * out) follows. */
static ALWAYS_INLINE void mode_recount(const CDeck *d, Work *k, int md, long long *n_out_modes) {
    const int now = k->mcount[md] >= d->mode_limit;
    if (now != k->mode_out[md]) {
        k->mode_out[md] = now;
        *n_out_modes += now ? k->mode_elig[md] : -k->mode_elig[md];
    }
}

/* mode_elig[md] += delta, and *n_out_modes with it when md is out. */
static ALWAYS_INLINE void mode_elig_add(Work *k, int md, int delta, long long *n_out_modes) {
    k->mode_elig[md] += delta;
    if (k->mode_out[md]) *n_out_modes += delta;
}

/* play_one's body, inlined into one copy per deck width (W = 1 or 2 words: decks up to 127
 * cards, the loops over words unrolled; any other width read from the deck) and per select
 * (PDEP: the k-th set bit with BMI2's pdep, else popcounts and a short loop). */
static ALWAYS_INLINE int play_one_body(const CDeck *d, Work *k, Acc *t, Mt *gen, Mt *player,
                                       int policy, PyObject *steps, int *out_year,
                                       int *out_zeroed, const int tally, const int keyed,
                                       const uint64_t mk, const int W, const int PDEP) {
    const int NM = d->n_meters, NA = d->n_actors;
    /* Decks of 1-2 words read a random slot's pool size off the bit sets (a few popcounts);
     * wider ones keep the eligible cards counted, in all and per mode, as the match goes. */
    const int COUNTED = W > 2;
    int year = 1, zeroed = -1, n_carried = 0, has_closing = 0;
    int furious = d->furious;
    memcpy(k->meters, d->init_meters, sizeof(int) * (size_t)(NM > 0 ? NM : 1));
    memcpy(k->sat, d->init_sat, sizeof(int) * (size_t)(NA > 0 ? NA : 1));
    memcpy(k->ok, k->init_ok, 8 * (size_t)W); /* the actors' starting levels (§3.1.4) */
    memset(k->played, 0, 8 * (size_t)W);
    memset(k->picked, 0, 8 * (size_t)W);
    /* eligible = base[year] & ok & ~played, kept up to date; when COUNTED with its count and
     * per-mode counts (a random slot then knows its pool's size without reading the deck's
     * width). */
    memset(k->eligible, 0, 8 * (size_t)W);
    memset(k->mode_elig, 0, sizeof(int) * (size_t)(d->n_modes > 0 ? d->n_modes : 1));
    long long n_elig = 0; /* (counted on decks wider than 2 words only: COUNTED) */
    /* When COUNTED: the eligible cards of the modes out (mode_out), kept up to date within a
     * turn, so a random slot's pool size needs no pass over the turn's modes. */
    long long n_out_modes = 0;
    memset(k->spent, 0, sizeof(int) * (size_t)(NM > 0 ? NM : 1));
    memset(k->attacked, 0, sizeof(int) * (size_t)(NA > 0 ? NA : 1));
    for (;;) { /* one turn per pass (§3.3 start, §3.4 slots, §5 closing) */
        t->turns++;
        const uint64_t *base = ROW(d->base, year, W), *before = ROW(d->base, year - 1, W);
        for (int w = 0; w < W; w++) { /* this year's new cards (never shown before) */
            k->eligible[w] |= base[w] & ~before[w] & k->ok[w];
            k->reserved[w] = 0;
        }
        if (COUNTED) { /* mode_out is reset below, with the turn's counts: not followed here */
            n_elig += d->band_n[year];
            int *restrict me = k->mode_elig;
            const int *restrict bm = d->band_mode + (size_t)year * (size_t)d->n_modes;
            for (int md = 0; md < d->n_modes; md++) me[md] += bm[md];
        }
        for (int i = d->band_actor_start[year]; COUNTED && i < d->band_actor_start[year + 1]; i++) {
            int c = d->band_actor[i];
            if (HAS(k->ok, c)) n_elig++, k->mode_elig[d->mode_of[c]]++;
        }
        int n_obs = 0;
        /* §3.3.1 emergencies: carried first (§5, Em > 7), then closings at or below the limit. */
        int n_em = 0;
        if (n_carried || has_closing) {
            for (int m = 0; m < NM; m++) k->in_em[m] = 0;
            for (int i = 0; i < n_carried; i++) {
                k->emergencies[n_em++] = k->carried[i];
                k->in_em[k->carried[i]] = 1;
            }
            if (has_closing)
                for (int m = 0; m < NM; m++)
                    if (k->last_closing[m] <= d->em_limit && !k->spent[m] && !k->in_em[m]) {
                        k->emergencies[n_em++] = m;
                        k->in_em[m] = 1;
                    }
        }
        for (int e = 0; e < n_em; e++) { /* they ignore the cap */
            int m = k->emergencies[e], merged = 0;
            for (int i = 0; i < n_obs; i++) {
                Ob *ob = &k->obs[i];
                if (ob->target == m ||
                    (ob->card >= 0 && HAS(ROW(d->links, ob->card, d->meter_words), m))) {
                    k->merged_next[m] = ob->merged; /* §5: the same card serves both */
                    ob->merged = m;
                    merged = 1;
                    break;
                }
            }
            if (merged) continue;
            const uint64_t *lk = ROW(d->linked, m, W);
            int c = -1;
            for (int w = 0; w < W; w++) k->pool[w] = lk[w] & k->eligible[w] & ~k->reserved[w];
            if (any_bit(k->pool, W)) {
                c = keyed ? keyed_pick(k->pool, W, family_key(mk, year, KEY_EM, m), d->n_cards)
                          : pick(gen, k->pool, W, PDEP);
                k->reserved[c >> 6] |= 1ULL << (c & 63);
                k->picked[c >> 6] |= 1ULL << (c & 63);
            }
            Ob *ob = &k->obs[n_obs++];
            ob->kind = OB_EM, ob->target = m, ob->card = c, ob->merged = -1;
        }
        int room = d->cap - n_obs;
        if (room > 0) {
            int n_fur = 0, n_low = 0;
            for (int a = 0; a < NA; a++)
                if (d->level_of[k->sat[a]] == furious && !k->attacked[a]) {
                    /* insertion by (satisfaction, rank of the id): menor satisfação primeiro */
                    int i = n_fur++;
                    while (i > 0) {
                        int b = k->fur[i - 1];
                        if (k->sat[b] < k->sat[a] ||
                            (k->sat[b] == k->sat[a] && d->actor_rank[b] < d->actor_rank[a]))
                            break;
                        k->fur[i] = b;
                        i--;
                    }
                    k->fur[i] = a;
                }
            for (int m = 0; m < NM; m++)
                if (k->meters[m] < d->meter_limit) { /* menor valor primeiro, then table order */
                    int i = n_low++;
                    while (i > 0 && k->meters[k->low[i - 1]] > k->meters[m]) {
                        k->low[i] = k->low[i - 1];
                        i--;
                    }
                    k->low[i] = m;
                }
            int added = 0;
            for (int i = 0; i < n_fur && added < room; i++) { /* §3.3.2 */
                int a = k->fur[i], c = -1, served = 0;
                const uint64_t *atk = ROW(d->attack, a, W);
                for (int w = 0; w < W; w++) served |= (atk[w] & k->reserved[w]) != 0;
                if (served) continue; /* §5: a reserved card is its attack card; counts once */
                for (int w = 0; w < W; w++)
                    k->pool[w] = atk[w] & k->eligible[w] & ~k->reserved[w];
                if (any_bit(k->pool, W)) {
                    c = keyed ? keyed_pick(k->pool, W, family_key(mk, year, KEY_ACT, a), d->n_cards)
                              : pick(gen, k->pool, W, PDEP);
                    k->reserved[c >> 6] |= 1ULL << (c & 63);
                    k->picked[c >> 6] |= 1ULL << (c & 63);
                }
                Ob *ob = &k->obs[n_obs++];
                ob->kind = OB_ACT, ob->target = a, ob->card = c, ob->merged = -1;
                added++;
            }
            for (int i = 0; i < n_low && added < room; i++) { /* §3.3.3 */
                int m = k->low[i], merged = 0;
                for (int j = 0; j < n_obs; j++) {
                    Ob *ob = &k->obs[j];
                    if ((ob->kind != OB_ACT && ob->target == m) ||
                        (ob->card >= 0 && HAS(ROW(d->links, ob->card, d->meter_words), m))) {
                        merged = 1; /* counts once */
                        break;
                    }
                }
                if (merged) continue;
                const uint64_t *lk = ROW(d->linked, m, W);
                int c = -1;
                for (int w = 0; w < W; w++)
                    k->pool[w] = lk[w] & k->eligible[w] & ~k->reserved[w];
                if (any_bit(k->pool, W)) {
                    c = keyed ? keyed_pick(k->pool, W, family_key(mk, year, KEY_MET, m), d->n_cards)
                              : pick(gen, k->pool, W, PDEP);
                    k->reserved[c >> 6] |= 1ULL << (c & 63);
                    k->picked[c >> 6] |= 1ULL << (c & 63);
                }
                Ob *ob = &k->obs[n_obs++];
                ob->kind = OB_MET, ob->target = m, ob->card = c, ob->merged = -1;
                added++;
            }
        }
        /* Modes in the turn (§3.4): reserved cards count; excluded = modes at the limit. */
        for (int i = 0; i < k->n_tm; i++) {
            const int md = k->turn_modes[i];
            k->mcount[md] = k->mode_listed[md] = k->mode_out[md] = 0;
        }
        k->n_tm = 0;
        n_out_modes = 0;
        memset(k->excluded, 0, 8 * (size_t)W);
        for (int i = 0; i < n_obs; i++) {
            int c = k->obs[i].card;
            if (c >= 0) {
                int md = d->mode_of[c];
                if (!k->mode_listed[md]) k->mode_listed[md] = 1, k->turn_modes[k->n_tm++] = md;
                if (++k->mcount[md] >= d->mode_limit) {
                    const uint64_t *mm = ROW(d->mode_mask, md, W);
                    for (int w = 0; w < W; w++) k->excluded[w] |= mm[w];
                }
                if (COUNTED) mode_recount(d, k, md, &n_out_modes);
            }
        }
        int pi = 0, slot = 0;
        while (slot < d->n_slots) {
            int card = -1;
            Ob *ob = NULL;
            if (pi < n_obs) {
                ob = &k->obs[pi++];
                int c = ob->card;
                if (c >= 0) {
                    k->reserved[c >> 6] &= ~(1ULL << (c & 63));
                    /* checked again at display (§5) */
                    if (HAS(k->eligible, c)) {
                        card = c;
                    } else {
                        int md = d->mode_of[c];
                        if (--k->mcount[md] < d->mode_limit) {
                            const uint64_t *mm = ROW(d->mode_mask, md, W);
                            for (int w = 0; w < W; w++) k->excluded[w] &= ~mm[w];
                        }
                        if (COUNTED) mode_recount(d, k, md, &n_out_modes);
                    }
                }
            }
            if (card < 0) { /* a random slot (§3.4), or one given up by an obligation (§5) */
                /* The pool's size from the counts: eligible cards, minus the reserved ones (the
                 * obligations still to come), minus the eligible cards of modes at the limit that
                 * are not reserved. Only the pass that finds the drawn card reads the bit sets. */
                long long n_pool = 0, n_fresh = 0;
                if (COUNTED) {
                    long long n_res = 0, n_out = n_out_modes;
                    for (int i = pi; i < n_obs; i++) {
                        int c = k->obs[i].card;
                        if (c >= 0 && HAS(k->eligible, c)) {
                            n_res++;
                            if (k->mcount[d->mode_of[c]] >= d->mode_limit) n_out--;
                        }
                    }
                    n_pool = n_elig - n_res;
                    n_fresh = n_pool - n_out;
                } else { /* 1-2 words: the same sizes as popcounts of the pool's words */
                    for (int w = 0; w < W; w++) {
                        const uint64_t v = k->eligible[w] & ~k->reserved[w];
                        n_pool += popcount64(v);
                        n_fresh += popcount64(v & ~k->excluded[w]);
                    }
                }
                if (!n_pool) {
                    if (ob != NULL) continue; /* later obligations may still be served */
                    break; /* §5: fewer eligible cards than slots; the turn ends short */
                }
                /* §3.4: without a card of a new mode, the rule is relaxed */
                const uint64_t keep_out = n_fresh ? ~0ULL : 0ULL;
                const long long n_draw = n_fresh ? n_fresh : n_pool;
                uint64_t r = 0;
                if (keyed && n_draw > 1) { /* keyed.first_in over the same pool */
                    for (int w = 0; w < W; w++)
                        k->pool[w] = k->eligible[w] & ~k->reserved[w] & ~(k->excluded[w] & keep_out);
                    card = keyed_first(k->pool, family_key(mk, year, KEY_SLOT, slot), d->n_cards);
                } else if (!keyed) {
                    r = mt_below(gen, (uint64_t)n_draw);
                }
                for (int w = 0; w < W && card < 0; w++) {
                    uint64_t v = k->eligible[w] & ~k->reserved[w] & ~(k->excluded[w] & keep_out);
                    int c = popcount64(v);
                    if (r >= (uint64_t)c) {
                        r -= (uint64_t)c;
                        continue;
                    }
                    card = w * 64 + SELECT(v, (int)r, PDEP);
                    break;
                }
                int md = d->mode_of[card];
                if (!k->mode_listed[md]) k->mode_listed[md] = 1, k->turn_modes[k->n_tm++] = md;
                if (++k->mcount[md] >= d->mode_limit) {
                    const uint64_t *mm = ROW(d->mode_mask, md, W);
                    for (int w = 0; w < W; w++) k->excluded[w] |= mm[w];
                }
                if (COUNTED) mode_recount(d, k, md, &n_out_modes);
                ob = NULL;
            } else {
                t->mandatory++;
                if (tally) t->card_mandatory[card]++;
                if (ob->kind == OB_EM) k->spent[ob->target] = 1;
                for (int m = ob->merged; m >= 0; m = k->merged_next[m]) k->spent[m] = 1;
            }
            /* Shown. */
            if (d->is_attack[card]) k->attacked[d->actor_of[card]] = 1;
            k->played[card >> 6] |= 1ULL << (card & 63);
            k->eligible[card >> 6] &= ~(1ULL << (card & 63)); /* kept equal to base & ok & ~played */
            if (COUNTED) {
                n_elig--;
                mode_elig_add(k, d->mode_of[card], -1, &n_out_modes);
            }
            slot++;
            if (tally) t->card_draws[card]++;
            /* Option sides (GDD 05 §3.4): Rng.permutation, Fisher-Yates from the top. */
            int n_opt = d->n_options[card];
            if (keyed) { /* keyed.sides */
                const uint64_t key = family_key(mk, 0, KEY_SIDES, card);
                for (int i = 0; i < n_opt; i++) k->order[i] = i;
                for (int i = n_opt - 1; i > 0; i--) {
                    int j = keyed_below(key, i, i + 1);
                    int tmp = k->order[i];
                    k->order[i] = k->order[j];
                    k->order[j] = tmp;
                }
            } else if (n_opt == 2) { /* most cards: one swap, below(2) */
                int j = (int)mt_below(gen, 2);
                k->order[0] = 1 - j;
                k->order[1] = j;
            } else {
                for (int i = 0; i < n_opt; i++) k->order[i] = i;
                for (int i = n_opt - 1; i > 0; i--) {
                    int j = (int)mt_below(gen, (uint64_t)i + 1);
                    int tmp = k->order[i];
                    k->order[i] = k->order[j];
                    k->order[j] = tmp;
                }
            }
            const int first = d->option_start[card];
            int option;
            if (policy == POLICY_LOOKAHEAD) {
                option = lookahead_pick(d, k, card, n_opt);
            } else if (policy == POLICY_PROTECT) { /* match.protect_weakest_policy */
                int best_floor = -1;
                option = k->order[0];
                for (int i = 0; i < n_opt; i++) {
                    int o = k->order[i], floor = 101;
                    memcpy(k->after, k->meters, sizeof(int) * (size_t)(NM > 0 ? NM : 1));
                    for (int e = d->meff_start[first + o]; e < d->meff_start[first + o + 1]; e++) {
                        int m = d->meff[2 * e], v = k->after[m] + d->meff[2 * e + 1];
                        k->after[m] = v < 0 ? 0 : (v > 100 ? 100 : v);
                    }
                    for (int m = 0; m < NM; m++)
                        if (k->after[m] < floor) floor = k->after[m];
                    if (floor > best_floor) {
                        option = o;
                        best_floor = floor;
                    }
                }
            } else if (keyed) { /* keyed.player_choice */
                option = k->order[keyed_below(family_key(mk, 0, KEY_PLAYER, card), 1, n_opt)];
            } else if (n_opt == 2) { /* match.random_policy: its own generator */
                option = k->order[mt_below(player, 2)]; /* most cards: a constant below(2) */
            } else {
                option = k->order[mt_below(player, (uint64_t)n_opt)];
            }
            if (steps != NULL) {
                PyObject *order = PyList_New(n_opt);
                if (order == NULL) return -1;
                for (int i = 0; i < n_opt; i++) PyList_SET_ITEM(order, i, PyLong_FromLong(k->order[i]));
                PyObject *step = Py_BuildValue("(iNiO)", card, order, option,
                                               ob != NULL ? Py_True : Py_False);
                if (step == NULL || PyList_Append(steps, step) < 0) {
                    Py_XDECREF(step);
                    return -1;
                }
                Py_DECREF(step);
            }
            /* Engine.choose: clamp to 0-100; a meter at 0 ends the match (§5). */
            const int o = first + option;
            int *const meters = k->meters, *const sat = k->sat;
            for (const int *e = d->meff + 2 * d->meff_start[o], *end = d->meff + 2 * d->meff_start[o + 1];
                 e < end; e += 2) {
                int m = e[0], v = meters[m] + e[1];
                if (v <= 0) {
                    meters[m] = 0;
                    if (zeroed < 0 || m < zeroed) zeroed = m;
                } else {
                    meters[m] = v > 100 ? 100 : v;
                }
            }
            for (const int *e = d->aeff + 2 * d->aeff_start[o], *end = d->aeff + 2 * d->aeff_start[o + 1];
                 e < end; e += 2) {
                int a = e[0], old = sat[a], v = old + e[1];
                v = v < 0 ? 0 : (v > 100 ? 100 : v);
                sat[a] = v;
                int lv = d->level_of[v], was = d->level_of[old];
                if (lv != was) { /* the actor's cards of the old level out, the new level's in */
                    const int off = a * d->n_levels + was, on = a * d->n_levels + lv;
                    const uint64_t *off_m = ROW(d->actor_level, off, W);
                    const uint64_t *on_m = ROW(d->actor_level, on, W);
                    /* Wide decks: the two groups' card lists (their size, not the deck's). */
                    for (int i = d->lvl_start[off]; W > 2 && i < d->lvl_start[off + 1]; i++) {
                        const int c = d->lvl_cards[i];
                        const uint64_t bit = 1ULL << (c & 63);
                        k->ok[c >> 6] &= ~bit;
                        if (k->eligible[c >> 6] & bit) {
                            k->eligible[c >> 6] &= ~bit;
                            n_elig--;
                            mode_elig_add(k, d->mode_of[c], -1, &n_out_modes);
                        }
                    }
                    for (int i = d->lvl_start[on]; W > 2 && i < d->lvl_start[on + 1]; i++) {
                        const int c = d->lvl_cards[i];
                        const uint64_t bit = 1ULL << (c & 63);
                        k->ok[c >> 6] |= bit;
                        if (base[c >> 6] & ~k->played[c >> 6] & ~k->eligible[c >> 6] & bit) {
                            k->eligible[c >> 6] |= bit;
                            n_elig++;
                            mode_elig_add(k, d->mode_of[c], 1, &n_out_modes);
                        }
                    }
                    /* Decks of 1-2 words: both groups' bit sets at once. */
                    for (int w = 0; W <= 2 && w < W; w++) {
                        const uint64_t kept = k->eligible[w] & ~off_m[w];
                        const uint64_t come = base[w] & ~k->played[w] & ~kept & on_m[w];
                        k->ok[w] = (k->ok[w] & ~off_m[w]) | on_m[w];
                        k->eligible[w] = kept | come;
                    }
                }
            }
            if (zeroed >= 0) break;
        }
        if (zeroed >= 0) break;
        /* Closing (§5). */
        t->turns_closed++;
        if (slot < d->n_slots) t->short_turns++;
        n_carried = 0; /* emergencies that did not fit in the N slots open the next turn */
        for (int i = pi; i < n_obs; i++)
            if (k->obs[i].kind == OB_EM) k->carried[n_carried++] = k->obs[i].target;
        memcpy(k->last_closing, k->meters, sizeof(int) * (size_t)(NM > 0 ? NM : 1));
        has_closing = 1;
        t->close_n[year]++;
        for (int m = 0; m < NM && tally; m++) {
            long long v = k->meters[m];
            t->close_sum[year * NM + m] += v;
            t->close_sq[year * NM + m] += v * v;
        }
        if (year >= 4) break; /* end of mandate; no emergency after the year-4 closing */
        year++;
    }
    t->matches++;
    if (tally) t->cards_played += count_bits(k->played, W);
    t->end_year[year]++;
    if (zeroed >= 0) {
        t->catastrophes++;
        t->zeroed[zeroed]++;
    }
    for (int m = 0; m < NM && tally; m++) {
        long long v = k->meters[m];
        t->end_sum[m] += v;
        t->end_sq[m] += v * v;
    }
    *out_year = year;
    *out_zeroed = zeroed;
    return 0;
}

typedef int (*PlayOne)(const CDeck *, Work *, Acc *, Mt *, Mt *, int, PyObject *, int *, int *,
                       const int, const int, const uint64_t);
#define PLAY_ONE(name, attr, w, pdep)                                                              \
    attr static int name(const CDeck *d, Work *k, Acc *t, Mt *gen, Mt *player, int policy,        \
                         PyObject *steps, int *out_year, int *out_zeroed, const int tally,         \
                         const int keyed, const uint64_t mk) {                                     \
        return play_one_body(d, k, t, gen, player, policy, steps, out_year, out_zeroed, tally,     \
                             keyed, mk, (w), (pdep));                                              \
    }
PLAY_ONE(play_w1, HOT_CLONES, 1, 0)
PLAY_ONE(play_w2, HOT_CLONES, 2, 0)
PLAY_ONE(play_wn, HOT_CLONES, d->words, 0)
#if HAVE_PDEP
PLAY_ONE(play_w1_pdep, PDEP_TARGET, 1, 1)
PLAY_ONE(play_w2_pdep, PDEP_TARGET, 2, 1)
PLAY_ONE(play_wn_pdep, PDEP_TARGET, d->words, 1)
#endif

/* -1: not checked yet; set_portable(True) makes it 0 (the tests run both paths). */
static int use_pdep = -1;

static int pdep_is_fast(void) {
#if HAVE_PDEP
    unsigned a, b, c, dx;
    if (!__builtin_cpu_supports("bmi2") || !__get_cpuid(0, &a, &b, &c, &dx)) return 0;
    /* "AuthenticAMD" / "HygonGenuine": ebx, edx, ecx spell the vendor */
    const int amd = (b == 0x68747541U && dx == 0x69746e65U) || (b == 0x6f677948U);
    if (!amd) return 1;
    __get_cpuid(1, &a, &b, &c, &dx);
    const unsigned family = ((a >> 8) & 0xfU) + ((a >> 20) & 0xffU);
    return family >= 0x19; /* Zen 3 on */
#else
    return 0;
#endif
}

/* play_one for this deck's width, on this CPU. */
static PlayOne play_one_for(const CDeck *d) {
    if (use_pdep < 0) use_pdep = pdep_is_fast();
#if HAVE_PDEP
    if (use_pdep) return d->words == 1 ? play_w1_pdep : d->words == 2 ? play_w2_pdep : play_wn_pdep;
#endif
    return d->words == 1 ? play_w1 : d->words == 2 ? play_w2 : play_wn;
}

static PyObject *ll_list(const long long *x, Py_ssize_t n) {
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) PyList_SET_ITEM(out, i, PyLong_FromLongLong(x[i]));
    return out;
}

static PyObject *int_list(const int *x, Py_ssize_t n) {
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) PyList_SET_ITEM(out, i, PyLong_FromLong(x[i]));
    return out;
}

/* play(deck, params, seeds, policy, trace, keep_meters[, keyed, keep_picked]) -> (counts, card_draws, card_mandatory, end_sum, end_sq,
 * zeroed, end_year, close_n, close_sum, close_sq, outcomes, meters) with close_* flat
 * [5 * n_meters], outcomes one byte per match and meters (when keep_meters) n_meters bytes per
 * match; trace: None or a list getting (steps, (reason, year, meters,
 * zeroed)) per match, as sim/kernel.py's trace. */
static PyObject *play(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *capsule, *params, *seeds, *trace;
    int policy, keep_meters, keyed = 0, keep_picked = 0;
    if (!PyArg_ParseTuple(args, "OOOiOp|pp", &capsule, &params, &seeds, &policy, &trace,
                          &keep_meters, &keyed, &keep_picked))
        return NULL;
    const int no_player = policy != POLICY_RANDOM; /* only the random player has a generator */
    if (policy < POLICY_RANDOM || policy > POLICY_LOOKAHEAD) {
        PyErr_SetString(PyExc_ValueError, "policy must be 0 (random), 1 (protect), 2 (lookahead)");
        return NULL;
    }
    const CDeck *tables = (const CDeck *)PyCapsule_GetPointer(capsule, "sorteio.CDeck");
    if (tables == NULL) return NULL;
    /* The §7 parameters of this call over the deck's shared tables (one C deck per card set). */
    CDeck deck_here = *tables;
    const CDeck *d = &deck_here;
    int *pv = int_array(params, 5, NULL, "params");
    if (pv == NULL) return NULL;
    deck_here.n_slots = pv[0], deck_here.cap = pv[1], deck_here.meter_limit = pv[2];
    deck_here.em_limit = pv[3], deck_here.mode_limit = pv[4];
    free(pv);
    const PlayOne play_one = play_one_for(d);
    if (trace == Py_None) trace = NULL;
    else if (!PyList_Check(trace)) {
        PyErr_SetString(PyExc_TypeError, "trace must be a list or None");
        return NULL;
    }
    const int W = d->words, NM = d->n_meters > 0 ? d->n_meters : 1;
    const int NA = d->n_actors > 0 ? d->n_actors : 1, NC = d->n_cards > 0 ? d->n_cards : 1;
    const size_t ob_cap = (size_t)d->n_meters + (size_t)d->cap + (size_t)d->n_actors + 8;
    Acc t;
    Work k;
    memset(&t, 0, sizeof(t));
    memset(&k, 0, sizeof(k));
    PyObject *result = NULL, *iter = NULL, *outcomes = NULL;
    Mt *gen = (Mt *)malloc(MT_LANES * sizeof(Mt)), *player = (Mt *)malloc(MT_LANES * sizeof(Mt));
    uint32_t *lanes = (uint32_t *)malloc((size_t)MT_N * MT_LANES * sizeof(uint32_t));
    uint32_t *tempered = (uint32_t *)malloc((size_t)MT_READY * MT_LANES * sizeof(uint32_t));
    Py_ssize_t key_cap[MT_LANES + 1];
    size_t n_out = 0, out_cap = 1024, n_kept = 0, kept_cap = 1024;
    char *out = (char *)malloc(out_cap), *kept = (char *)malloc(kept_cap);
    size_t n_picks = 0, picks_cap = 1024;
    unsigned char *picks = (unsigned char *)malloc(picks_cap);
    PyObject *picks_out = NULL;
    PyObject *meters_out = NULL;
    uint32_t *key[MT_LANES + 1];
    int keys_ok = 1;
    for (int i = 0; i <= MT_LANES; i++) {
        key_cap[i] = 8;
        keys_ok = (key[i] = (uint32_t *)malloc(8 * sizeof(uint32_t))) != NULL && keys_ok;
    }
    t.card_draws = (long long *)calloc((size_t)NC, sizeof(long long));
    t.card_mandatory = (long long *)calloc((size_t)NC, sizeof(long long));
    t.end_sum = (long long *)calloc((size_t)NM, sizeof(long long));
    t.end_sq = (long long *)calloc((size_t)NM, sizeof(long long));
    t.zeroed = (long long *)calloc((size_t)NM, sizeof(long long));
    t.end_year = (long long *)calloc(5, sizeof(long long));
    t.close_n = (long long *)calloc(5, sizeof(long long));
    t.close_sum = (long long *)calloc(5 * (size_t)NM, sizeof(long long));
    t.close_sq = (long long *)calloc(5 * (size_t)NM, sizeof(long long));
    uint64_t **bitsets[] = {&k.ok, &k.played, &k.eligible, &k.reserved, &k.excluded, &k.pool,
                            &k.fresh, &k.init_ok, &k.picked};
    for (size_t i = 0; i < sizeof(bitsets) / sizeof(bitsets[0]); i++)
        *bitsets[i] = (uint64_t *)calloc((size_t)W, 8);
    int **meter_arrays[] = {&k.meters, &k.carried, &k.last_closing, &k.emergencies, &k.in_em,
                            &k.spent, &k.merged_next, &k.low, &k.after, &k.ranked};
    for (size_t i = 0; i < sizeof(meter_arrays) / sizeof(meter_arrays[0]); i++)
        *meter_arrays[i] = (int *)calloc((size_t)NM, sizeof(int));
    k.sat = (int *)calloc((size_t)NA, sizeof(int));
    k.attacked = (int *)calloc((size_t)NA, sizeof(int));
    k.fur = (int *)calloc((size_t)NA, sizeof(int));
    k.mcount = (int *)calloc((size_t)(d->n_modes > 0 ? d->n_modes : 1), sizeof(int));
    k.mode_elig = (int *)calloc((size_t)(d->n_modes > 0 ? d->n_modes : 1), sizeof(int));
    k.turn_modes = (int *)calloc((size_t)(d->n_modes > 0 ? d->n_modes : 1), sizeof(int));
    k.mode_listed = (int *)calloc((size_t)(d->n_modes > 0 ? d->n_modes : 1), sizeof(int));
    k.mode_out = (int *)calloc((size_t)(d->n_modes > 0 ? d->n_modes : 1), sizeof(int));
    k.order = (int *)calloc((size_t)d->max_options, sizeof(int));
    k.obs = (Ob *)calloc(ob_cap, sizeof(Ob));
    int ok = gen && player && lanes && tempered && keys_ok && out && kept && picks && t.card_draws && t.card_mandatory && t.end_sum &&
             t.end_sq && t.zeroed && t.end_year && t.close_n && t.close_sum && t.close_sq &&
             k.sat && k.attacked && k.fur && k.mcount && k.order && k.obs && k.mode_elig &&
             k.turn_modes && k.mode_listed && k.mode_out;
    for (size_t i = 0; i < sizeof(bitsets) / sizeof(bitsets[0]); i++) ok = ok && *bitsets[i];
    for (size_t i = 0; i < sizeof(meter_arrays) / sizeof(meter_arrays[0]); i++)
        ok = ok && *meter_arrays[i];
    if (!ok) {
        PyErr_NoMemory();
        goto done;
    }
    /* Cards allowed by the actors' starting levels (§3.1.4): the same for every match. */
    memcpy(k.init_ok, d->non_actor, 8 * (size_t)W);
    for (int a = 0; a < d->n_actors; a++) {
        const uint64_t *row = ROW(d->actor_level, a * d->n_levels + d->level_of[d->init_sat[a]], W);
        for (int w = 0; w < W; w++) k.init_ok[w] |= row[w];
    }
    iter = PyObject_GetIter(seeds);
    if (iter == NULL) goto done;
    for (int more = 1; more;) {
        /* MT_LANES generators per pass, seeded side by side (mt_seed_all): lane 2m is match m's
         * engine and lane 2m + 1 its player (match.random_policy), or lane m its engine when the
         * player has no generator. A key longer than two words (a seed >= 2**64) is seeded on
         * its own lane afterwards (mt_seed). */
        const int per_match = no_player ? 1 : 2, batch = MT_LANES / per_match;
        uint32_t k0[MT_LANES] = {0}, k1[MT_LANES] = {0};
        int klen[MT_LANES] = {0}, long_key[MT_LANES] = {0};
        Py_ssize_t lens[MT_LANES] = {0};
        uint64_t mk[MT_LANES] = {0}; /* keyed.match_key of each match (keyed draw) */
        int n_match = 0;
        for (; n_match < batch; n_match++) {
            PyObject *seed = PyIter_Next(iter);
            if (seed == NULL) {
                more = 0;
                break;
            }
            if (keyed) { /* no generator to seed: the low 64 bits of the seed make the key */
                uint64_t low = PyLong_AsUnsignedLongLongMask(seed);
                Py_DECREF(seed);
                if (low == (uint64_t)-1 && PyErr_Occurred()) {
                    more = 0;
                    break;
                }
                mk[n_match] = mix64(low ^ 0x5EEDC0DE5EEDC0DEULL);
                continue;
            }
            const int lane = n_match * per_match;
            int bad = match_keys(seed, !no_player, &key[lane], &key_cap[lane], &lens[lane],
                                 &key[lane + 1], &key_cap[lane + 1], &lens[lane + 1]);
            Py_DECREF(seed);
            if (bad) {
                more = 0;
                break;
            }
            for (int l = lane; l < lane + per_match; l++) {
                k0[l] = key[l][0];
                k1[l] = lens[l] > 1 ? key[l][1] : 0;
                klen[l] = lens[l] > 1 ? 2 : 1;
                long_key[l] = lens[l] > 2;
            }
        }
        if (PyErr_Occurred()) break;
        if (n_match && !keyed) {
            mt_seed_all(lanes, tempered, k0, k1, klen);
            for (int l = 0; l < n_match * per_match; l++) {
                Mt *g = (no_player || l % 2 == 0) ? &gen[l / per_match] : &player[l / 2];
                mt_lane(g, lanes, tempered, l);
                if (long_key[l]) mt_seed(g, key[l], (size_t)lens[l]);
            }
        }
        for (int m = 0; m < n_match && !PyErr_Occurred(); m++) {
            PyObject *steps = NULL;
            if (trace != NULL && (steps = PyList_New(0)) == NULL) break;
            int year = 0, zeroed = -1;
            if (prof_mode == PROF_SEEDING) continue;
            if (play_one(d, &k, &t, &gen[m], &player[m], policy, steps, &year, &zeroed,
                         prof_mode != PROF_NO_TALLY, keyed, mk[m]) < 0) {
                Py_XDECREF(steps);
                break;
            }
            if (n_out >= out_cap) {
                size_t bigger = out_cap * 2;
                char *grown = (char *)realloc(out, bigger);
                if (grown == NULL) {
                    Py_XDECREF(steps);
                    PyErr_NoMemory();
                    break;
                }
                out = grown;
                out_cap = bigger;
            }
            out[n_out++] = zeroed >= 0 ? 1 : 0;
            if (keep_meters) { /* every match's ending meters, one byte each (0-100) */
                size_t need = n_kept + (size_t)d->n_meters;
                if (need > kept_cap) {
                    size_t bigger = kept_cap * 2 > need ? kept_cap * 2 : need;
                    char *grown = (char *)realloc(kept, bigger);
                    if (grown == NULL) {
                        Py_XDECREF(steps);
                        PyErr_NoMemory();
                        break;
                    }
                    kept = grown;
                    kept_cap = bigger;
                }
                for (int mi = 0; mi < d->n_meters; mi++) kept[n_kept++] = (char)k.meters[mi];
            }
            if (keep_picked) { /* the cards drawn or reserved: W little-endian words a match */
                size_t need = n_picks + 8 * (size_t)W;
                if (need > picks_cap) {
                    size_t bigger = picks_cap * 2 > need ? picks_cap * 2 : need;
                    unsigned char *grown = (unsigned char *)realloc(picks, bigger);
                    if (grown == NULL) {
                        Py_XDECREF(steps);
                        PyErr_NoMemory();
                        break;
                    }
                    picks = grown;
                    picks_cap = bigger;
                }
                for (int w = 0; w < W; w++) {
                    uint64_t v = k.picked[w] | k.played[w];
                    for (int b = 0; b < 8; b++) picks[n_picks++] = (unsigned char)(v >> (8 * b));
                }
            }
            if (trace != NULL) {
                PyObject *meters = int_list(k.meters, d->n_meters);
                PyObject *entry = meters == NULL ? NULL
                                                 : Py_BuildValue("(N(siNi))", steps,
                                                                 zeroed >= 0 ? "catastrophe"
                                                                             : "end_of_mandate",
                                                                 year, meters, zeroed);
                if (entry == NULL || PyList_Append(trace, entry) < 0) {
                    Py_XDECREF(entry);
                    break;
                }
                Py_DECREF(entry);
            }
        }
        if (PyErr_Occurred()) break;
    }
    if (!PyErr_Occurred()) outcomes = PyByteArray_FromStringAndSize(out, (Py_ssize_t)n_out);
    if (!PyErr_Occurred()) meters_out = PyByteArray_FromStringAndSize(kept, (Py_ssize_t)n_kept);
    if (!PyErr_Occurred())
        picks_out = PyByteArray_FromStringAndSize((const char *)picks, (Py_ssize_t)n_picks);
    if (PyErr_Occurred()) goto done;
    result = Py_BuildValue(
        "((LLLLLLL)NNNNNNNNNOOO)", t.matches, t.catastrophes, t.cards_played, t.turns,
        t.turns_closed, t.short_turns, t.mandatory, ll_list(t.card_draws, d->n_cards),
        ll_list(t.card_mandatory, d->n_cards), ll_list(t.end_sum, d->n_meters),
        ll_list(t.end_sq, d->n_meters), ll_list(t.zeroed, d->n_meters), ll_list(t.end_year, 5),
        ll_list(t.close_n, 5), ll_list(t.close_sum, 5 * (Py_ssize_t)d->n_meters),
        ll_list(t.close_sq, 5 * (Py_ssize_t)d->n_meters), outcomes, meters_out, picks_out);
done:
    Py_XDECREF(iter);
    Py_XDECREF(outcomes);
    Py_XDECREF(meters_out);
    Py_XDECREF(picks_out);
    free(kept);
    free(picks);
    free(gen);
    free(player);
    free(lanes);
    free(tempered);
    for (int i = 0; i <= MT_LANES; i++) free(key[i]);
    free(out);
    free(t.card_draws);
    free(t.card_mandatory);
    free(t.end_sum);
    free(t.end_sq);
    free(t.zeroed);
    free(t.end_year);
    free(t.close_n);
    free(t.close_sum);
    free(t.close_sq);
    for (size_t i = 0; i < sizeof(bitsets) / sizeof(bitsets[0]); i++) free(*bitsets[i]);
    for (size_t i = 0; i < sizeof(meter_arrays) / sizeof(meter_arrays[0]); i++)
        free(*meter_arrays[i]);
    free(k.sat);
    free(k.attacked);
    free(k.fur);
    free(k.mcount);
    free(k.mode_elig);
    free(k.turn_modes);
    free(k.mode_listed);
    free(k.mode_out);
    free(k.order);
    free(k.obs);
    return result;
}

/* getrandbits(seed, ks) -> [random.Random(seed).getrandbits(k) for k in ks] (tests). */
static PyObject *getrandbits_seq(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *seed, *ks;
    if (!PyArg_ParseTuple(args, "OO", &seed, &ks)) return NULL;
    Py_ssize_t cap = 8, n = 0;
    uint32_t *key = (uint32_t *)malloc((size_t)cap * sizeof(uint32_t));
    if (key == NULL) return PyErr_NoMemory();
    Py_ssize_t len = seed_words(seed, &key, &cap);
    int *k = len ? int_array(ks, -1, &n, "ks") : NULL;
    PyObject *out = NULL;
    Mt *g = (Mt *)malloc(sizeof(Mt));
    uint32_t *words = (uint32_t *)malloc((size_t)MT_N * MT_LANES * sizeof(uint32_t));
    if (g != NULL) g->mt = words;
    if (k != NULL && g != NULL && words != NULL) {
        mt_seed(g, key, (size_t)len);
        out = PyList_New(n);
        for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
            if (k[i] < 1 || k[i] > 64) {
                Py_CLEAR(out);
                PyErr_SetString(PyExc_ValueError, "k must be 1-64");
                break;
            }
            PyList_SET_ITEM(out, i, PyLong_FromUnsignedLongLong(mt_bits(g, k[i])));
        }
    } else if (g == NULL || words == NULL) {
        PyErr_NoMemory();
    }
    free(words);
    free(g);
    free(k);
    free(key);
    return out;
}

/* below(seed, ns) -> what Rng(seed).below(n) returns for each n in turn (tests). */
static PyObject *below_seq(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *seed, *ns;
    if (!PyArg_ParseTuple(args, "OO", &seed, &ns)) return NULL;
    Py_ssize_t cap = 8;
    uint32_t *key = (uint32_t *)malloc((size_t)cap * sizeof(uint32_t));
    if (key == NULL) return PyErr_NoMemory();
    Py_ssize_t len = seed_words(seed, &key, &cap);
    PyObject *fast = len ? PySequence_Fast(ns, "ns") : NULL;
    PyObject *out = NULL;
    Mt *g = (Mt *)malloc(sizeof(Mt));
    uint32_t *words = (uint32_t *)malloc((size_t)MT_N * MT_LANES * sizeof(uint32_t));
    if (g != NULL) g->mt = words;
    if (fast != NULL && g != NULL && words != NULL) {
        mt_seed(g, key, (size_t)len);
        Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
        out = PyList_New(n);
        for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
            unsigned long long v = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(fast, i));
            if (v == (unsigned long long)-1 && PyErr_Occurred()) {
                Py_CLEAR(out);
                break;
            }
            PyList_SET_ITEM(out, i, PyLong_FromUnsignedLongLong(mt_below(g, v)));
        }
    } else if (g == NULL || words == NULL) {
        PyErr_NoMemory();
    }
    Py_XDECREF(fast);
    free(words);
    free(g);
    free(key);
    return out;
}

/* set_profile(mode) -> previous mode (benchmark only; see prof_mode). */
static PyObject *set_profile(PyObject *self, PyObject *args) {
    (void)self;
    int mode, was = prof_mode;
    if (!PyArg_ParseTuple(args, "i", &mode)) return NULL;
    if (mode < PROF_OFF || mode > PROF_NO_TALLY) {
        PyErr_SetString(PyExc_ValueError, "mode must be 0, 1 or 2");
        return NULL;
    }
    prof_mode = mode;
    return PyLong_FromLong(was);
}

/* set_portable(flag) -> previous flag: True plays with the portable select even where pdep is
 * fast (the tests run the kernel both ways; the benchmark compares them). */
static PyObject *set_portable(PyObject *self, PyObject *args) {
    (void)self;
    int portable;
    if (!PyArg_ParseTuple(args, "p", &portable)) return NULL;
    if (use_pdep < 0) use_pdep = pdep_is_fast();
    const int was = use_pdep != 1;
    use_pdep = portable ? 0 : pdep_is_fast();
    return PyBool_FromLong(was);
}

/* uses_pdep() -> True when play picks set bits with pdep (a fast pdep, not set_portable). */
static PyObject *uses_pdep(PyObject *self, PyObject *args) {
    (void)self, (void)args;
    if (use_pdep < 0) use_pdep = pdep_is_fast();
    return PyBool_FromLong(use_pdep == 1);
}

/* below_many(seed, n, count, per_match) -> sum of `count` draws of Rng.below(n): what the random
 * player's choices cost, timed alone by the benchmark. The generator restarts from its first
 * (pre-tempered, as in play) word every `per_match` draws, as a match's player does. */
static PyObject *below_many(PyObject *self, PyObject *args) {
    (void)self;
    unsigned long long seed, n, count, per, sum = 0;
    if (!PyArg_ParseTuple(args, "KKKK", &seed, &n, &count, &per)) return NULL;
    uint32_t *words = (uint32_t *)malloc((size_t)MT_N * MT_LANES * sizeof(uint32_t));
    uint32_t *tempered = (uint32_t *)malloc((size_t)MT_READY * MT_LANES * sizeof(uint32_t));
    if (words == NULL || tempered == NULL) {
        free(words);
        free(tempered);
        return PyErr_NoMemory();
    }
    uint32_t k0[MT_LANES] = {0}, k1[MT_LANES] = {0};
    int len[MT_LANES];
    for (int l = 0; l < MT_LANES; l++) k0[l] = (uint32_t)seed + (uint32_t)l, len[l] = 1;
    mt_seed_all(words, tempered, k0, k1, len);
    Mt g;
    mt_lane(&g, words, tempered, 0);
    for (unsigned long long i = 0; i < count; i++) {
        if (per && i % per == 0) mt_lane(&g, words, tempered, (int)(i / per % MT_LANES));
        sum += mt_below(&g, n);
    }
    free(words);
    free(tempered);
    return PyLong_FromUnsignedLongLong(sum);
}

static PyMethodDef methods[] = {
    {"set_profile", set_profile, METH_VARARGS, "Benchmark breakdown mode (bench_kernels.py)."},
    {"set_portable", set_portable, METH_VARARGS, "Portable select even with a fast pdep (tests)."},
    {"uses_pdep", uses_pdep, METH_NOARGS, "True when the kernel selects bits with pdep."},
    {"below_many", below_many, METH_VARARGS, "Sum of count Rng.below(n) draws (benchmark)."},
    {"compile_deck", compile_deck, METH_VARARGS, "A FastDeck's tables as a C deck (capsule)."},
    {"play", play, METH_VARARGS, "Play one match per seed; see sim/ckernel.py."},
    {"getrandbits", getrandbits_seq, METH_VARARGS, "MT19937 getrandbits stream (tests)."},
    {"below", below_seq, METH_VARARGS, "Rng.below stream (tests)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_ckernel",
                                    "Compiled simulation kernel (see sim/ckernel.py).", -1,
                                    methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__ckernel(void) {
    mt_init_start();
    PyObject *m = PyModule_Create(&module);
    if (m != NULL &&
        PyModule_AddObject(m, "SOURCE_ID", PyLong_FromLongLong((long long)KERNEL_SOURCE_ID)) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
