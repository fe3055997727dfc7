//! Running generated compute kernels with `wgpu` (feature `gpu`).
//!
//! A `@kernel` function of a `.nil` file is compiled to WGSL compute shaders
//! (its call, its uncall and, when it has differentiable parameters, its
//! reverse pass), one per float type. Each gets two Rust launchers:
//!
//! - `name_device(gpu, n, ...)` takes [`DeviceSlice`]s (a [`DeviceArray`]
//!   or a view of one) and queues the kernel without waiting, so that
//!   kernels chain on the device with no copy to the host in between;
//!   reading an array back ([`DeviceSlice::read`]) waits for what was
//!   queued before it;
//! - `name_gpu(gpu, n, ...)` takes slices: it uploads them, runs the device
//!   launcher and reads back what the kernel changed, in one wait.
//!
//! Layout shared with the compiler (`nilang_codegen::wgsl`): binding 0 is
//! a uniform struct whose first two `u32` fields are the number of
//! invocations and the index of this dispatch's first invocation, followed
//! by the kernel's scalar parameters, each aligned to its size; bindings
//! 1.. are the array arguments in order, one storage buffer each, except
//! the shared adjoints of a deterministic reverse pass ([`Reduce`]), which
//! the shader writes per invocation and [`reduce`] sums afterwards.
//!
//! More invocations than one dispatch can hold (the device's limit on
//! workgroups per dimension, times the workgroup size) are launched as
//! several dispatches, each with its own first index.
//!
//! Files: `scalar` (host values as the device stores them), `array`
//! (device-resident arrays, views, reading back), `launch` (binding
//! arguments and queueing a kernel), `reduce` (the deterministic sums of
//! shared adjoints, with their WGSL).

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

mod array;
mod bound;
mod launch;
mod reduce;
mod scalar;

pub use array::{DeviceArray, DeviceSlice, Readback, View, ViewMut};
pub use launch::{Launch, expect_len};
pub use scalar::{GpuFloat, GpuScalar};

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
    /// An array argument whose length does not match the one it must have.
    Length {
        kernel: &'static str,
        argument: &'static str,
        expected: usize,
        found: usize,
        why: &'static str,
    },
    /// An array that lives on another device than the one launching.
    WrongDevice {
        kernel: &'static str,
        argument: &'static str,
    },
    /// The device was lost (driver reset, device destroyed): nothing more
    /// can run on this [`Gpu`]; open a new one.
    DeviceLost(String),
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
            GpuError::Length {
                kernel,
                argument,
                expected,
                found,
                why,
            } => write!(
                f,
                "kernel `{kernel}`: argument `{argument}` has {found} elements, expected {expected} ({why})"
            ),
            GpuError::WrongDevice { kernel, argument } => write!(
                f,
                "kernel `{kernel}`: argument `{argument}` lives on another device than the one launching it"
            ),
            GpuError::DeviceLost(why) => write!(f, "the GPU device was lost: {why}"),
            GpuError::Device(why) => write!(f, "GPU error: {why}"),
        }
    }
}

impl std::error::Error for GpuError {}

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
    /// The array arguments whose adjoints the shader leaves per invocation,
    /// to be summed in a fixed order after it ([`Reduce`]).
    pub reduce: &'static [Reduce],
}

impl Kernel {
    /// The sum that stands in for array argument `i`, if one does.
    pub(super) fn reduce_of(&self, i: usize) -> Option<&Reduce> {
        self.reduce.iter().find(|r| match **r {
            Reduce::Slots { arg } | Reduce::Log { arg, .. } => arg == i,
        })
    }
}

/// A shared adjoint of a deterministic reverse pass: instead of adding to
/// array argument `arg` (counted among the array arguments, from 0), the
/// shader writes each invocation's contributions to slots of its own, and
/// the runtime sums them in a fixed order into the argument afterwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduce {
    /// A one-element adjoint (of a scalar parameter): the shader binds one
    /// value per invocation in its place, which a tree sums.
    Slots { arg: usize },
    /// An array adjoint added to at computed indices: the shader binds, in
    /// its place, `per_invocation` (index + 1, 0 for none) keys per
    /// invocation and as many values; the runtime sorts the entries by
    /// (index, invocation) and sums each index's run in that order.
    Log { arg: usize, per_invocation: u32 },
}

/// How the reverse pass of a kernel sums adjoints that several
/// invocations add to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Reduction {
    /// Per-invocation slots summed in a fixed order: the same gradient
    /// bit for bit on every run, in `f32` and `f64`.
    #[default]
    Deterministic,
    /// Atomic adds (`atomicAdd` where the device has
    /// `SHADER_FLOAT32_ATOMIC`, else a compare-and-swap loop): `f32` only,
    /// summed in whatever order the invocations arrive. `f64` kernels use
    /// the deterministic sums whatever this says.
    Atomic,
}

struct Inner {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    lost: Arc<Mutex<Option<String>>>,
    errors: Arc<Mutex<Vec<String>>>,
    storage_align: u64,
    /// Commands recorded and not yet submitted ([`Inner::record`]).
    pending: Mutex<Pending>,
    /// Arrays and bytes copied each way ([`Gpu::transfers`]).
    uploads: AtomicU64,
    upload_bytes: AtomicU64,
    downloads: AtomicU64,
    download_bytes: AtomicU64,
}

/// Launches, clears and copies recorded into one command encoder, which is
/// submitted when something waits, before a host write to a buffer they
/// may use, and every [`BATCH`] commands: one submission per batch rather
/// than one per launch (a submission costs tens of microseconds on a real
/// GPU, more than a small kernel runs).
#[derive(Default)]
struct Pending {
    encoder: Option<wgpu::CommandEncoder>,
    commands: usize,
    /// The kernels in the batch, to name in an error the batch raises.
    kernels: Vec<&'static str>,
}

/// Commands recorded before the batch is submitted regardless.
const BATCH: usize = 256;

/// Copies between host and device since the [`Gpu`] was opened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Transfers {
    /// Arrays written to the device, and their bytes.
    pub uploads: u64,
    pub upload_bytes: u64,
    /// Arrays read back to the host, and their bytes.
    pub downloads: u64,
    pub download_bytes: u64,
}

/// A device and queue, with the pipelines compiled so far.
pub struct Gpu {
    inner: Arc<Inner>,
    f64: bool,
    float_atomics: bool,
    max_groups: u32,
    reduction: Reduction,
    pipelines: Mutex<HashMap<(usize, usize), Arc<wgpu::ComputePipeline>>>,
    /// Scratch buffers of launches and sums, kept for the next launch.
    scratch: Mutex<launch::Pool>,
}

impl fmt::Debug for Gpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gpu")
            .field("adapter", &self.inner.info.name)
            .field("f64", &self.f64)
            .field("float_atomics", &self.float_atomics)
            .field("reduction", &self.reduction)
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
        // A lost device and errors no scope caught are recorded, to be
        // returned by the next call, instead of wgpu's default (a panic).
        let lost = Arc::new(Mutex::new(None));
        let lost_in = lost.clone();
        device.set_device_lost_callback(move |reason, message| {
            if let Ok(mut l) = lost_in.lock() {
                *l = Some(format!("{reason:?}: {message}"));
            }
        });
        let errors = Arc::new(Mutex::new(Vec::new()));
        let errors_in = errors.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            if let Ok(mut v) = errors_in.lock() {
                v.push(e.to_string());
            }
        }));
        let limits = device.limits();
        Ok(Gpu {
            inner: Arc::new(Inner {
                info: adapter.get_info(),
                lost,
                errors,
                storage_align: u64::from(limits.min_storage_buffer_offset_alignment.max(4)),
                pending: Mutex::new(Pending::default()),
                uploads: AtomicU64::new(0),
                upload_bytes: AtomicU64::new(0),
                downloads: AtomicU64::new(0),
                download_bytes: AtomicU64::new(0),
                device,
                queue,
            }),
            f64: features.contains(wgpu::Features::SHADER_F64),
            float_atomics: features.contains(wgpu::Features::SHADER_FLOAT32_ATOMIC),
            max_groups: limits.max_compute_workgroups_per_dimension.max(1),
            reduction: Reduction::default(),
            pipelines: Mutex::new(HashMap::new()),
            scratch: Mutex::new(launch::Pool::default()),
        })
    }

    /// The adapter's name and driver, e.g. `llvmpipe (LLVM 15.0.6, 256 bits)`.
    pub fn adapter_name(&self) -> String {
        let info = &self.inner.info;
        format!("{} ({:?}, {})", info.name, info.device_type, info.driver)
    }

    /// The copies between host and device so far, by every array of this
    /// device (benchmarks report them).
    pub fn transfers(&self) -> Transfers {
        let i = &self.inner;
        Transfers {
            uploads: i.uploads.load(Ordering::Relaxed),
            upload_bytes: i.upload_bytes.load(Ordering::Relaxed),
            downloads: i.downloads.load(Ordering::Relaxed),
            download_bytes: i.download_bytes.load(Ordering::Relaxed),
        }
    }

    /// Waits until everything queued so far has run (for timing; reading
    /// an array back waits by itself).
    pub fn wait(&self) -> Result<(), GpuError> {
        self.inner.wait()
    }

    /// Whether `f64` kernels can run (`SHADER_F64`).
    pub fn has_f64(&self) -> bool {
        self.f64
    }

    /// Whether `atomic<f32>` adds are native (`SHADER_FLOAT32_ATOMIC`).
    pub fn has_float_atomics(&self) -> bool {
        self.float_atomics
    }

    /// How reverse passes sum shared adjoints from now on (deterministic
    /// by default).
    pub fn set_reduction(&mut self, r: Reduction) {
        self.reduction = r;
    }

    pub fn reduction(&self) -> Reduction {
        self.reduction
    }

    /// Limits the workgroups of one dispatch (at most the device's limit),
    /// so that tests can force a launch into several dispatches.
    pub fn set_max_workgroups(&mut self, n: u32) {
        let limit = self
            .inner
            .device
            .limits()
            .max_compute_workgroups_per_dimension;
        self.max_groups = n.clamp(1, limit.max(1));
    }

    /// Destroys the device, as a driver reset would lose it: every later
    /// call on this `Gpu` or its arrays returns [`GpuError::DeviceLost`].
    /// (For tests of that path.)
    pub fn destroy(&self) {
        self.inner.device.destroy();
        let _ = self.inner.device.poll(wgpu::PollType::Poll);
        if let Ok(mut l) = self.inner.lost.lock() {
            l.get_or_insert_with(|| "the device was destroyed".into());
        }
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

    /// A compute pipeline for `prefix` + `body` (entry point `main`),
    /// compiled once per pair.
    ///
    /// With `storage` (whether each binding after the uniform block is
    /// read-only), the layout is that one rather than the one the shader's
    /// uses imply, so that a binding the shader never touches is no error.
    pub(super) fn pipeline_for(
        &self,
        name: &str,
        body: &'static str,
        prefix: &'static str,
        storage: Option<&[bool]>,
    ) -> Result<Arc<wgpu::ComputePipeline>, GpuError> {
        let key = (body.as_ptr() as usize, prefix.as_ptr() as usize);
        let mut cache = self
            .pipelines
            .lock()
            .map_err(|_| GpuError::Device("pipeline cache poisoned".into()))?;
        if let Some(p) = cache.get(&key) {
            return Ok(p.clone());
        }
        let device = &self.inner.device;
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let source = if prefix.is_empty() {
            std::borrow::Cow::Borrowed(body)
        } else {
            std::borrow::Cow::Owned(format!("{prefix}{body}"))
        };
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(name),
            source: wgpu::ShaderSource::Wgsl(source),
        });
        let layout = storage.map(|read_only| {
            let buffer = |ty| wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size: None,
            };
            let mut entries = vec![wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: buffer(wgpu::BufferBindingType::Uniform),
                count: None,
            }];
            for (i, &read_only) in read_only.iter().enumerate() {
                entries.push(wgpu::BindGroupLayoutEntry {
                    binding: i as u32 + 1,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: buffer(wgpu::BufferBindingType::Storage { read_only }),
                    count: None,
                });
            }
            let group = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(name),
                entries: &entries,
            });
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(name),
                bind_group_layouts: &[Some(&group)],
                immediate_size: 0,
            })
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(name),
            layout: layout.as_ref(),
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(GpuError::Device(format!("kernel `{name}`: {e}")));
        }
        self.inner.check()?;
        let pipeline = Arc::new(pipeline);
        cache.insert(key, pipeline.clone());
        Ok(pipeline)
    }
}

impl Inner {
    fn count_upload(&self, bytes: usize) {
        self.uploads.fetch_add(1, Ordering::Relaxed);
        self.upload_bytes.fetch_add(bytes as u64, Ordering::Relaxed);
    }

    fn count_download(&self, bytes: u64) {
        self.downloads.fetch_add(1, Ordering::Relaxed);
        self.download_bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    /// The error of a lost device, or of a failure no scope caught.
    fn check(&self) -> Result<(), GpuError> {
        if let Some(why) = self.lost.lock().ok().and_then(|l| l.clone()) {
            return Err(GpuError::DeviceLost(why));
        }
        if let Some(e) = self.errors.lock().ok().and_then(|mut v| v.pop()) {
            return Err(GpuError::Device(e));
        }
        Ok(())
    }

    /// Records commands into the pending batch (`kernel` names the launch
    /// they belong to, if any). `f` must not record or submit by itself.
    fn record<R>(
        &self,
        kernel: Option<&'static str>,
        f: impl FnOnce(&mut wgpu::CommandEncoder) -> Result<R, GpuError>,
    ) -> Result<R, GpuError> {
        self.check()?;
        let mut pending = self
            .pending
            .lock()
            .map_err(|_| GpuError::Device("command batch poisoned".into()))?;
        let p = &mut *pending;
        let encoder = p.encoder.get_or_insert_with(|| {
            self.device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("nilang batch"),
                })
        });
        let r = f(encoder)?;
        p.commands += 1;
        if let Some(k) = kernel.filter(|k| !p.kernels.contains(k)) {
            p.kernels.push(k);
        }
        if p.commands >= BATCH {
            self.submit(p)?;
        }
        Ok(r)
    }

    /// Submits the pending batch, if any.
    fn flush(&self) -> Result<(), GpuError> {
        let mut pending = self
            .pending
            .lock()
            .map_err(|_| GpuError::Device("command batch poisoned".into()))?;
        self.submit(&mut pending)
    }

    fn submit(&self, p: &mut Pending) -> Result<(), GpuError> {
        let Some(encoder) = p.encoder.take() else {
            return Ok(());
        };
        p.commands = 0;
        let kernels = std::mem::take(&mut p.kernels);
        self.check()?;
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        self.queue.submit([encoder.finish()]);
        if let Some(e) = pollster::block_on(scope.pop()) {
            let names = kernels
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ");
            return Err(GpuError::Device(if names.is_empty() {
                format!("queued copies: {e}")
            } else {
                format!("queued launches of {names}: {e}")
            }));
        }
        self.check()
    }

    /// Waits for everything queued; a lost device is an error.
    fn wait(&self) -> Result<(), GpuError> {
        self.flush()?;
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| GpuError::DeviceLost(e.to_string()))?;
        self.check()
    }
}
