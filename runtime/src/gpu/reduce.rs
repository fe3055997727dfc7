//! The deterministic sums of shared adjoints, queued after a reverse pass
//! ([`super::Reduce`]). Every sum runs in an order fixed by the launch
//! alone (invocation order, a fixed tree), never by the order in which
//! invocations happen to finish, so a gradient is the same bit for bit on
//! every run.
//!
//! - Slots (a scalar parameter's adjoint): one value per invocation, summed
//!   by `tree` in blocks of 256, level after level, the last level added
//!   to the adjoint.
//! - Log (an array read at computed indices): up to `per_invocation`
//!   (index + 1, value) entries per invocation. An adjoint of at most
//!   `DENSE` elements is summed densely: `dense` sums, per block of 256
//!   entries and per element, the block's entries for that element in
//!   entry order (four quarters, then the quarters in order), and `rows`
//!   adds each element's block sums in block order.
//!   A longer one is summed by sorting: `pairs` pairs each key
//!   with its position, `bitonic` sorts the pairs by (key, position) in
//!   log2(N) (log2(N) + 1) / 2 stages, `heads` sums the leading run of
//!   each chunk of 256 sorted entries, and `segments` adds, for each
//!   element of the adjoint, its run of entries in position order (one by
//!   one within its first chunk, a chunk's head at a time after it).
//!
//! The WGSL is `reduce.wgsl`, one section a shader.

use std::sync::Arc;

use super::bound::{Bound, whole};
use super::{Gpu, GpuError};

const SOURCE: &str = include_str!("reduce.wgsl");

fn section(name: &str) -> &'static str {
    let marker = format!("//- {name}\n");
    let start = SOURCE.find(&marker).map_or(0, |i| i + marker.len());
    let end = SOURCE[start..]
        .find("//- ")
        .map_or(SOURCE.len(), |i| start + i);
    &SOURCE[start..end]
}

const WG: u32 = 256;

/// Adjoints of at most this many elements are summed densely (a scan per
/// element and block of entries) rather than by sorting the entries; the
/// `dense` shader has one invocation per element and quarter block.
const DENSE: u32 = 64;

/// A sum to queue after the kernel.
pub(super) enum Sum {
    Slots {
        slots: Arc<wgpu::Buffer>,
        target: usize,
    },
    Log {
        keys: Arc<wgpu::Buffer>,
        values: Arc<wgpu::Buffer>,
        entries: u64,
        target: usize,
    },
}

impl Sum {
    pub fn target(&self) -> usize {
        match self {
            Sum::Slots { target, .. } | Sum::Log { target, .. } => *target,
        }
    }
}

struct Shaders {
    tree: &'static str,
    pairs: &'static str,
    bitonic: &'static str,
    heads: &'static str,
    segments: &'static str,
    dense: &'static str,
    rows: &'static str,
}

fn shaders() -> &'static Shaders {
    static S: std::sync::OnceLock<Shaders> = std::sync::OnceLock::new();
    S.get_or_init(|| Shaders {
        tree: section("tree"),
        pairs: section("pairs"),
        bitonic: section("bitonic"),
        heads: section("heads"),
        dense: section("dense"),
        rows: section("rows"),
        segments: section("segments"),
    })
}

fn prefix(f64: bool) -> &'static str {
    if f64 {
        "alias F = f64;\n"
    } else {
        "alias F = f32;\n"
    }
}

/// Queues one sum into `encoder`; `target` (of `len` elements) is the
/// adjoint as bound for the kernel, `n` the number of invocations.
pub(super) fn encode(
    gpu: &Gpu,
    encoder: &mut wgpu::CommandEncoder,
    sum: Sum,
    target: &Bound,
    len: usize,
    n: u32,
    f64: bool,
) -> Result<(), GpuError> {
    let elem: u64 = if f64 { 8 } else { 4 };
    let s = shaders();
    match sum {
        Sum::Slots { slots, .. } => {
            // Level after level of blocks of 256, into fresh buffers; the
            // last level (one block) adds to the adjoint.
            let mut src = Bound {
                buffer: slots,
                offset: 0,
                size: u64::from(n) * elem,
            };
            let mut m = n;
            loop {
                let blocks = m.div_ceil(WG);
                let last = blocks == 1;
                let dst = if last {
                    target.clone()
                } else {
                    let b = gpu.storage(u64::from(blocks) * elem);
                    Bound {
                        size: b.size(),
                        buffer: b,
                        offset: 0,
                    }
                };
                let params = words(&[m, u32::from(last), 0, 0]);
                dispatch(
                    gpu,
                    encoder,
                    "nilang tree sum",
                    s.tree,
                    f64,
                    &params,
                    &[&src, &dst],
                    blocks,
                )?;
                if last {
                    return Ok(());
                }
                src = dst;
                m = blocks;
            }
        }
        Sum::Log {
            keys,
            values,
            entries,
            ..
        } => {
            // The sort pairs each entry with its position in a power of two.
            let m = u32::try_from(entries)
                .ok()
                .filter(|&m| m <= u32::MAX / 2)
                .ok_or_else(|| GpuError::OutOfRange {
                    what: format!(
                        "{entries} shared-adjoint entries: at most {} in one launch",
                        u32::MAX / 2
                    ),
                })?;
            if m == 0 {
                return Ok(());
            }
            let len32 = u32::try_from(len).unwrap_or(u32::MAX);
            if len32 <= DENSE {
                // Few elements: per block, a scan per element.
                let blocks = m.div_ceil(WG);
                let partials = gpu.storage(u64::from(blocks) * u64::from(len32) * elem);
                let pa_b = whole(&partials, u64::from(blocks) * u64::from(len32) * elem);
                let (k_b, v_b) = (
                    whole(&keys, u64::from(m) * 4),
                    whole(&values, u64::from(m) * elem),
                );
                dispatch(
                    gpu,
                    encoder,
                    "nilang dense sums",
                    s.dense,
                    f64,
                    &words(&[m, len32, blocks, 0]),
                    &[&k_b, &v_b, &pa_b],
                    blocks,
                )?;
                dispatch(
                    gpu,
                    encoder,
                    "nilang row sums",
                    s.rows,
                    f64,
                    &words(&[len32, blocks, 0, 0]),
                    &[&pa_b, target],
                    len32.div_ceil(WG),
                )?;
                return Ok(());
            }
            let total = m.next_power_of_two().max(2);
            let pairs = gpu.storage(u64::from(total) * 8);
            let (k_b, p_b, v_b) = (
                whole(&keys, u64::from(m) * 4),
                whole(&pairs, u64::from(total) * 8),
                whole(&values, u64::from(m) * elem),
            );
            dispatch(
                gpu,
                encoder,
                "nilang sort keys",
                s.pairs,
                f64,
                &words(&[m, total, 0, 0]),
                &[&k_b, &p_b],
                total.div_ceil(WG),
            )?;
            let half = total / 2;
            let mut k = 2;
            while k <= total {
                let mut j = k / 2;
                while j > 0 {
                    dispatch(
                        gpu,
                        encoder,
                        "nilang bitonic stage",
                        s.bitonic,
                        f64,
                        &words(&[j, k, half, 0]),
                        &[&p_b],
                        half.div_ceil(WG),
                    )?;
                    j /= 2;
                }
                k *= 2;
            }
            let chunks = total.div_ceil(WG);
            let heads = gpu.storage(u64::from(chunks) * elem);
            let h_b = whole(&heads, u64::from(chunks) * elem);
            dispatch(
                gpu,
                encoder,
                "nilang chunk heads",
                s.heads,
                f64,
                &words(&[total, chunks, 0, 0]),
                &[&p_b, &v_b, &h_b],
                chunks.div_ceil(WG),
            )?;
            dispatch(
                gpu,
                encoder,
                "nilang segment sums",
                s.segments,
                f64,
                &words(&[total, len32, 0, 0]),
                &[&p_b, &v_b, &h_b, target],
                len32.div_ceil(WG),
            )?;
            Ok(())
        }
    }
}

fn words(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// One dispatch of a reduction shader over `groups` workgroups (laid out
/// in two dimensions where one cannot hold them).
#[allow(clippy::too_many_arguments)]
fn dispatch(
    gpu: &Gpu,
    encoder: &mut wgpu::CommandEncoder,
    name: &str,
    body: &'static str,
    f64: bool,
    params: &[u8],
    buffers: &[&Bound],
    groups: u32,
) -> Result<(), GpuError> {
    if groups == 0 {
        return Ok(());
    }
    let pipeline = gpu.pipeline_for(name, body, prefix(f64), None)?;
    let bind = gpu.bind_group(&pipeline.get_bind_group_layout(0), params, buffers);
    let x = groups.min(gpu.max_groups);
    let y = groups.div_ceil(x);
    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
    pass.set_pipeline(&pipeline);
    pass.set_bind_group(0, &bind, &[]);
    pass.dispatch_workgroups(x, y, 1);
    Ok(())
}
