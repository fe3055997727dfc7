//! Arrays that live on the device: created from a slice or zeroed, read
//! back to the host, viewed by range, and passed to the `_device`
//! launchers, so that kernels chain with no copy to the host between them.

use std::marker::PhantomData;
use std::ops::{Bound, Deref, DerefMut, RangeBounds};
use std::sync::{Arc, mpsc};

use super::{Gpu, GpuError, GpuScalar, Inner};

const USAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_DST)
    .union(wgpu::BufferUsages::COPY_SRC);

/// A run of `T`s in a device buffer: the whole of a [`DeviceArray`], or a
/// [`View`] of part of one. The launchers take `&DeviceSlice<T>` for what a
/// kernel reads and `&mut DeviceSlice<T>` for what it changes.
///
/// Elements are stored as the device stores them ([`GpuScalar`]: integers
/// as `i32`, booleans as `u32`).
pub struct DeviceSlice<T> {
    pub(super) gpu: Arc<Inner>,
    pub(super) buffer: Arc<wgpu::Buffer>,
    /// First element, and number of elements.
    pub(super) start: usize,
    pub(super) len: usize,
    _t: PhantomData<fn() -> T>,
}

/// An array on the device, owning its buffer.
pub struct DeviceArray<T> {
    slice: DeviceSlice<T>,
}

/// A shared view of part of a device array ([`DeviceSlice::view`]).
pub struct View<'a, T> {
    slice: DeviceSlice<T>,
    _borrow: PhantomData<&'a DeviceSlice<T>>,
}

/// A view of part of a device array that kernels may change
/// ([`DeviceSlice::view_mut`]).
pub struct ViewMut<'a, T> {
    slice: DeviceSlice<T>,
    _borrow: PhantomData<&'a mut DeviceSlice<T>>,
}

impl<T> Deref for DeviceArray<T> {
    type Target = DeviceSlice<T>;
    fn deref(&self) -> &DeviceSlice<T> {
        &self.slice
    }
}

impl<T> DerefMut for DeviceArray<T> {
    fn deref_mut(&mut self) -> &mut DeviceSlice<T> {
        &mut self.slice
    }
}

impl<T> Deref for View<'_, T> {
    type Target = DeviceSlice<T>;
    fn deref(&self) -> &DeviceSlice<T> {
        &self.slice
    }
}

impl<T> Deref for ViewMut<'_, T> {
    type Target = DeviceSlice<T>;
    fn deref(&self) -> &DeviceSlice<T> {
        &self.slice
    }
}

impl<T> DerefMut for ViewMut<'_, T> {
    fn deref_mut(&mut self) -> &mut DeviceSlice<T> {
        &mut self.slice
    }
}

impl<T> std::fmt::Debug for DeviceSlice<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceSlice<{}>[{}..{}]",
            std::any::type_name::<T>(),
            self.start,
            self.start + self.len
        )
    }
}

impl<T> std::fmt::Debug for DeviceArray<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.slice.fmt(f)
    }
}

pub(super) fn new_buffer(gpu: &Inner, bytes: u64) -> wgpu::Buffer {
    // Bindings may not be empty; sizes are multiples of 4.
    gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: bytes.max(16).next_multiple_of(16),
        usage: USAGE,
        mapped_at_creation: false,
    })
}

impl<T: GpuScalar> DeviceArray<T> {
    /// A copy of `data` on the device (queued: the call does not wait).
    pub fn from_slice(gpu: &Gpu, data: &[T]) -> Result<DeviceArray<T>, GpuError> {
        gpu.inner.check()?;
        let bytes = pack(data)?;
        let buffer = new_buffer(&gpu.inner, bytes.len() as u64);
        if !bytes.is_empty() {
            gpu.inner.queue.write_buffer(&buffer, 0, &bytes);
            gpu.inner.count_upload(bytes.len());
        }
        Ok(DeviceArray::wrap(gpu, buffer, data.len()))
    }

    /// `len` zeros (`0`, `0.0`, `false`) on the device.
    pub fn zeros(gpu: &Gpu, len: usize) -> Result<DeviceArray<T>, GpuError> {
        gpu.inner.check()?;
        let buffer = new_buffer(&gpu.inner, (len * T::SIZE) as u64);
        Ok(DeviceArray::wrap(gpu, buffer, len))
    }

    fn wrap(gpu: &Gpu, buffer: wgpu::Buffer, len: usize) -> DeviceArray<T> {
        DeviceArray {
            slice: DeviceSlice {
                gpu: gpu.inner.clone(),
                buffer: Arc::new(buffer),
                start: 0,
                len,
                _t: PhantomData,
            },
        }
    }
}

pub(super) fn pack<T: GpuScalar>(data: &[T]) -> Result<Vec<u8>, GpuError> {
    let mut bytes = Vec::with_capacity(data.len() * T::SIZE);
    for &x in data {
        x.put(&mut bytes)?;
    }
    Ok(bytes)
}

impl<T: GpuScalar> DeviceSlice<T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Byte offset and size in the buffer.
    pub(super) fn bytes(&self) -> (u64, u64) {
        ((self.start * T::SIZE) as u64, (self.len * T::SIZE) as u64)
    }

    /// Whether this slice lives on `gpu`'s device.
    pub fn is_on(&self, gpu: &Gpu) -> bool {
        Arc::ptr_eq(&self.gpu, &gpu.inner)
    }

    fn range(&self, r: impl RangeBounds<usize>) -> (usize, usize) {
        let lo = match r.start_bound() {
            Bound::Included(&a) => a,
            Bound::Excluded(&a) => a + 1,
            Bound::Unbounded => 0,
        };
        let hi = match r.end_bound() {
            Bound::Included(&b) => b + 1,
            Bound::Excluded(&b) => b,
            Bound::Unbounded => self.len,
        };
        assert!(
            lo <= hi && hi <= self.len,
            "view {lo}..{hi} out of range for a device array of {} elements",
            self.len
        );
        (lo, hi)
    }

    fn alias(&self, lo: usize, hi: usize) -> DeviceSlice<T> {
        DeviceSlice {
            gpu: self.gpu.clone(),
            buffer: self.buffer.clone(),
            start: self.start + lo,
            len: hi - lo,
            _t: PhantomData,
        }
    }

    /// The elements in `r`, for kernels that read them.
    ///
    /// # Panics
    /// Where `r` is not within `0..len`, as slicing does.
    pub fn view(&self, r: impl RangeBounds<usize>) -> View<'_, T> {
        let (lo, hi) = self.range(r);
        View {
            slice: self.alias(lo, hi),
            _borrow: PhantomData,
        }
    }

    /// The elements in `r`, for kernels that change them.
    ///
    /// # Panics
    /// Where `r` is not within `0..len`, as slicing does.
    pub fn view_mut(&mut self, r: impl RangeBounds<usize>) -> ViewMut<'_, T> {
        let (lo, hi) = self.range(r);
        ViewMut {
            slice: self.alias(lo, hi),
            _borrow: PhantomData,
        }
    }

    /// Overwrites the elements with `data` (queued).
    pub fn write(&mut self, data: &[T]) -> Result<(), GpuError> {
        self.gpu.check()?;
        if data.len() != self.len {
            return Err(GpuError::OutOfRange {
                what: format!(
                    "writing {} values into a device array of {}",
                    data.len(),
                    self.len
                ),
            });
        }
        let bytes = pack(data)?;
        if !bytes.is_empty() {
            // A queued write lands before the next submission: the
            // commands recorded so far go first, as they were asked first.
            self.gpu.flush()?;
            self.gpu
                .queue
                .write_buffer(&self.buffer, self.bytes().0, &bytes);
            self.gpu.count_upload(bytes.len());
        }
        Ok(())
    }

    /// Sets every element to zero (`0`, `0.0`, `false`) on the device
    /// (queued).
    pub fn fill_zero(&mut self) -> Result<(), GpuError> {
        self.gpu.check()?;
        let (offset, size) = self.bytes();
        if size == 0 {
            return Ok(());
        }
        self.gpu.record(None, |encoder| {
            encoder.clear_buffer(&self.buffer, offset, Some(size));
            Ok(())
        })
    }

    /// Copies `src` (as long as this) into this slice, on the device
    /// (queued).
    pub fn copy_from(&mut self, src: &DeviceSlice<T>) -> Result<(), GpuError> {
        self.gpu.check()?;
        if !Arc::ptr_eq(&self.gpu, &src.gpu) {
            return Err(GpuError::Device(
                "copying between device arrays of two devices".into(),
            ));
        }
        if src.len != self.len {
            return Err(GpuError::OutOfRange {
                what: format!(
                    "copying {} device values into a device array of {}",
                    src.len, self.len
                ),
            });
        }
        let ((from, size), (to, _)) = (src.bytes(), self.bytes());
        if size == 0 {
            return Ok(());
        }
        let tmp = Arc::ptr_eq(&self.buffer, &src.buffer).then(|| new_buffer(&self.gpu, size));
        self.gpu.record(None, |encoder| {
            if let Some(tmp) = &tmp {
                // wgpu copies within one buffer through a second one.
                encoder.copy_buffer_to_buffer(&src.buffer, from, tmp, 0, size);
                encoder.copy_buffer_to_buffer(tmp, 0, &self.buffer, to, size);
            } else {
                encoder.copy_buffer_to_buffer(&src.buffer, from, &self.buffer, to, size);
            }
            Ok(())
        })
    }

    /// The elements, once every kernel queued before has run.
    pub fn read(&self) -> Result<Vec<T>, GpuError>
    where
        T: Default,
    {
        let mut out = vec![T::default(); self.len];
        self.read_into(&mut out)?;
        Ok(out)
    }

    /// Copies the elements into `out` (as far as both reach), once every
    /// kernel queued before has run.
    pub fn read_into(&self, out: &mut [T]) -> Result<(), GpuError> {
        let mut r = Readback::new();
        r.add(self, out);
        r.finish()
    }
}

type Sink<'a> = Box<dyn FnOnce(&[u8]) + 'a>;

/// Several device slices read back to the host with one wait.
#[derive(Default)]
pub struct Readback<'a> {
    gpu: Option<Arc<Inner>>,
    parts: Vec<(Arc<wgpu::Buffer>, u64, u64, Sink<'a>)>,
    error: Option<GpuError>,
}

impl<'a> Readback<'a> {
    pub fn new() -> Readback<'a> {
        Readback::default()
    }

    /// Reads `src` into `dst` (as far as both reach) at [`Readback::finish`].
    pub fn add<T: GpuScalar>(&mut self, src: &DeviceSlice<T>, dst: &'a mut [T]) {
        match &self.gpu {
            Some(g) if !Arc::ptr_eq(g, &src.gpu) => {
                self.error = Some(GpuError::Device(
                    "reading back device arrays of two devices at once".into(),
                ));
                return;
            }
            _ => self.gpu = Some(src.gpu.clone()),
        }
        let n = dst.len().min(src.len);
        let (offset, _) = src.bytes();
        let size = (n * T::SIZE) as u64;
        if size == 0 {
            return;
        }
        self.parts.push((
            src.buffer.clone(),
            offset,
            size,
            Box::new(move |bytes: &[u8]| {
                for (x, chunk) in dst.iter_mut().zip(bytes.chunks_exact(T::SIZE)) {
                    *x = T::get(chunk);
                }
            }),
        ));
    }

    /// Waits for the device and copies every slice added.
    pub fn finish(self) -> Result<(), GpuError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let Some(gpu) = self.gpu else {
            return Ok(());
        };
        gpu.check()?;
        if self.parts.is_empty() {
            return gpu.wait();
        }
        let total: u64 = self.parts.iter().map(|p| p.2).sum();
        let staging = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("nilang read-back"),
            size: total,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        gpu.record(None, |encoder| {
            let mut at = 0;
            for (buffer, offset, size, _) in &self.parts {
                encoder.copy_buffer_to_buffer(buffer, *offset, &staging, at, *size);
                gpu.count_download(*size);
                at += size;
            }
            Ok(())
        })?;
        gpu.flush()?;
        let (tx, rx) = mpsc::channel();
        staging.map_async(wgpu::MapMode::Read, .., move |r| {
            let _ = tx.send(r);
        });
        gpu.wait()?;
        match rx.try_recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(GpuError::Device(format!("reading back: {e}"))),
            Err(_) => {
                gpu.check()?;
                return Err(GpuError::DeviceLost("the read-back never completed".into()));
            }
        }
        {
            let view = staging
                .get_mapped_range(..)
                .map_err(|e| GpuError::Device(e.to_string()))?;
            let mut at = 0usize;
            for (_, _, size, sink) in self.parts {
                let size = size as usize;
                sink(&view[at..at + size]);
                at += size;
            }
        }
        staging.unmap();
        Ok(())
    }
}
