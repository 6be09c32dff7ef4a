// One anti-diagonal x + y = s of a corner game's board (queen, rook or king on an N×N board),
// one thread a cell. A move lowers x + y, so the cells of one anti-diagonal depend only on
// earlier dispatches, and they share no row, column or diagonal: each line's set and floor is
// touched by one thread of a dispatch at most.
//
// Queen and rook: every line (row, column, queen diagonal) keeps the set of values taken in it
// as a bitset, and its floor (every value below it is taken). A cell's value is the first zero
// of the OR of its lines' sets at or above the highest floor; it then joins the sets, and a
// floor it equals walks up past the taken values. King: the mex of its three neighbours, read
// from the table.
//
// Values are ORed into a zeroed table packed `bits` bits a value, LSB first (the .sgt payload),
// split by rows over up to four bindings: binding k holds board rows [k·R, (k+1)·R), from bit 0.

// 0 queen, 1 rook, 2 king.
override PIECE: u32 = 0u;

const WORKGROUP: u32 = 64u;

struct Diagonal {
    // x + y of this dispatch's cells, its lowest x, and how many cells it has.
    s: u32,
    x_lo: u32,
    count: u32,
    n: u32,
    // Bits a value takes in the table.
    bits: u32,
    // Board rows per table binding (R).
    rows_per_chunk: u32,
    // Lines with sets: rows 0..N, columns N..2N, queen diagonals 2N..4N−1 (index y − x + 3N − 1).
    lines: u32,
    pad: u32,
}

@group(0) @binding(0) var<uniform> d: Diagonal;
// The sets of rows and columns, one run of words a line.
@group(0) @binding(1) var<storage, read_write> row_sets: array<u32>;
// The sets of queen diagonals.
@group(0) @binding(2) var<storage, read_write> diag_sets: array<u32>;
// floors[line] at [line]; the word offset of a line's set (in its buffer) at [lines + line].
@group(0) @binding(3) var<storage, read_write> state: array<u32>;
@group(0) @binding(4) var<storage, read_write> values0: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> values1: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> values2: array<atomic<u32>>;
@group(0) @binding(7) var<storage, read_write> values3: array<atomic<u32>>;

fn or_word(chunk: u32, w: u32, bits: u32) {
    switch chunk {
        case 0u: { atomicOr(&values0[w], bits); }
        case 1u: { atomicOr(&values1[w], bits); }
        case 2u: { atomicOr(&values2[w], bits); }
        default: { atomicOr(&values3[w], bits); }
    }
}

fn load_word(chunk: u32, w: u32) -> u32 {
    switch chunk {
        case 0u: { return atomicLoad(&values0[w]); }
        case 1u: { return atomicLoad(&values1[w]); }
        case 2u: { return atomicLoad(&values2[w]); }
        default: { return atomicLoad(&values3[w]); }
    }
}

// Where cell (x, y) is: its binding, first word and bit within that word. 32 values take
// exactly `bits` words, so no product overflows 32 bits.
fn locate(x: u32, y: u32) -> vec3<u32> {
    let chunk = x / d.rows_per_chunk;
    let local = (x - chunk * d.rows_per_chunk) * d.n + y;
    let within = (local % 32u) * d.bits;
    return vec3<u32>(chunk, (local / 32u) * d.bits + within / 32u, within % 32u);
}

fn store(x: u32, y: u32, v: u32) {
    let at = locate(x, y);
    or_word(at.x, at.y, v << at.z);
    if at.z + d.bits > 32u {
        or_word(at.x, at.y + 1u, v >> (32u - at.z));
    }
}

fn load(x: u32, y: u32) -> u32 {
    let at = locate(x, y);
    var v = load_word(at.x, at.y) >> at.z;
    if at.z + d.bits > 32u {
        v |= load_word(at.x, at.y + 1u) << (32u - at.z);
    }
    return v & ((1u << d.bits) - 1u);
}

// The first free value above `v` in a row or column set at `off` (a set always has one).
//
// Every loop here leaves by its condition and computes its result after the loop, never as
// `x += ...; break;`: Mesa's llvmpipe on OpenGL (22.3) drops an update a lane makes to a loop
// variable on the branch that breaks out while other lanes of its SIMD vector go on looping
// and the loop reads a storage buffer, and wrote 3,354 wrong values of queen:64 that way.
// lavapipe's Vulkan path compiled the same code right. `shaders/corner.wgsl` is held to the
// CPU on both backends in tests/gpu_corner.rs.
fn walk_row_set(off: u32, v: u32) -> u32 {
    var f = v + 1u;
    var zeros = ~row_sets[off + f / 32u] >> (f % 32u);
    while zeros == 0u {
        f = (f | 31u) + 1u;
        zeros = ~row_sets[off + f / 32u];
    }
    return f + countTrailingZeros(zeros);
}

fn walk_diag_set(off: u32, v: u32) -> u32 {
    var f = v + 1u;
    var zeros = ~diag_sets[off + f / 32u] >> (f % 32u);
    while zeros == 0u {
        f = (f | 31u) + 1u;
        zeros = ~diag_sets[off + f / 32u];
    }
    return f + countTrailingZeros(zeros);
}

fn king(x: u32, y: u32) -> u32 {
    var seen = 0u;
    if x > 0u {
        seen |= 1u << load(x - 1u, y);
    }
    if y > 0u {
        seen |= 1u << load(x, y - 1u);
    }
    if x > 0u && y > 0u {
        seen |= 1u << load(x - 1u, y - 1u);
    }
    return countTrailingZeros(~seen);
}

// Word `w` of the OR of a cell's row, column and (queen) diagonal sets.
fn taken_word(ro: u32, co: u32, qo: u32, w: u32) -> u32 {
    var taken = row_sets[ro + w] | row_sets[co + w];
    if PIECE == 0u {
        taken |= diag_sets[qo + w];
    }
    return taken;
}

fn lines_mex(x: u32, y: u32) -> u32 {
    let r = x;
    let c = d.n + y;
    let q = 2u * d.n + y + d.n - 1u - x;
    let queen = PIECE == 0u;
    let fr = state[r];
    let fc = state[c];
    var fq = 0u;
    var start = max(fr, fc);
    let ro = state[d.lines + r];
    let co = state[d.lines + c];
    var qo = 0u;
    if queen {
        fq = state[q];
        qo = state[d.lines + q];
        start = max(start, fq);
    }
    // Every value below `start` is taken in the line whose floor it is. The word holding the
    // first free value, then that value (see `walk_row_set` on why no value is set at a break).
    var w = start / 32u;
    var taken = taken_word(ro, co, qo, w);
    while taken == 0xffffffffu {
        w += 1u;
        taken = taken_word(ro, co, qo, w);
    }
    let v = w * 32u + countTrailingZeros(~taken);
    let bit = 1u << (v % 32u);
    row_sets[ro + v / 32u] |= bit;
    row_sets[co + v / 32u] |= bit;
    if fr == v {
        state[r] = walk_row_set(ro, v);
    }
    if fc == v {
        state[c] = walk_row_set(co, v);
    }
    if queen {
        diag_sets[qo + v / 32u] |= bit;
        if fq == v {
            state[q] = walk_diag_set(qo, v);
        }
    }
    return v;
}

@compute @workgroup_size(WORKGROUP)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if gid.x >= d.count {
        return;
    }
    let x = d.x_lo + gid.x;
    let y = d.s - x;
    var v: u32;
    if PIECE == 2u {
        v = king(x, y);
    } else {
        v = lines_mex(x, y);
    }
    store(x, y, v);
}
