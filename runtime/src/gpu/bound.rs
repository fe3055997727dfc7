//! A buffer range as a kernel binds it: what the launcher
//! ([`super::launch`]) and the reductions after it ([`super::reduce`])
//! both pass to wgpu, kept apart so that neither imports the other for it.

use std::sync::Arc;

/// An argument as bound: its own buffer range, or a scratch copy.
#[derive(Clone)]
pub(super) struct Bound {
    pub buffer: Arc<wgpu::Buffer>,
    pub offset: u64,
    pub size: u64,
}

impl Bound {
    pub fn binding(&self) -> wgpu::BindingResource<'_> {
        wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: &self.buffer,
            offset: self.offset,
            size: wgpu::BufferSize::new(self.size),
        })
    }
}

/// The first `bytes` of a scratch buffer, as bound (at least 16, a
/// multiple of 16, within the buffer).
pub(super) fn whole(buffer: &Arc<wgpu::Buffer>, bytes: u64) -> Bound {
    Bound {
        buffer: buffer.clone(),
        offset: 0,
        size: bytes.max(16).next_multiple_of(16).min(buffer.size()),
    }
}
