//! How host values are stored on the device: floats as themselves,
//! integers as `i32` (a value that does not fit is an error, never a silent
//! wrap), booleans as `u32`.

use super::GpuError;

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
