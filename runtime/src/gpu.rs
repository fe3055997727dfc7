//! Launching generated compute kernels with `wgpu` (feature `gpu`).
//!
//! A `@kernel` function of a `.nil` file is compiled to WGSL compute shaders
//! (its call, its uncall and, when it has differentiable parameters, its
//! reverse pass), one per float type. The generated Rust launcher packs the
//! arguments into an [`Args`], asks a [`Gpu`] to run the shader over `n`
//! invocations, and copies what the kernel changed back into the caller's
//! slices.
//!
//! Layout shared with the compiler (`nilang_compiler::codegen::wgsl`):
//! binding 0 is a uniform struct whose first two `u32` fields are the number
//! of invocations and the index of this dispatch's first invocation,
//! followed by the kernel's scalar parameters, each aligned to its size;
//! bindings 1.. are the array parameters (and adjoints), one storage buffer
//! each, in parameter order. Integers are `i32` on the device (values that
//! do not fit are an [`GpuError::OutOfRange`], never a silent wrap), booleans
//! `u32`, floats `f32` or `f64`.
//!
//! More invocations than one dispatch can hold (the device's limit on
//! workgroups per dimension, times the workgroup size) are launched as
//! several dispatches, each with its own first index.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, mpsc};

/// Why a kernel could not run.
#[derive(Clone, Debug, PartialEq)]
pub enum GpuError {
    /// No adapter (GPU or software driver) was found.
    NoAdapter(String),
    /// The kernel needs a device feature the adapter does not offer:
    /// `feature` is wgpu's name of it (`SHADER_F64`).
    MissingFeature {
        kernel: &'static str,
        feature: &'static str,
        why: &'static str,
    },
    /// A kernel that cannot run in this precision (the reason is given).
    Unsupported { kernel: &'static str, why: String },
    /// An argument that does not fit the device's type (`i32`).
    OutOfRange { what: String },
    /// The device refused something (shader, pipeline, mapping).
    Device(String),
}

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuError::NoAdapter(why) => write!(f, "no GPU adapter found: {why}"),
            GpuError::MissingFeature {
                kernel,
                feature,
                why,
            } => write!(
                f,
                "kernel `{kernel}` needs the device feature {feature} ({why}), which this adapter does not offer"
            ),
            GpuError::Unsupported { kernel, why } => write!(f, "kernel `{kernel}`: {why}"),
            GpuError::OutOfRange { what } => write!(f, "{what}"),
            GpuError::Device(why) => write!(f, "GPU error: {why}"),
        }
    }
}

impl std::error::Error for GpuError {}

/// A value as the device stores it.
pub trait GpuScalar: Copy + 'static {
    /// Bytes on the device.
    const SIZE: usize;
    fn put(self, out: &mut Vec<u8>) -> Result<(), GpuError>;
    fn get(bytes: &[u8]) -> Self;
}

/// A float type kernels are generated for.
pub trait GpuFloat: GpuScalar + crate::Real {
    /// Whether this is `f64` (which needs `SHADER_F64`).
    const F64: bool;
}

impl GpuScalar for f32 {
    const SIZE: usize = 4;
    fn put(self, out: &mut Vec<u8>) -> Result<(), GpuError> {
        out.extend_from_slice(&self.to_le_bytes());
        Ok(())
    }
    fn get(b: &[u8]) -> Self {
        f32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
}

impl GpuScalar for f64 {
    const SIZE: usize = 8;
    fn put(self, out: &mut Vec<u8>) -> Result<(), GpuError> {
        out.extend_from_slice(&self.to_le_bytes());
        Ok(())
    }
    fn get(b: &[u8]) -> Self {
        let mut a = [0u8; 8];
        a.copy_from_slice(&b[..8]);
        f64::from_le_bytes(a)
    }
}

impl GpuFloat for f32 {
    const F64: bool = false;
}

impl GpuFloat for f64 {
    const F64: bool = true;
}

macro_rules! int_scalar {
    ($($t:ty),*) => {$(
        impl GpuScalar for $t {
            const SIZE: usize = 4;
            fn put(self, out: &mut Vec<u8>) -> Result<(), GpuError> {
                let v = i32::try_from(self).map_err(|_| GpuError::OutOfRange {
                    what: format!("the integer {self} does not fit the device's i32"),
                })?;
                out.extend_from_slice(&v.to_le_bytes());
                Ok(())
            }
            fn get(b: &[u8]) -> Self {
                let v = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                // Written by the kernel from a value that fitted, or by
                // integer arithmetic the CPU would also have overflowed in.
                <$t>::try_from(v).unwrap_or_default()
            }
        }
    )*};
}
int_scalar!(i64, i32, u32, u64, usize, isize, i16, u16, i8, u8);

impl GpuScalar for bool {
    const SIZE: usize = 4;
    fn put(self, out: &mut Vec<u8>) -> Result<(), GpuError> {
        out.extend_from_slice(&u32::from(self).to_le_bytes());
        Ok(())
    }
    fn get(b: &[u8]) -> Self {
        b[..4] != [0, 0, 0, 0]
    }
}

/// A compiled kernel: its WGSL text and what it needs.
#[derive(Clone, Copy, Debug)]
pub struct Kernel {
    /// The generated Rust function's name, for messages.
    pub name: &'static str,
    pub wgsl: &'static str,
    /// Uses `f64` (needs `SHADER_F64`).
    pub f64: bool,
    /// Uses `atomic<f32>` (needs `SHADER_FLOAT32_ATOMIC`).
    pub float_atomics: bool,
    /// `@workgroup_size` of its entry point.
    pub workgroup_size: u32,
}

/// The arguments of one launch: the uniform block and the storage buffers.
#[derive(Clone, Debug)]
pub struct Args {
    uniform: Vec<u8>,
    buffers: Vec<(Vec<u8>, bool)>,
}

impl Default for Args {
    fn default() -> Self {
        Args::new()
    }
}

impl Args {
    pub fn new() -> Args {
        // `n` and the first index, filled in per dispatch.
        Args {
            uniform: vec![0; 8],
            buffers: Vec::new(),
        }
    }

    /// Appends a scalar to the uniform block, aligned to its size.
    pub fn scalar<S: GpuScalar>(&mut self, v: S) -> Result<(), GpuError> {
        while !self.uniform.len().is_multiple_of(S::SIZE) {
            self.uniform.push(0);
        }
        v.put(&mut self.uniform)
    }

    /// Adds an array as the next storage buffer; `writable` ones are read
    /// back after the launch ([`Args::read`]).
    pub fn array<S: GpuScalar>(&mut self, v: &[S], writable: bool) -> Result<(), GpuError> {
        let mut bytes = Vec::with_capacity(v.len() * S::SIZE);
        for &x in v {
            x.put(&mut bytes)?;
        }
        self.buffers.push((bytes, writable));
        Ok(())
    }

    /// Copies storage buffer `i` (after a launch) into `out`, as far as
    /// both reach.
    pub fn read<S: GpuScalar>(&self, i: usize, out: &mut [S]) {
        let Some((bytes, _)) = self.buffers.get(i) else {
            return;
        };
        for (x, chunk) in out.iter_mut().zip(bytes.chunks_exact(S::SIZE)) {
            *x = S::get(chunk);
        }
    }
}

/// A device and queue, with the pipelines compiled so far.
pub struct Gpu {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    f64: bool,
    float_atomics: bool,
    max_groups: u32,
    pipelines: Mutex<HashMap<usize, Arc<wgpu::ComputePipeline>>>,
}

impl fmt::Debug for Gpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gpu")
            .field("adapter", &self.info.name)
            .field("f64", &self.f64)
            .field("float_atomics", &self.float_atomics)
            .finish()
    }
}

impl Gpu {
    /// The first Vulkan adapter (a real GPU before a software one), with
    /// `SHADER_F64` and `SHADER_FLOAT32_ATOMIC` switched on where offered.
    pub fn new() -> Result<Gpu, GpuError> {
        Gpu::with_features(true, true)
    }

    /// Like [`Gpu::new`], asking for `SHADER_F64` and
    /// `SHADER_FLOAT32_ATOMIC` only where allowed here (to try the paths
    /// taken on adapters without them).
    pub fn with_features(f64: bool, float_atomics: bool) -> Result<Gpu, GpuError> {
        pollster::block_on(Gpu::new_async(f64, float_atomics))
    }

    async fn new_async(allow_f64: bool, allow_atomics: bool) -> Result<Gpu, GpuError> {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = wgpu::Backends::VULKAN;
        let instance = wgpu::Instance::new(desc);
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                force_fallback_adapter: false,
                compatible_surface: None,
                ..Default::default()
            })
            .await
            .map_err(|e| GpuError::NoAdapter(e.to_string()))?;
        let offered = adapter.features();
        let mut wanted = wgpu::Features::empty();
        if allow_f64 {
            wanted |= wgpu::Features::SHADER_F64;
        }
        if allow_atomics {
            wanted |= wgpu::Features::SHADER_FLOAT32_ATOMIC;
        }
        let features = offered & wanted;
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("nilang"),
                required_features: features,
                required_limits: adapter.limits(),
                ..Default::default()
            })
            .await
            .map_err(|e| GpuError::Device(e.to_string()))?;
        let max_groups = device.limits().max_compute_workgroups_per_dimension.max(1);
        Ok(Gpu {
            info: adapter.get_info(),
            f64: features.contains(wgpu::Features::SHADER_F64),
            float_atomics: features.contains(wgpu::Features::SHADER_FLOAT32_ATOMIC),
            max_groups,
            pipelines: Mutex::new(HashMap::new()),
            device,
            queue,
        })
    }

    /// The adapter's name and driver, e.g. `llvmpipe (LLVM 15.0.6, 256 bits)`.
    pub fn adapter_name(&self) -> String {
        format!(
            "{} ({:?}, {})",
            self.info.name, self.info.device_type, self.info.driver
        )
    }

    /// Whether `f64` kernels can run (`SHADER_F64`).
    pub fn has_f64(&self) -> bool {
        self.f64
    }

    /// Whether `atomic<f32>` adds are native (`SHADER_FLOAT32_ATOMIC`).
    pub fn has_float_atomics(&self) -> bool {
        self.float_atomics
    }

    /// Limits the workgroups of one dispatch (at most the device's limit),
    /// so that tests can force a launch into several dispatches.
    pub fn set_max_workgroups(&mut self, n: u32) {
        let limit = self.device.limits().max_compute_workgroups_per_dimension;
        self.max_groups = n.clamp(1, limit.max(1));
    }

    /// Checks that `kernel`'s features are there.
    pub fn supports(&self, kernel: &Kernel) -> Result<(), GpuError> {
        if kernel.f64 && !self.f64 {
            return Err(GpuError::MissingFeature {
                kernel: kernel.name,
                feature: "SHADER_F64",
                why: "64-bit floats in shaders",
            });
        }
        if kernel.float_atomics && !self.float_atomics {
            return Err(GpuError::MissingFeature {
                kernel: kernel.name,
                feature: "SHADER_FLOAT32_ATOMIC",
                why: "atomic adds of f32",
            });
        }
        Ok(())
    }

    fn pipeline(&self, kernel: &Kernel) -> Result<Arc<wgpu::ComputePipeline>, GpuError> {
        let key = kernel.wgsl.as_ptr() as usize;
        let mut cache = self
            .pipelines
            .lock()
            .map_err(|_| GpuError::Device("pipeline cache poisoned".into()))?;
        if let Some(p) = cache.get(&key) {
            return Ok(p.clone());
        }
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = self
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(kernel.name),
                source: wgpu::ShaderSource::Wgsl(kernel.wgsl.into()),
            });
        let pipeline = self
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(kernel.name),
                layout: None,
                module: &module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(GpuError::Device(format!("kernel `{}`: {e}", kernel.name)));
        }
        let pipeline = Arc::new(pipeline);
        cache.insert(key, pipeline.clone());
        Ok(pipeline)
    }

    /// Runs `kernel` over invocations `0..n` and reads the writable buffers
    /// back into `args`.
    pub fn launch(&self, kernel: &Kernel, n: usize, args: &mut Args) -> Result<(), GpuError> {
        self.supports(kernel)?;
        if n == 0 {
            return Ok(());
        }
        let n = u32::try_from(n).map_err(|_| GpuError::OutOfRange {
            what: format!("{n} invocations: at most {} in one launch", u32::MAX),
        })?;
        let pipeline = self.pipeline(kernel)?;
        let layout = pipeline.get_bind_group_layout(0);
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        let storage: Vec<wgpu::Buffer> = args
            .buffers
            .iter()
            .map(|(bytes, _)| {
                // Bindings may not be empty; sizes are multiples of 4.
                let size = (bytes.len().max(16) as u64).next_multiple_of(16);
                let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: None,
                    size,
                    usage,
                    mapped_at_creation: false,
                });
                if !bytes.is_empty() {
                    let mut padded = bytes.clone();
                    padded.resize(bytes.len().next_multiple_of(4), 0);
                    self.queue.write_buffer(&buffer, 0, &padded);
                }
                buffer
            })
            .collect();
        let wg = kernel.workgroup_size.max(1);
        let groups = n.div_ceil(wg);
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        let mut first_group = 0u32;
        let mut uniforms = Vec::new();
        let mut bind_groups = Vec::new();
        while first_group < groups {
            let count = (groups - first_group).min(self.max_groups);
            let mut block = args.uniform.clone();
            block[0..4].copy_from_slice(&n.to_le_bytes());
            block[4..8].copy_from_slice(&(first_group * wg).to_le_bytes());
            block.resize(block.len().next_multiple_of(16), 0);
            let uniform = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: block.len() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            self.queue.write_buffer(&uniform, 0, &block);
            let mut entries = vec![wgpu::BindGroupEntry {
                binding: 0,
                resource: uniform.as_entire_binding(),
            }];
            for (i, b) in storage.iter().enumerate() {
                entries.push(wgpu::BindGroupEntry {
                    binding: i as u32 + 1,
                    resource: b.as_entire_binding(),
                });
            }
            bind_groups.push((
                self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: None,
                    layout: &layout,
                    entries: &entries,
                }),
                count,
            ));
            uniforms.push(uniform);
            first_group += count;
        }
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(&pipeline);
            for (bind_group, count) in &bind_groups {
                pass.set_bind_group(0, bind_group, &[]);
                pass.dispatch_workgroups(*count, 1, 1);
            }
        }
        let mut staging = Vec::new();
        for (i, (bytes, writable)) in args.buffers.iter().enumerate() {
            if !*writable || bytes.is_empty() {
                continue;
            }
            let size = (bytes.len() as u64).next_multiple_of(4);
            let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            encoder.copy_buffer_to_buffer(&storage[i], 0, &buffer, 0, size);
            staging.push((i, buffer));
        }
        self.queue.submit([encoder.finish()]);
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(GpuError::Device(format!("kernel `{}`: {e}", kernel.name)));
        }
        let (tx, rx) = mpsc::channel();
        for (i, buffer) in &staging {
            let tx = tx.clone();
            let i = *i;
            buffer.map_async(wgpu::MapMode::Read, .., move |r| {
                let _ = tx.send((i, r));
            });
        }
        drop(tx);
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| GpuError::Device(e.to_string()))?;
        for (i, r) in rx.iter() {
            r.map_err(|e| GpuError::Device(format!("reading buffer {i} back: {e}")))?;
        }
        for (i, buffer) in &staging {
            {
                let view = buffer
                    .get_mapped_range(..)
                    .map_err(|e| GpuError::Device(e.to_string()))?;
                let len = args.buffers[*i].0.len();
                args.buffers[*i].0.copy_from_slice(&view[..len]);
            }
            buffer.unmap();
        }
        Ok(())
    }
}
