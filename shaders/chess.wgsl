// Chess rows, one layer per dispatch: thread t of the layer finds its row by unranking t,
// takes the mex of its options' values (all in lower layers, already final) and ORs it into the
// packed table. See src/engine/gpu/schedule.rs for the layers and the unranking.
//
// Values are packed 5 bits each, LSB first: row r's value is bits [5r, 5r+5) of its binding's
// u32 words and may straddle two words. A table too large for one binding is split over four
// bindings of 2^chunk_shift rows each (unused ones are tiny placeholders); a binding then holds a
// multiple of 32 rows, so no value straddles two bindings. The pipeline for one-binding tables
// (SPLIT false) reads and writes values0 only, without the switch.
//
// The table starts zeroed and rows of one layer own disjoint bits, so atomicOr writes each
// value exactly once.

struct Layer {
    excess: u32,
    members: u32,
    width: u32,
    chunk_shift: u32,
    // ends[c]: rows of this layer with popcount <= c, as 9 vec4s (uniform array stride 16).
    ends: array<vec4<u32>, 9>,
}

@group(0) @binding(0) var<uniform> layer: Layer;
// N(n, c, d) at (n * (width + 1) + c) * (width * width / 4 + 1) + d.
@group(0) @binding(1) var<storage, read> counts: array<u32>;
@group(0) @binding(2) var<storage, read_write> values0: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> values1: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> values2: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> values3: array<atomic<u32>>;

const WORKGROUP: u32 = 64u;

// Whether the table spans several bindings (the host builds a pipeline for each case).
override SPLIT: bool;

fn load_word(chunk: u32, i: u32) -> u32 {
    if !SPLIT {
        return atomicLoad(&values0[i]);
    }
    switch chunk {
        case 0u: { return atomicLoad(&values0[i]); }
        case 1u: { return atomicLoad(&values1[i]); }
        case 2u: { return atomicLoad(&values2[i]); }
        default: { return atomicLoad(&values3[i]); }
    }
}

fn or_word(chunk: u32, i: u32, bits: u32) {
    if !SPLIT {
        atomicOr(&values0[i], bits);
        return;
    }
    switch chunk {
        case 0u: { atomicOr(&values0[i], bits); }
        case 1u: { atomicOr(&values1[i], bits); }
        case 2u: { atomicOr(&values2[i], bits); }
        default: { atomicOr(&values3[i], bits); }
    }
}

// Where row's value lives: binding, word, bit in the word. 5·row can pass 2^32, so the word is
// worked out per block of 32 rows (5 words).
struct Place {
    chunk: u32,
    word: u32,
    bit: u32,
}

fn place(row: u32) -> Place {
    let local = row & ((1u << layer.chunk_shift) - 1u);
    let in_block = (local & 31u) * 5u;
    return Place(row >> layer.chunk_shift, (local >> 5u) * 5u + (in_block >> 5u), in_block & 31u);
}

fn value_of(row: u32) -> u32 {
    let p = place(row);
    var v = load_word(p.chunk, p.word) >> p.bit;
    if p.bit > 27u {
        v |= load_word(p.chunk, p.word + 1u) << (32u - p.bit);
    }
    return v & 31u;
}

fn store_value(row: u32, v: u32) {
    if v == 0u {
        return;
    }
    let p = place(row);
    or_word(p.chunk, p.word, v << p.bit);
    if p.bit > 27u {
        or_word(p.chunk, p.word + 1u, v >> (32u - p.bit));
    }
}

fn end_of(c: u32) -> u32 {
    return layer.ends[c >> 2u][c & 3u];
}

// The t-th row of this layer.
fn unrank(t: u32) -> u32 {
    var c = 0u;
    while t >= end_of(c) {
        c += 1u;
    }
    var r = t;
    if c > 0u {
        r -= end_of(c - 1u);
    }
    let w = layer.width;
    let d_len = w * w / 4u + 1u;
    var d = layer.excess;
    var n = w;
    var row = 0u;
    while c > 0u && c < n {
        n -= 1u;
        let without = counts[(n * (w + 1u) + c) * d_len + d];
        if r >= without {
            r -= without;
            row |= 1u << n;
            d -= n + 1u - c;
            c -= 1u;
        }
    }
    if c > 0u {
        row |= 0xffffffffu >> (32u - c);
    }
    return row;
}

// The mex of the values of row's options. A chip on bit i moves to the highest empty bit below
// it; the run of chips on bits 0, 1, … (cleared by row & (row + 1)) cannot move.
fn mex_of_options(row: u32) -> u32 {
    var seen = 0u;
    var chips = row & (row + 1u);
    while chips != 0u {
        let i = firstTrailingBit(chips);
        chips &= chips - 1u;
        let j = firstLeadingBit(~row & ((1u << i) - 1u));
        seen |= 1u << value_of(row ^ (1u << i) ^ (1u << j));
    }
    return countTrailingZeros(~seen);
}

@compute @workgroup_size(WORKGROUP)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let t = (group.y * groups.x + group.x) * WORKGROUP + lane;
    if t >= layer.members {
        return;
    }
    let row = unrank(t);
    store_value(row, mex_of_options(row));
}
