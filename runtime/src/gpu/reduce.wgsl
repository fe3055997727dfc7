// The deterministic sums of shared adjoints (runtime/src/gpu/reduce.rs).
// Each section is one shader; the runtime puts `alias F = f32;` (or f64)
// before it. Every shader runs 256 invocations per workgroup over a grid of
// workgroups that may be two-dimensional (more groups than one dimension
// holds); `t` is the invocation's place in the whole grid.

//- tree
// Sums `src[0..m]` in blocks of 256, each by a fixed binary tree, into
// `dst[block]` (added to it where `accumulate`).
struct P { m: u32, accumulate: u32, pad0: u32, pad1: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> src: array<F>;
@group(0) @binding(2) var<storage, read_write> dst: array<F>;
var<workgroup> s: array<F, 256>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) g: vec3<u32>, @builtin(num_workgroups) ng: vec3<u32>) {
    let block = g.y * ng.x + g.x;
    let i = block * 256u + l;
    var v = F(0);
    if (i < p.m) {
        v = src[i];
    }
    s[l] = v;
    workgroupBarrier();
    var w = 128u;
    loop {
        if (w == 0u) {
            break;
        }
        if (l < w) {
            s[l] = s[l] + s[l + w];
        }
        workgroupBarrier();
        w = w >> 1u;
    }
    if (l == 0u && block * 256u < p.m) {
        if (p.accumulate != 0u) {
            dst[block] = dst[block] + s[0];
        } else {
            dst[block] = s[0];
        }
    }
}

//- pairs
// The sort's entries: (key, position) for each of the `m` logged
// contributions, then padding that sorts last, up to `total`.
struct P { m: u32, total: u32, pad0: u32, pad1: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read_write> pairs: array<vec2<u32>>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) ng: vec3<u32>) {
    let t = gid.y * ng.x * 256u + gid.x;
    if (t >= p.total) {
        return;
    }
    if (t < p.m) {
        pairs[t] = vec2<u32>(keys[t], t);
    } else {
        pairs[t] = vec2<u32>(0xffffffffu, t);
    }
}

//- bitonic
// One compare-and-swap stage of a bitonic sort of `pairs` (ascending by
// key, then position; all pairs differ, so the result is unique).
struct P { j: u32, k: u32, half: u32, pad0: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> pairs: array<vec2<u32>>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) ng: vec3<u32>) {
    let t = gid.y * ng.x * 256u + gid.x;
    if (t >= p.half) {
        return;
    }
    let j = p.j;
    let l = ((t & ~(j - 1u)) << 1u) | (t & (j - 1u));
    let r = l | j;
    let a = pairs[l];
    let b = pairs[r];
    let up = (l & p.k) == 0u;
    let greater = a.x > b.x || (a.x == b.x && a.y > b.y);
    if (greater == up) {
        pairs[l] = b;
        pairs[r] = a;
    }
}

//- heads
// For each chunk of 256 sorted entries, the sum (in order) of its leading
// run: the entries at its start that share the key of its first entry.
struct P { total: u32, chunks: u32, pad0: u32, pad1: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> pairs: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read> values: array<F>;
@group(0) @binding(3) var<storage, read_write> heads: array<F>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) ng: vec3<u32>) {
    let c = gid.y * ng.x * 256u + gid.x;
    if (c >= p.chunks) {
        return;
    }
    let first = c * 256u;
    let key = pairs[first].x;
    var s = F(0);
    if (key != 0u && key != 0xffffffffu) {
        var q = first;
        loop {
            if (q >= min(first + 256u, p.total)) {
                break;
            }
            let e = pairs[q];
            if (e.x != key) {
                break;
            }
            s = s + values[e.y];
            q = q + 1u;
        }
    }
    heads[c] = s;
}

//- segments
// For each element `t` of the adjoint, its sorted run of entries (key
// t + 1) summed in order of position and added to `dst[t]`: the entries
// up to the end of the run's first chunk one by one, then the leading run
// of each later chunk it reaches (`heads`), so that a run over many chunks
// takes one step per chunk.
struct P { total: u32, len: u32, pad0: u32, pad1: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> pairs: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read> values: array<F>;
@group(0) @binding(3) var<storage, read> heads: array<F>;
@group(0) @binding(4) var<storage, read_write> dst: array<F>;

// The first sorted entry whose key is at least `key`.
fn lower_bound(key: u32) -> u32 {
    var lo = 0u;
    var hi = p.total;
    loop {
        if (lo >= hi) {
            break;
        }
        let mid = (lo + hi) / 2u;
        if (pairs[mid].x < key) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo;
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) ng: vec3<u32>) {
    let t = gid.y * ng.x * 256u + gid.x;
    if (t >= p.len) {
        return;
    }
    let lo = lower_bound(t + 1u);
    let hi = lower_bound(t + 2u);
    if (lo >= hi) {
        return;
    }
    let end = min(hi, (lo / 256u + 1u) * 256u);
    var s = F(0);
    for (var q = lo; q < end; q = q + 1u) {
        s = s + values[pairs[q].y];
    }
    for (var c = lo / 256u + 1u; c * 256u < hi; c = c + 1u) {
        s = s + heads[c];
    }
    dst[t] = dst[t] + s;
}

//- dense
// For an adjoint of at most 64 elements: each block of 256 log entries is
// staged in workgroup memory; invocation l sums, for element l % 64, the
// entries of quarter l / 64 with that key in order, and the four quarter
// sums are added in order into `partials[t * blocks + block]`. A fixed
// order, and 64 steps deep rather than a tree per element.
struct P { m: u32, len: u32, blocks: u32, pad0: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read> values: array<F>;
@group(0) @binding(3) var<storage, read_write> partials: array<F>;
var<workgroup> k: array<u32, 256>;
var<workgroup> v: array<F, 256>;
var<workgroup> q: array<F, 256>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) g: vec3<u32>, @builtin(num_workgroups) ng: vec3<u32>) {
    let block = g.y * ng.x + g.x;
    let i = block * 256u + l;
    k[l] = 0u;
    v[l] = F(0);
    if (i < p.m) {
        k[l] = keys[i];
        v[l] = values[i];
    }
    workgroupBarrier();
    let t = l & 63u;
    let first = (l >> 6u) * 64u;
    var sum = F(0);
    for (var j = first; j < first + 64u; j = j + 1u) {
        if (k[j] == t + 1u) {
            sum = sum + v[j];
        }
    }
    q[l] = sum;
    workgroupBarrier();
    if (l < p.len && block < p.blocks) {
        partials[l * p.blocks + block] = ((q[l] + q[l + 64u]) + q[l + 128u]) + q[l + 192u];
    }
}

//- rows
// Adds to each element t of a small adjoint its blocks' partial sums, in
// block order.
struct P { len: u32, blocks: u32, pad0: u32, pad1: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> partials: array<F>;
@group(0) @binding(2) var<storage, read_write> dst: array<F>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) ng: vec3<u32>) {
    let t = gid.y * ng.x * 256u + gid.x;
    if (t >= p.len) {
        return;
    }
    var s = F(0);
    for (var b = 0u; b < p.blocks; b = b + 1u) {
        s = s + partials[t * p.blocks + b];
    }
    dst[t] = dst[t] + s;
}
