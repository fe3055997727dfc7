//! Binding a kernel's arguments and queueing it: the uniform block, the
//! storage buffers (views at offsets the device cannot bind go through a
//! scratch buffer, copied in and out on the device), the dispatches, and
//! the deterministic sums of shared adjoints after them. Nothing here waits
//! for the device.

use std::sync::Arc;

use super::array::{DeviceSlice, new_buffer};
use super::bound::{Bound, whole};
use super::{Gpu, GpuError, GpuScalar, Inner, Kernel, Reduce, reduce};

/// One array argument of a launch.
struct Arg {
    name: &'static str,
    gpu: Arc<Inner>,
    buffer: Arc<wgpu::Buffer>,
    offset: u64,
    size: u64,
    /// Elements, and bytes each.
    len: usize,
    elem: u64,
    writable: bool,
}

/// The arguments of one launch, in the order of the kernel's parameters:
/// scalars go to the uniform block, arrays to storage buffers.
pub struct Launch {
    uniform: Vec<u8>,
    arrays: Vec<Arg>,
}

impl Default for Launch {
    fn default() -> Self {
        Launch::new()
    }
}

impl Launch {
    pub fn new() -> Launch {
        // `n` and the first index, filled in per dispatch.
        Launch {
            uniform: vec![0; 8],
            arrays: Vec::new(),
        }
    }

    /// Appends a scalar to the uniform block, aligned to its size.
    pub fn scalar<S: GpuScalar>(&mut self, v: S) -> Result<(), GpuError> {
        while !self.uniform.len().is_multiple_of(S::SIZE) {
            self.uniform.push(0);
        }
        v.put(&mut self.uniform)
    }

    /// The next array argument, which the kernel only reads.
    pub fn array<T: GpuScalar>(&mut self, name: &'static str, a: &DeviceSlice<T>) {
        self.push(name, a, false);
    }

    /// The next array argument, which the kernel may change.
    pub fn array_mut<T: GpuScalar>(&mut self, name: &'static str, a: &mut DeviceSlice<T>) {
        self.push(name, a, true);
    }

    fn push<T: GpuScalar>(&mut self, name: &'static str, a: &DeviceSlice<T>, writable: bool) {
        let (offset, size) = a.bytes();
        self.arrays.push(Arg {
            name,
            gpu: a.gpu.clone(),
            buffer: a.buffer.clone(),
            offset,
            size,
            len: a.len,
            elem: T::SIZE as u64,
            writable,
        });
    }
}

/// The length checks of generated launchers: `argument` must have
/// `expected` elements.
pub fn expect_len(
    kernel: &'static str,
    argument: &'static str,
    found: usize,
    expected: usize,
    why: &'static str,
) -> Result<(), GpuError> {
    if found == expected {
        Ok(())
    } else {
        Err(GpuError::Length {
            kernel,
            argument,
            expected,
            found,
            why,
        })
    }
}

/// Scratch buffers: those free for the next launch, and those lent to the
/// launch being recorded.
#[derive(Default)]
pub(super) struct Pool {
    free: Vec<Arc<wgpu::Buffer>>,
    lent: Vec<Arc<wgpu::Buffer>>,
}

/// Free scratch buffers kept at most.
const POOL: usize = 64;

impl Gpu {
    /// A storage buffer of at least `bytes` for the launch being recorded:
    /// one from the pool where one fits, else a new one. Commands run in
    /// the order recorded and wgpu orders the accesses between them, so a
    /// buffer lent to one launch may serve the next as soon as the first
    /// is recorded ([`Gpu::return_scratch`]). Sizes are powers of two, so
    /// that launches of similar sizes share buffers.
    pub(super) fn storage(&self, bytes: u64) -> Arc<wgpu::Buffer> {
        let exact = bytes.max(16).next_multiple_of(16);
        let class = exact.next_power_of_two();
        let size = if class <= self.inner.device.limits().max_buffer_size {
            class
        } else {
            exact
        };
        let Ok(mut pool) = self.scratch.lock() else {
            return Arc::new(new_buffer(&self.inner, size));
        };
        let buffer = match pool.free.iter().position(|b| b.size() == size) {
            Some(i) => pool.free.swap_remove(i),
            None => Arc::new(new_buffer(&self.inner, size)),
        };
        pool.lent.push(buffer.clone());
        buffer
    }

    /// Returns the buffers lent since the last return to the pool, which
    /// keeps at most [`POOL`] of them (the newest).
    fn return_scratch(&self) {
        if let Ok(mut pool) = self.scratch.lock() {
            let lent = std::mem::take(&mut pool.lent);
            pool.free.extend(lent);
            let extra = pool.free.len().saturating_sub(POOL);
            pool.free.drain(..extra);
        }
    }

    /// A bind group of `layout`: the uniform block `params` at binding 0,
    /// then `buffers` at bindings 1, 2, ...
    pub(super) fn bind_group(
        &self,
        layout: &wgpu::BindGroupLayout,
        params: &[u8],
        buffers: &[&Bound],
    ) -> wgpu::BindGroup {
        let uniform = self.uniform(params);
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: uniform.as_entire_binding(),
        }];
        for (i, b) in buffers.iter().enumerate() {
            entries.push(wgpu::BindGroupEntry {
                binding: i as u32 + 1,
                resource: b.binding(),
            });
        }
        self.inner
            .device
            .create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout,
                entries: &entries,
            })
    }

    fn uniform(&self, block: &[u8]) -> wgpu::Buffer {
        let mut block = block.to_vec();
        block.resize(block.len().max(16).next_multiple_of(16), 0);
        let buffer = self.inner.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: block.len() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.inner.queue.write_buffer(&buffer, 0, &block);
        buffer
    }

    /// Queues `kernel` over invocations `0..n` with `args` (and the sums of
    /// its shared adjoints after it), without waiting.
    pub fn run(&self, kernel: &Kernel, n: usize, args: Launch) -> Result<(), GpuError> {
        self.supports(kernel)?;
        self.inner.check()?;
        for a in &args.arrays {
            if !Arc::ptr_eq(&a.gpu, &self.inner) {
                return Err(GpuError::WrongDevice {
                    kernel: kernel.name,
                    argument: a.name,
                });
            }
        }
        if n == 0 {
            return Ok(());
        }
        let n32 = u32::try_from(n).map_err(|_| GpuError::OutOfRange {
            what: format!("{n} invocations: at most {} in one launch", u32::MAX),
        })?;
        let mut read_only = Vec::new();
        for (i, a) in args.arrays.iter().enumerate() {
            match kernel.reduce_of(i) {
                None => read_only.push(!a.writable),
                Some(Reduce::Slots { .. }) => read_only.push(false),
                Some(Reduce::Log { .. }) => read_only.extend([false, false]),
            }
        }
        let pipeline = self.pipeline_for(kernel.name, kernel.wgsl, "", Some(&read_only))?;
        self.inner.record(Some(kernel.name), |encoder| {
            let r = self.encode(kernel, n32, &args, &pipeline, encoder);
            self.return_scratch();
            r
        })
    }

    /// Records `kernel`'s dispatches and sums into `encoder`.
    fn encode(
        &self,
        kernel: &Kernel,
        n32: u32,
        args: &Launch,
        pipeline: &wgpu::ComputePipeline,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<(), GpuError> {
        let n = n32 as usize;
        let layout = pipeline.get_bind_group_layout(0);

        // Each argument as bound, and the copies back of scratch ones.
        let align = self.inner.storage_align;
        let mut bound = Vec::with_capacity(args.arrays.len());
        let mut copy_back = Vec::new();
        for a in &args.arrays {
            if a.size > 0 && a.offset.is_multiple_of(align) {
                bound.push(Bound {
                    buffer: a.buffer.clone(),
                    offset: a.offset,
                    size: a.size,
                });
            } else {
                let tmp = self.storage(a.size);
                if a.size > 0 {
                    encoder.copy_buffer_to_buffer(&a.buffer, a.offset, &tmp, 0, a.size);
                    if a.writable {
                        copy_back.push((tmp.clone(), a.buffer.clone(), a.offset, a.size));
                    }
                }
                bound.push(Bound {
                    buffer: tmp,
                    offset: 0,
                    size: a.size.max(16),
                });
            }
        }

        // The shader's bindings: each argument, or the per-invocation slots
        // that stand in for a shared adjoint.
        let mut resources: Vec<Bound> = Vec::new();
        let mut sums = Vec::new();
        for (i, b) in bound.iter().enumerate() {
            let elem = args.arrays[i].elem;
            match kernel.reduce_of(i) {
                None => resources.push(b.clone()),
                Some(Reduce::Slots { .. }) => {
                    let slots = self.storage(n as u64 * elem);
                    resources.push(whole(&slots, n as u64 * elem));
                    sums.push(reduce::Sum::Slots { slots, target: i });
                }
                Some(Reduce::Log { per_invocation, .. }) => {
                    let entries = n as u64 * u64::from(*per_invocation);
                    let keys = self.storage(entries * 4);
                    let values = self.storage(entries * elem);
                    // Slots a branch not taken leaves keep key 0 (none).
                    encoder.clear_buffer(&keys, 0, Some(entries * 4));
                    resources.push(whole(&keys, entries * 4));
                    resources.push(whole(&values, entries * elem));
                    sums.push(reduce::Sum::Log {
                        keys,
                        values,
                        entries,
                        target: i,
                    });
                }
            }
        }

        let resources: Vec<&Bound> = resources.iter().collect();
        let wg = kernel.workgroup_size.max(1);
        let groups = n32.div_ceil(wg);
        let mut first_group = 0u32;
        let mut bind_groups = Vec::new();
        while first_group < groups {
            let count = (groups - first_group).min(self.max_groups);
            let mut block = args.uniform.clone();
            block[0..4].copy_from_slice(&n32.to_le_bytes());
            block[4..8].copy_from_slice(&(first_group * wg).to_le_bytes());
            bind_groups.push((self.bind_group(&layout, &block, &resources), count));
            first_group += count;
        }
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(pipeline);
            for (bind_group, count) in &bind_groups {
                pass.set_bind_group(0, bind_group, &[]);
                pass.dispatch_workgroups(*count, 1, 1);
            }
        }
        for sum in sums {
            let f64 = args.arrays[sum.target()].elem == 8;
            let target = &bound[sum.target()];
            let len = args.arrays[sum.target()].len;
            reduce::encode(self, encoder, sum, target, len, n32, f64)?;
        }
        for (tmp, buffer, offset, size) in &copy_back {
            encoder.copy_buffer_to_buffer(tmp, 0, buffer, *offset, *size);
        }
        Ok(())
    }
}
