/* sgtab.h: a game for sgtab written in C++ (sgtab build cpp:FILE.cpp[:NAME=VALUE,...]).
 *
 * `sgtab header` prints this file; sgtab writes it beside each compile, so a game needs no
 * copy of it. The game defines, after `#include <sgtab.h>`:
 *
 *   sgtab::Shape shape();                          1 to 8 sizes: `return N;` or `return {N, N};`
 *   void moves(sgtab::Pos p, sgtab::Options &o);   the options of position p
 *   long long rank(sgtab::Pos p);                  optional: every option's positions rank lower
 *
 * A position p has coordinates p[0] .. p[k-1] (k = the number of sizes), 0 <= p[i] < size i; a
 * 1-D position also reads as its integer (`long long n = p;`), and p.index() is its table index
 * (row-major: ((p[0]*d1 + p[1])*d2 + p[2])...). Options:
 *
 *   o.add(a, b)                    a move to the position (a, b): one coordinate an axis
 *   o.sum(a, n - a)                1-D: a move that leaves the heaps a and n - a side by side
 *                                  (worth the XOR of their values); o.sum() leaves nothing (0)
 *   o.sum({{x1, y1}, {x2, y2}})    k-D: the positions (x1, y1) and (x2, y2) side by side
 *   o.begin_sum(); o.part(x, y); ... o.end_sum();   a sum of any number of parts, one at a time
 *
 * An option outside the shape, a position with the wrong number of coordinates, or an exception
 * thrown out of moves or rank stops the build with one line naming the position. Parameters
 * arrive as macros: cpp:game.cpp:N=40,S={2,5,7} compiles with -DN=40 -DS={2,5,7}, and
 * `for (long long k : S)` walks a list. moves and rank must depend on the position alone (no
 * state kept between calls): sgtab calls them on every core, in an order of its choosing.
 *
 * The C interface below is what sgtab loads; `native:LIB.so` takes a library built by any
 * language that exports `sgtab_call` as described (docs/native.md). */
#ifndef SGTAB_H
#define SGTAB_H

#include <stdint.h>

#define SGTAB_ABI 1

#ifdef __cplusplus
extern "C" {
#endif

/* What sgtab asks in one call. */
enum sgtab_what {
  SGTAB_SHAPE = 0,     /* answer axes, sizes, ranked */
  SGTAB_RANKS = 1,     /* answer rank_out[0..count): the rank of each position asked */
  SGTAB_SUMMARIES = 2, /* answer words[0..nwords): each position's summary, in order */
  SGTAB_VALUES = 3,    /* store each position's value into fill[p], in order (optional) */
};

/* One call: sgtab fills the fields marked "in", the library those marked "out". Memory the
 * library answers with stays its own and valid until its next call on the same thread. */
struct sgtab_call {
  uint32_t abi;                /* in: SGTAB_ABI */
  uint32_t what;               /* in: an enum sgtab_what */
  const uint64_t *positions;   /* in: the table indices of the positions asked */
  uint64_t count;              /* in: how many */
  const uint32_t *values;      /* in: the table; values[q] is final where q < known, or
                                  where ranks is set and ranks[q] < rank */
  uint64_t known;              /* in: positions below this index are known */
  const int64_t *ranks;        /* in: the rank of every position (NULL unless by rank) */
  int64_t rank;                /* in: the rank of the positions asked (with ranks) */
  uint32_t vmax;               /* in: no known value is above this; out (VALUES, with flags
                                  bit 1): the largest value known after the call */
  uint32_t flags;              /* out (SHAPE): bit 0 where the library answers SGTAB_VALUES,
                                  bit 1 where VALUES answers vmax */
  volatile uint64_t *current;  /* in: store each position here as its work starts */
  uint32_t axes;               /* out (SHAPE): 1 to 8 */
  uint32_t ranked;             /* out (SHAPE): 1 where the game gives ranks */
  uint64_t sizes[8];           /* out (SHAPE) */
  const int64_t *rank_out;     /* out (RANKS) */
  const uint64_t *words;       /* out (SUMMARIES), see below */
  uint64_t nwords;             /* out (SUMMARIES) */
  uint64_t options;            /* out (SUMMARIES): work done, for progress: about the
                                  options enumerated (the values scanned for the gaps, plus
                                  the options kept) */
  const char *error;           /* out: where sgtab_call returns nonzero, why (one line) */
  uint32_t *fill;              /* in (VALUES): the table, written at the positions asked */
  uint64_t stop_at;            /* out (VALUES, returning 2): a position with an option ... */
  uint64_t stop_option;        /* ... at this index, not below it */
};

/* A position's summary is r, the number of its options not folded (an option is folded where
 * every position it names is known; by rank, every option is); then, where r = 0, its value
 * (the mex of its options' values); otherwise its r options, each as k, then k table indices (a
 * sum of k positions; 1 for a plain move), then the first r + 1 values that no folded option
 * has, in increasing order (its value is the first of these that no unfolded option has).
 *
 * SGTAB_VALUES, asked only of a library whose SHAPE answer set flags bit 0, asks consecutive
 * positions from `known` up: the library computes each in turn, every option below it (so
 * known), and stores its value into fill[p] before the next. An option at or past its
 * position returns 2 with stop_at and stop_option set (sgtab then orders by the move graph).
 * A library whose SHAPE answer sets flags bit 1 also answers vmax, the larger of the vmax
 * given and the values it stored (sgtab then need not read them again). Returns 0, or nonzero
 * with error set. */
int sgtab_call(struct sgtab_call *call);

#ifdef __cplusplus
}

#include <exception>
#include <initializer_list>
#include <memory>
#include <new>
#include <stdio.h>
#include <type_traits>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define SGTAB_HEADER_VERSION 1

/* Everything below but sgtab_call is internal to the library. */
#pragma GCC visibility push(hidden)

namespace sgtab {

/* Up to 8 integers: the sizes of a shape (`return N;`, positions 0..N-1, or `return {N, N};`),
 * or a position given to o.sum({...}) or o.part(...) (`{x, y}`, or a heap). n counts every
 * integer given, so that more than 8 is reported rather than cut. */
struct Coords {
  long long v[8];
  int n;
  Coords(long long x) : v{x}, n(1) {}
  Coords(std::initializer_list<long long> s) : v{}, n(0) {
    for (long long x : s) {
      if (n < 8) v[n] = x;
      n++;
    }
  }
};
using Shape = Coords;
using Point = Coords;

/* A position: p[i] its coordinates; a 1-D position reads as its integer. */
class Pos {
 public:
  Pos(const long long *c, int k, uint64_t i) : c_(c), k_((uint32_t)k), i_((uint32_t)i) {}
  long long operator[](int i) const { return c_[i]; }
  operator long long() const { return c_[0]; }
  int size() const { return (int)k_; }
  uint64_t index() const { return i_; }

 private:
  /* 16 bytes, so that a Pos is passed in two registers (a table has at most 2^30
   * positions). */
  const long long *c_;
  uint32_t k_, i_;
};

namespace detail {
struct Run;
/* A word kept for sgtab (a struct, so that storing one cannot alias Options' own fields). */
struct Word {
  uint64_t w;
};

/* A position's marks: marks[v] == the stamp where one of its options is worth v. 16 bits, so
 * that the marks a loop of options stores lie close (a cache line holds 32): the processor
 * writes stores to one line out together. Lasker's Nim's library ran 0.344 s so against 0.368 s
 * with 32-bit marks on an Intel Xeon (a plain loop of Grundy's game, 0.275 s against 0.306 s);
 * the stamp starts over every 65,535 positions, the marks cleared. Not 8 bits: a store through
 * an unsigned char may alias anything, and the compiler would read the table, the marks and
 * the bound again after each. */
typedef uint16_t Mark;

/* What the fast paths of Options read: one per thread, a thread-local whose address is never
 * taken. The compiler then knows that no store of the game's reaches it, and (unlike a field
 * read through the Options reference, which might fault) that it can always be read: it reads
 * it once a moves() call, before the game's loop, where through the reference it read it again
 * for every option (the chess row ran 2 to 4% slower so). Initial-exec: an address from the
 * thread pointer, no call; where the loader has no room left for that (many libraries in one
 * process), sgtab compiles the game again with SGTAB_DYNAMIC_TLS. */
struct Hot {
  const uint32_t *values;
  Mark *marks;
  uint64_t stamp; /* 64 bits: a store into the 16-bit marks cannot alias it */
  uint64_t known, known1;
};
#if defined(SGTAB_DYNAMIC_TLS)
static thread_local Hot hot;
#else
static thread_local Hot hot __attribute__((tls_model("initial-exec")));
#endif
}  // namespace detail

/* The options of one position, folded as they come: see moves() above. The fast paths are
 * inline and call nothing, read what they need from detail::hot, and the slow path only appends
 * the option as given to a buffer, so that the compiler keeps the mark array, the table and the
 * bound of the known positions in registers across the caller's loop: an option whose
 * positions are known costs one load and one store, as in a plain table loop. The buffered
 * options are checked and folded (or kept for sgtab) once moves returns; a position that
 * overflows the buffer is asked again with a larger one. */
class Options {
 public:
  void add(long long x) {
    /* Read before the branch, so that the compiler may keep them in registers. */
    const uint64_t i = (uint64_t)x, known = detail::hot.known1;
    const uint32_t *values = detail::hot.values;
    const detail::Mark stamp = (detail::Mark)detail::hot.stamp;
    detail::Mark *marks = detail::hot.marks;
    if (__builtin_expect(i < known, 1)) {
      marks[values[i]] = stamp;
      return;
    }
    raw(ADD | 1, 1, &x);
  }

  template <class... T, typename std::enable_if<(sizeof...(T) >= 2), int>::type = 0>
  void add(T... c) {
    static_assert(sizeof...(T) <= 8, "a position has 1 to 8 coordinates");
    const long long v[] = {(long long)c...};
    const uint64_t known = detail::hot.known;
    const uint32_t *values = detail::hot.values;
    const detail::Mark stamp = (detail::Mark)detail::hot.stamp;
    detail::Mark *marks = detail::hot.marks;
    uint64_t i;
    if (__builtin_expect(index(v, (int)sizeof...(T), i) && i < known, 1)) {
      marks[values[i]] = stamp;
      return;
    }
    raw(ADD | sizeof...(T), sizeof...(T), v);
  }

  /* 1-D: two heaps side by side (the fast path), or any number. Both heaps must be known. On
   * x86-64 each is compared and branched on by itself (two fused compare-and-branch operations
   * that write no register), in assembly because the compiler turns i < known && j < known
   * into a compare, a select and a compare. Elsewhere i | j < known (i | j is at least either)
   * is one OR and one compare; only where the OR reaches past the bound are both compared. A
   * tight loop of sums (Grundy's game to 60,000, loops unrolled) ran 0.346 s with the OR and
   * 0.316 s with the two branches on an Intel Xeon, the plain C++ loop 0.326 s. */
  void sum(long long a, long long b) {
    const uint64_t i = (uint64_t)a, j = (uint64_t)b, known = detail::hot.known1;
    const uint32_t *values = detail::hot.values;
    const detail::Mark stamp = (detail::Mark)detail::hot.stamp;
    detail::Mark *marks = detail::hot.marks;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __asm__ goto(
        "cmp %1, %0\n\t"
        "jae %l[slow]\n\t"
        "cmp %1, %2\n\t"
        "jae %l[slow]"
        :
        : "r"(i), "r"(known), "r"(j)
        : "cc"
        : slow);
    marks[values[i] ^ values[j]] = stamp;
    return;
  slow:
#else
    if (__builtin_expect((i | j) < known, 1) || (i < known && j < known)) {
      marks[values[i] ^ values[j]] = stamp;
      return;
    }
#endif
    const long long v[] = {a, b};
    raw(HEAPS | 2, 2, v);
  }

  template <class... T, typename std::enable_if<(sizeof...(T) != 2), int>::type = 0>
  void sum(T... h) {
    const long long v[] = {0, (long long)h...};
    raw(HEAPS | sizeof...(T), sizeof...(T), v + 1);
  }

  /* Any shape: the positions side by side. */
  void sum(std::initializer_list<Point> parts) {
    begin_sum();
    for (const Point &p : parts) part_of(p.v, p.n);
    end_sum();
  }

  void begin_sum() {
    if (in_sum_) note(NESTED);
    in_sum_ = true;
    sum_at_ = npend_;
    raw(SUM, 0, nullptr);
  }

  template <class... T>
  void part(T... c) {
    const long long v[] = {(long long)c...};
    part_of(v, (int)sizeof...(T));
  }

  void end_sum() {
    if (!in_sum_) {
      note(END);
      return;
    }
    in_sum_ = false;
    /* The parts counted: the sum's first word says how many words follow it. */
    if (sum_at_ < cap_) pend_[sum_at_].w = SUM | (npend_ - sum_at_ - 1);
  }

 private:
  friend struct detail::Run;
  enum Fault { NONE, OUTSIDE, PART, RANK, NESTED, END, LOOSE };
  /* A buffered option's first word: its kind (top bits) and the words that follow it. An ADD
   * is a position's coordinates; HEAPS, 1-D heaps side by side; a SUM, its parts, each a
   * ONE_PART word and that part's coordinates. */
  static constexpr uint64_t ADD = 1ull << 60, HEAPS = 2ull << 60, SUM = 3ull << 60,
                            ONE_PART = 4ull << 60, KIND = 15ull << 60;

  bool index(const long long *v, int k, uint64_t &out) const {
    if (k != axes_) return false;
    uint64_t i = 0;
    for (int j = 0; j < k; j++) {
      if ((uint64_t)v[j] >= size_[j]) return false;
      i = i * size_[j] + (uint64_t)v[j];
    }
    out = i;
    return true;
  }
  /* Appends a word and then k coordinates to the buffer (past its end only counted). It
   * writes nothing the fast paths read. */
  __attribute__((always_inline)) void raw(uint64_t w, uint64_t k, const long long *v) {
    const uint64_t n = npend_;
    detail::Word *pend = pend_;
    if (__builtin_expect(n + 1 + k <= cap_, 1)) {
      pend[n].w = w;
      for (uint64_t j = 0; j < k; j++) pend[n + 1 + j].w = (uint64_t)v[j];
    }
    npend_ = n + 1 + k;
  }
  void part_of(const long long *v, int k) {
    if (!in_sum_) {
      note(LOOSE);
    } else {
      /* A part given more than 8 coordinates keeps its first 8 (it is refused anyway). */
      raw(ONE_PART | (uint64_t)k, (uint64_t)(k < 8 ? k : 8), v);
    }
  }
  void note(Fault f) {
    if (fault_ == NONE) fault_ = f;
  }

  uint64_t size_[8] = {};
  int axes_ = 1;
  detail::Word *pend_ = nullptr;
  uint64_t npend_ = 0, cap_ = 0, sum_at_ = 0;
  bool in_sum_ = false;
  Fault fault_ = NONE;
};

}  // namespace sgtab

#pragma GCC visibility pop

/* The game's functions: hidden, so that calls to them are direct (nothing can interpose
 * them) and the compiler may inline them into the loops below. */
__attribute__((visibility("hidden"))) sgtab::Shape shape();
__attribute__((visibility("hidden"))) void moves(sgtab::Pos p, sgtab::Options &o);
long long rank(sgtab::Pos p) __attribute__((weak));

#pragma GCC visibility push(hidden)

namespace sgtab {
namespace detail {

/* One thread's buffers, kept between calls (on the heap: a library's thread-locals are only
 * what the fast paths read and a pointer to this, so that the loader's room for initial-exec
 * thread-locals, shared by every library in the process, holds many games). */
struct Run {
  mutable char error_text[512]; /* the text call->error points at */
  /* The marks of the position being asked: base()[v] == the stamp where value v is had. */
  std::vector<Mark> marks;
  size_t shift = 0;
  std::vector<uint64_t> words;
  std::vector<Word> pend;
  std::vector<uint64_t> kept; /* the options not folded, as in a summary */
  std::vector<int64_t> ranks;
  Options o;
  uint64_t sizes[8];
  int axes = 0;
  uint64_t unfolded = 0;
  /* Where an option is folded: by rank (ranks, rank), else below `known`. */
  const int64_t *by_rank = nullptr;
  int64_t rank = 0;
  uint64_t known = 0;
  bool keep_empty = false;
  /* The first fault the buffered options show (checked once moves returns). */
  Options::Fault fault = Options::NONE;
  int fault_k = 0;
  uint64_t fault_at = 0;
  long long fault_v[8] = {};

  void point(uint64_t i, long long *c) const {
    if (axes == 1) {
      c[0] = (long long)i;
      return;
    }
    for (int j = axes - 1; j >= 0; j--) {
      c[j] = (long long)(i % sizes[j]);
      i /= sizes[j];
    }
  }

  Mark *base() { return marks.data() + shift; }
  void grow(uint64_t need);
  const char *fault_text() const;
  void prepare(struct sgtab_call *call, uint64_t known);
  void bad(Options::Fault f, const Word *v, int k, uint64_t at = 0);
  bool folds(uint64_t i);
  void resolve();
  void next_stamp();
  bool settle(struct sgtab_call *call);
  bool ask(uint64_t p, long long *c, struct sgtab_call *call);
  int summaries(struct sgtab_call *call);
  int values(struct sgtab_call *call);
  template <bool ONE>
  int values_of(struct sgtab_call *call);
};

/* The first v with mk[v] != stamp, read eight marks at a time: where it is below 8 (three
 * positions in four of the chess row) it is found without a branch on which, where the plain
 * loop `while (mk[v] == stamp) v++` leaves at an unpredictable step (a mispredicted branch a
 * position: the row ran 8% slower so). Reads up to 7 marks past the gap: the marks have room
 * for them (grow). */
inline uint64_t first_gap(const Mark *mk, Mark stamp) {
  for (uint64_t v = 0;; v += 8) {
#if defined(__SSE2__)
    const __m128i s = _mm_set1_epi16((short)stamp);
    const __m128i a = _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)(mk + v)), s);
    const unsigned m = (unsigned)_mm_movemask_epi8(_mm_packs_epi16(a, a)) & 0xFF;
#else
    unsigned m = 0;
    for (unsigned k = 0; k < 8; k++) m |= (unsigned)(mk[v + k] == stamp) << k;
#endif
    if (m != 0xFF) return v + (uint64_t)__builtin_ctz(~m);
  }
}

/* This thread's Run, made at its first call and freed when the thread ends; null where the
 * memory for it ran out. */
static thread_local std::unique_ptr<Run> run;
inline Run *this_run() {
  if (!run) run.reset(new (std::nothrow) Run());
  return run.get();
}

/* The fault of the position just asked, in words. */
inline const char *Run::fault_text() const {
  char *t = error_text;
  const size_t n = sizeof error_text;
  size_t at = 0;
  auto coords = [&](const char *what) {
    at += snprintf(t + at, n - at, "%s (", what);
    for (int j = 0; j < fault_k && at < n; j++) at += snprintf(t + at, n - at, j ? ", %lld" : "%lld", fault_v[j]);
    if (at < n) at += snprintf(t + at, n - at, ")");
    if (fault_k != axes && at < n) {
      snprintf(t + at, n - at, ": %d coordinate%s where the shape has %d", fault_k, fault_k == 1 ? "" : "s", axes);
    } else if (at < n) {
      at += snprintf(t + at, n - at, ", outside the shape ");
      for (int j = 0; j < axes && at < n; j++) at += snprintf(t + at, n - at, j ? "x%llu" : "%llu", (unsigned long long)sizes[j]);
    }
  };
  switch (fault) {
    case Options::OUTSIDE: coords("an option is the position"); break;
    case Options::PART: coords("a sum has a part"); break;
    case Options::RANK:
      snprintf(t, n, "an option names index %llu of rank %lld, not below the position's rank %lld: every option's positions must rank lower",
               (unsigned long long)fault_at, (long long)by_rank[fault_at], (long long)rank);
      break;
    case Options::NESTED: snprintf(t, n, "a sum was begun (begin_sum) inside another"); break;
    case Options::END: snprintf(t, n, "o.end_sum() without o.begin_sum()"); break;
    case Options::LOOSE: snprintf(t, n, "o.part() outside a sum: call o.begin_sum() first"); break;
    case Options::NONE: snprintf(t, n, "a sum was begun (begin_sum) and not ended (end_sum)"); break;
  }
  return t;
}

/* The state of a call: the table, the shape, what is known. */
inline void Run::prepare(struct sgtab_call *call, uint64_t known) {
  uint64_t cap = 1;
  while (cap <= call->vmax) cap <<= 1;
  /* Any XOR of known values is below cap; the gaps of a position lie below cap + its
   * unfolded options + 1. */
  hot.values = call->values;
  grow(cap + 2);
  if (pend.size() < 4096) pend.resize(4096);
  uint64_t count = 1;
  for (int j = 0; j < axes; j++) o.size_[j] = sizes[j], count *= sizes[j];
  o.axes_ = axes;
  by_rank = call->ranks;
  rank = call->rank;
  this->known = call->ranks ? 0 : (known < count ? known : count);
  hot.known = this->known;
  hot.known1 = axes == 1 ? hot.known : 0;
  /* With nothing known every option is kept, the empty sum too (sgtab reads them all). */
  keep_empty = this->known == 0 && !call->ranks;
}

/* Room for `need` marks from base(), which lies half a page from the table (modulo 4096
 * bytes): a game whose values grow with the position (Lasker's Nim) stores marks[values[i]]
 * close to marks[i] while it loads values[i + 1], and where the two arrays sit at the same
 * offset in their pages the processor takes each load for one that may read that store (4K
 * aliasing) and waits: the same loop ran 1.7x slower. */
inline void Run::grow(uint64_t need) { /* between positions: base() moves */
  const size_t room = 4096 / sizeof(Mark) + 8; /* the shift below, and first_gap's reads */
  if (marks.size() < need + room) marks.resize(need + room, 0);
  const uintptr_t d = ((uintptr_t)marks.data() - (uintptr_t)hot.values - 2048) & 4095;
  shift = ((4096 - d) & 4095) / sizeof(Mark);
}

/* Notes the first fault of the position. */
inline void Run::bad(Options::Fault f, const Word *v, int k, uint64_t at) {
  if (fault != Options::NONE) return;
  fault = f;
  fault_k = k;
  fault_at = at;
  for (int j = 0; j < k && j < 8; j++) fault_v[j] = (long long)v[j].w;
}

/* Whether position i (inside the shape) is known; by rank, checks that it ranks lower. */
inline bool Run::folds(uint64_t i) {
  if (by_rank) {
    if (by_rank[i] >= rank) bad(Options::RANK, nullptr, 0, i);
    return true;
  }
  return i < known;
}

/* The buffered options of the position just asked: each is checked against the shape, then
 * folded into the marks where every position it names is known, else kept (in `kept`, as a
 * summary holds it; `unfolded` counts them). */
inline void Run::resolve() {
  const Word *w = pend.data();
  const uint64_t end = o.npend_;
  const Mark stamp = (Mark)hot.stamp;
  kept.clear();
  unfolded = 0;
  for (uint64_t at = 0; at < end;) {
    const uint64_t kind = w[at].w & Options::KIND, n = w[at].w & ~Options::KIND;
    const uint64_t first = at + 1;
    at = first + n;
    const size_t head = kept.size();
    kept.push_back(0);
    bool all = true;
    uint32_t x = 0;
    uint64_t parts = 0;
    for (uint64_t j = first; j < at;) {
      /* One position: an ADD's coordinates, a heap, or a SUM's part. */
      int k = kind == Options::ADD ? (int)n : 1;
      Options::Fault f = kind == Options::ADD ? Options::OUTSIDE : Options::PART;
      if (kind == Options::SUM) k = (int)(w[j++].w & ~Options::KIND);
      const int stored = k < 8 ? k : 8;
      long long c[8];
      for (int t = 0; t < stored; t++) c[t] = (long long)w[j + t].w;
      uint64_t i;
      if (!o.index(c, k, i)) {
        bad(f, w + j, k);
        i = 0;
      }
      j += (uint64_t)stored;
      if (folds(i)) {
        x ^= hot.values[i];
      } else {
        all = false;
      }
      kept.push_back(i);
      parts++;
    }
    if (parts == 0 && keep_empty) all = false;
    if (all) {
      base()[x] = stamp;
      kept.resize(head);
    } else {
      kept[head] = parts;
      unfolded++;
    }
  }
}

/* A new stamp: the marks of the positions before no longer count. */
inline void Run::next_stamp() {
  if ((Mark)++hot.stamp == 0) {
    for (Mark &m : marks) m = 0;
    hot.stamp = 1;
  }
}

/* Once moves() has returned (its options within the buffer): checks and folds the options it
 * buffered; false (with the call's error set) where it faulted. */
inline bool Run::settle(struct sgtab_call *call) {
  fault = o.fault_;
  unfolded = 0;
  kept.clear();
  if (o.npend_ > 0 && fault == Options::NONE && !o.in_sum_) resolve();
  if (fault != Options::NONE || o.in_sum_) {
    call->error = fault_text();
    return false;
  }
  return true;
}

/* Asks moves() for position p (coordinates c), again with a larger buffer where its buffered
 * options overflowed, and resolves them; false (with the call's error set) where it
 * faulted. */
inline bool Run::ask(uint64_t p, long long *c, struct sgtab_call *call) {
  *call->current = p;
  point(p, c);
  for (;;) {
    next_stamp();
    hot.marks = base();
    o.pend_ = pend.data();
    o.cap_ = pend.size();
    o.npend_ = 0;
    o.in_sum_ = false;
    o.fault_ = Options::NONE;
    moves(Pos(c, axes, p), o);
    if (o.npend_ <= o.cap_) break;
    pend.resize(2 * o.npend_);
  }
  return settle(call);
}

inline int Run::summaries(struct sgtab_call *call) {
  prepare(call, call->known);
  uint64_t cap = 1;
  while (cap <= call->vmax) cap <<= 1;
  uint64_t work = 0;
  words.clear();
  long long c[8];
  for (uint64_t n = 0; n < call->count; n++) {
    if (!ask(call->positions[n], c, call)) return 1;
    const uint64_t r = unfolded;
    const Mark stamp = (Mark)hot.stamp;
    const Mark *mk = base();
    uint64_t v = first_gap(mk, stamp); /* the folded options' mex */
    words.push_back(r);
    if (r == 0) {
      words.push_back(v);
      work += v + 1;
      continue;
    }
    words.insert(words.end(), kept.begin(), kept.end());
    /* Within a position: base() stays. */
    if (marks.size() < shift + cap + r + 2) marks.resize(shift + cap + r + 2, 0), mk = base();
    const size_t at = words.size();
    words.resize(at + r + 1);
    uint64_t *gaps = words.data() + at;
    gaps[0] = v++;
    for (uint64_t found = 1; found <= r; v++) {
      gaps[found] = v;
      found += mk[v] != stamp;
    }
    work += v + r;
  }
  call->words = words.data();
  call->nwords = words.size();
  call->options = work;
  return 0;
}

/* Consecutive positions, each from those before it: the plain loop of a table. Per position
 * only what moves() changes is set again (the stamp, the bound, the buffer's count): the
 * buffer, the marks and the fault state stay as the last position left them, and what it
 * buffered or faulted goes the general way (ask, settle). A loop of its own for one axis (a
 * heap game's), where a position is its index. */
inline int Run::values(struct sgtab_call *call) {
  return axes == 1 ? values_of<true>(call) : values_of<false>(call);
}

template <bool ONE>
inline int Run::values_of(struct sgtab_call *call) {
  uint64_t work = 0, cap = 1;
  while (cap <= call->vmax) cap <<= 1;
  uint32_t most = call->vmax;
  long long c[8];
  prepare(call, call->known);
  keep_empty = false;
  uint32_t *fill = call->fill;
  hot.marks = base();
  o.pend_ = pend.data();
  o.cap_ = pend.size();
  o.in_sum_ = false;
  o.fault_ = Options::NONE;
  for (uint64_t n = 0; n < call->count; n++) {
    const uint64_t p = call->positions[n];
    /* Every position before p is known: the table's, or this call's (the bound the fast
     * paths read; hot.known1 stays 0 for a shape of several axes, hot.known is not read for
     * one axis). */
    if (ONE) {
      hot.known1 = p;
      c[0] = (long long)p;
    } else {
      hot.known = p;
      point(p, c);
    }
    *call->current = p;
    next_stamp();
    o.npend_ = 0;
    moves(Pos(c, ONE ? 1 : axes, p), o);
    if (__builtin_expect(o.npend_ != 0 || o.fault_ != Options::NONE || o.in_sum_, 0)) {
      known = p;
      if (!(o.npend_ > o.cap_ ? ask(p, c, call) : settle(call))) return 1;
      if (unfolded > 0) {
        /* An option naming a position at or past p: the first such position. */
        call->stop_at = p;
        call->stop_option = p;
        for (uint64_t j = 0, found = 0; j < kept.size() && !found; j += 1 + kept[j]) {
          for (uint64_t t = 1; t <= kept[j] && !found; t++) {
            if (kept[j + t] >= p) call->stop_option = kept[j + t], found = 1;
          }
        }
        return 2;
      }
    }
    const Mark stamp = (Mark)hot.stamp;
    const Mark *mk = base();
    const uint64_t v = first_gap(mk, stamp);
    fill[p] = (uint32_t)v;
    most = most < v ? (uint32_t)v : most;
    work += v + 1;
    if (__builtin_expect(v >= cap, 0)) {
      while (cap <= v) cap <<= 1;
      grow(cap + 2);
      hot.marks = base();
    }
  }
  call->options = work;
  call->vmax = most;
  return 0;
}

}  // namespace detail
}  // namespace sgtab

#pragma GCC visibility pop

extern "C" __attribute__((visibility("default"))) int sgtab_call(struct sgtab_call *call) {
  using namespace sgtab::detail;
  call->error = nullptr;
  Run *made = this_run();
  if (!made) {
    call->error = "out of memory for the library's buffers";
    return 1;
  }
  Run &r = *made;
  auto &error_text = r.error_text; /* an array: sizeof is its size */
  if (call->abi != SGTAB_ABI) {
    snprintf(error_text, sizeof error_text, "the library speaks version %d of sgtab's interface, sgtab asked for %u", SGTAB_ABI, call->abi);
    call->error = error_text;
    return 1;
  }
  try {
    if (r.axes == 0 || call->what == SGTAB_SHAPE) {
      sgtab::Shape s = shape();
      if (s.n < 1 || s.n > 8) {
        snprintf(error_text, sizeof error_text, "shape() gives %d sizes; give 1 to 8", s.n);
        call->error = error_text;
        return 1;
      }
      for (int j = 0; j < s.n; j++) {
        if (s.v[j] < 1) {
          snprintf(error_text, sizeof error_text, "shape() gives the size %lld; every size is at least 1", s.v[j]);
          call->error = error_text;
          return 1;
        }
        r.sizes[j] = (uint64_t)s.v[j];
        call->sizes[j] = r.sizes[j];
      }
      r.axes = s.n;
      call->axes = (uint32_t)s.n;
      call->ranked = rank != nullptr;
      call->flags = 3;
      if (call->what == SGTAB_SHAPE) return 0;
    }
    if (call->what == SGTAB_RANKS) {
      if (rank == nullptr) {
        snprintf(error_text, sizeof error_text, "the game defines no rank()");
        call->error = error_text;
        return 1;
      }
      r.ranks.resize(call->count);
      long long c[8];
      for (uint64_t n = 0; n < call->count; n++) {
        const uint64_t p = call->positions[n];
        *call->current = p;
        r.point(p, c);
        r.ranks[n] = rank(sgtab::Pos(c, r.axes, p));
      }
      call->rank_out = r.ranks.data();
      return 0;
    }
    if (call->what == SGTAB_SUMMARIES) return r.summaries(call);
    if (call->what == SGTAB_VALUES) return r.values(call);
    snprintf(error_text, sizeof error_text, "unknown request %u", call->what);
  } catch (const std::exception &e) {
    snprintf(error_text, sizeof error_text, "threw an exception: %s", e.what());
  } catch (...) {
    snprintf(error_text, sizeof error_text, "threw an exception");
  }
  call->error = error_text;
  return 1;
}

#endif /* __cplusplus */
#endif /* SGTAB_H */
