//! The papers' GPU workloads on device-resident arrays: inputs uploaded
//! once, kernels chained on the device, one read-back at the end.
//!
//! - [`BaDevice`]: bundle adjustment's Jacobian blocks (forward kernel and
//!   two reverse passes per call, seeds and outputs copied on the device);
//! - [`bessel_gradients`]: J_v and its derivative over a batch;
//! - [`Circuit`]: a training loop of a rotation-gate circuit, each step a
//!   forward sweep of gate launches, a reverse sweep of adjoint launches
//!   and an update, with nothing read back until the end.
//!
//! Beside each, the host-slice version (every launch copies its arrays in
//! and out) that the benchmark compares with.

use nilang_runtime::gpu::{DeviceArray, Gpu, GpuError, GpuFloat, Readback};

use crate::{BA_BLOCK, BaBlocks, ba, bessel, circuit};

/// Bundle adjustment's inputs on the device, with the buffers its
/// Jacobian needs, allocated once.
pub struct BaDevice<T: GpuFloat> {
    p: usize,
    cam: DeviceArray<T>,
    x: DeviceArray<T>,
    w: DeviceArray<T>,
    feat: DeviceArray<T>,
    e1: DeviceArray<T>,
    e2: DeviceArray<T>,
    ones: DeviceArray<T>,
    /// Per row of the Jacobian: outputs and seeds (consumed by the reverse
    /// pass), and the adjoints of camera, point, weight, pixel.
    rows: Vec<[DeviceArray<T>; 8]>,
}

impl<T: GpuFloat + Default> BaDevice<T> {
    /// Uploads the gathered blocks (the only host-to-device copy).
    pub fn new(gpu: &Gpu, b: &BaBlocks<T>) -> Result<BaDevice<T>, GpuError> {
        let p = b.len();
        let zeros = |len| DeviceArray::<T>::zeros(gpu, len);
        let mut rows = Vec::new();
        for _ in 0..2 {
            rows.push([
                zeros(p)?,
                zeros(p)?,
                zeros(p)?,
                zeros(p)?,
                zeros(b.cam.len())?,
                zeros(b.x.len())?,
                zeros(p)?,
                zeros(b.feat.len())?,
            ]);
        }
        Ok(BaDevice {
            p,
            cam: DeviceArray::from_slice(gpu, &b.cam)?,
            x: DeviceArray::from_slice(gpu, &b.x)?,
            w: DeviceArray::from_slice(gpu, &b.w)?,
            feat: DeviceArray::from_slice(gpu, &b.feat)?,
            e1: zeros(p)?,
            e2: zeros(p)?,
            ones: DeviceArray::from_slice(gpu, &vec![nilang_runtime::one::<T>(); p])?,
            rows,
        })
    }

    /// Queues the residuals and both reverse passes; nothing is read back.
    pub fn queue(&mut self, gpu: &Gpu) -> Result<(), GpuError> {
        let p = self.p;
        self.e1.fill_zero()?;
        self.e2.fill_zero()?;
        ba::ba_project_device(
            gpu,
            p,
            &mut self.e1,
            &mut self.e2,
            &self.cam,
            &self.x,
            &self.w,
            &self.feat,
        )?;
        for (row, bufs) in self.rows.iter_mut().enumerate() {
            let [o1, o2, b1, b2, cam_bar, x_bar, w_bar, feat_bar] = bufs;
            o1.copy_from(&self.e1)?;
            o2.copy_from(&self.e2)?;
            b1.fill_zero()?;
            b2.fill_zero()?;
            if row == 0 {
                b1.copy_from(&self.ones)?;
            } else {
                b2.copy_from(&self.ones)?;
            }
            for bar in [&mut *cam_bar, &mut *x_bar, &mut *w_bar, &mut *feat_bar] {
                bar.fill_zero()?;
            }
            ba::ba_project_adjoint_device(
                gpu, p, o1, b1, o2, b2, &self.cam, cam_bar, &self.x, x_bar, &self.w, w_bar,
                &self.feat, feat_bar,
            )?;
        }
        Ok(())
    }

    /// The residuals and the 2 x 15 blocks: [`BaDevice::queue`], then one
    /// read-back.
    #[allow(clippy::type_complexity)]
    pub fn jacobian(
        &mut self,
        gpu: &Gpu,
    ) -> Result<(Vec<T>, Vec<T>, Vec<[[T; BA_BLOCK]; 2]>), GpuError> {
        self.queue(gpu)?;
        let p = self.p;
        let (mut e1, mut e2) = (vec![T::default(); p], vec![T::default(); p]);
        let mut host: Vec<[Vec<T>; 3]> = (0..2)
            .map(|_| {
                [
                    vec![T::default(); 11 * p],
                    vec![T::default(); 3 * p],
                    vec![T::default(); p],
                ]
            })
            .collect();
        {
            let mut back = Readback::new();
            back.add(&self.e1, &mut e1);
            back.add(&self.e2, &mut e2);
            for (bufs, h) in self.rows.iter().zip(host.iter_mut()) {
                let [c, x, w] = h;
                back.add(&bufs[4], c);
                back.add(&bufs[5], x);
                back.add(&bufs[6], w);
            }
            back.finish()?;
        }
        let mut blocks = vec![[[T::default(); BA_BLOCK]; 2]; p];
        for (row, [c, x, w]) in host.iter().enumerate() {
            crate::fill_row(&mut blocks, row, c, x, w);
        }
        Ok((e1, e2, blocks))
    }
}

/// J_v(z) and dJ_v/dz over a batch of `z` already on the device: the
/// forward kernel, then the reverse pass seeded with ones; `out`, `seed`
/// and `z_bar` are overwritten. Nothing is read back.
pub fn bessel_gradients<T: GpuFloat>(
    gpu: &Gpu,
    v: i64,
    z: &DeviceArray<T>,
    ones: &DeviceArray<T>,
    out: &mut DeviceArray<T>,
    seed: &mut DeviceArray<T>,
    z_bar: &mut DeviceArray<T>,
) -> Result<(), GpuError> {
    let n = z.len();
    out.fill_zero()?;
    z_bar.fill_zero()?;
    seed.copy_from(ones)?;
    bessel::besselj_batch_device(gpu, n, out, z, v)?;
    bessel::besselj_batch_adjoint_device(gpu, n, out, seed, z, z_bar, v)
}

/// The arrays of a [`Circuit`]'s training loop, on the device.
pub struct CircuitState<T: GpuFloat> {
    pub psi0: DeviceArray<T>,
    pub target: DeviceArray<T>,
    pub theta: DeviceArray<T>,
    pub theta_bar: DeviceArray<T>,
    pub psi: DeviceArray<T>,
    pub psi_bar: DeviceArray<T>,
}

impl<T: GpuFloat> CircuitState<T> {
    /// Uploads the initial state, the target and the angles.
    pub fn new(
        gpu: &Gpu,
        c: &Circuit,
        psi0: &[T],
        target: &[T],
        theta0: &[T],
    ) -> Result<CircuitState<T>, GpuError> {
        Ok(CircuitState {
            psi0: DeviceArray::from_slice(gpu, psi0)?,
            target: DeviceArray::from_slice(gpu, target)?,
            theta: DeviceArray::from_slice(gpu, theta0)?,
            theta_bar: DeviceArray::zeros(gpu, c.gates())?,
            psi: DeviceArray::zeros(gpu, c.amplitudes())?,
            psi_bar: DeviceArray::zeros(gpu, c.amplitudes())?,
        })
    }
}

/// A circuit of rotation gates on `qubits` qubits, `layers` times a gate
/// per qubit (gate `g` = layer * qubits + qubit turns that qubit by
/// `θ[g]`), fitted to maximise the overlap `<target|ψ(θ)>` of the state it
/// makes from `psi0` by gradient ascent.
#[derive(Clone, Copy, Debug)]
pub struct Circuit {
    pub qubits: u32,
    pub layers: u32,
}

impl Circuit {
    pub fn gates(&self) -> usize {
        (self.qubits * self.layers) as usize
    }

    pub fn amplitudes(&self) -> usize {
        1 << self.qubits
    }

    fn mask(&self, g: usize) -> i64 {
        1 << (g as u32 % self.qubits)
    }

    /// `steps` steps of the training loop on the device; returns the
    /// angles, the only read-back.
    pub fn train_device<T: GpuFloat + Default>(
        &self,
        gpu: &Gpu,
        psi0: &[T],
        target: &[T],
        theta0: &[T],
        rate: T,
        steps: usize,
    ) -> Result<Vec<T>, GpuError> {
        let mut state = CircuitState::new(gpu, self, psi0, target, theta0)?;
        self.queue_steps(gpu, &mut state, rate, steps)?;
        state.theta.read()
    }

    /// Queues `steps` steps of the training loop on arrays already on the
    /// device (nothing is copied either way).
    pub fn queue_steps<T: GpuFloat>(
        &self,
        gpu: &Gpu,
        s: &mut CircuitState<T>,
        rate: T,
        steps: usize,
    ) -> Result<(), GpuError> {
        let n = self.amplitudes();
        for _ in 0..steps {
            s.psi.copy_from(&s.psi0)?;
            for g in 0..self.gates() {
                circuit::rot_gate_device(gpu, n, &mut s.psi, &s.theta, g as i64 + 1, self.mask(g))?;
            }
            // d<target|ψ>/dψ = target; the reverse sweep restores ψ0.
            s.psi_bar.copy_from(&s.target)?;
            s.theta_bar.fill_zero()?;
            for g in (0..self.gates()).rev() {
                circuit::rot_gate_adjoint_device(
                    gpu,
                    n,
                    &mut s.psi,
                    &mut s.psi_bar,
                    &s.theta,
                    &mut s.theta_bar,
                    g as i64 + 1,
                    self.mask(g),
                )?;
            }
            circuit::ascend_device(gpu, self.gates(), &mut s.theta, &s.theta_bar, rate)?;
        }
        Ok(())
    }

    /// The same loop with the slice launchers: every launch uploads its
    /// arrays and reads back what it changed (the state, the angles'
    /// adjoints and the angles go back and forth at every gate).
    pub fn train_slices<T: GpuFloat + Default>(
        &self,
        gpu: &Gpu,
        psi0: &[T],
        target: &[T],
        theta0: &[T],
        rate: T,
        steps: usize,
    ) -> Result<Vec<T>, GpuError> {
        let n = self.amplitudes();
        let mut theta = theta0.to_vec();
        for _ in 0..steps {
            let mut psi = psi0.to_vec();
            for g in 0..self.gates() {
                circuit::rot_gate_gpu(gpu, n, &mut psi, &theta, g as i64 + 1, self.mask(g))?;
            }
            let mut psi_bar = target.to_vec();
            let mut theta_bar = vec![T::default(); self.gates()];
            for g in (0..self.gates()).rev() {
                circuit::rot_gate_adjoint_gpu(
                    gpu,
                    n,
                    &mut psi,
                    &mut psi_bar,
                    &theta,
                    &mut theta_bar,
                    g as i64 + 1,
                    self.mask(g),
                )?;
            }
            circuit::ascend_gpu(gpu, self.gates(), &mut theta, &theta_bar, rate)?;
        }
        Ok(theta)
    }

    /// The same loop on the CPU (the kernels' CPU functions, one call per
    /// index), to test the GPU against.
    pub fn train_cpu(
        &self,
        psi0: &[f64],
        target: &[f64],
        theta0: &[f64],
        rate: f64,
        steps: usize,
    ) -> Result<Vec<f64>, nilang_runtime::Error> {
        let n = self.amplitudes() as i64;
        let mut theta = theta0.to_vec();
        for _ in 0..steps {
            let mut psi = psi0.to_vec();
            for g in 0..self.gates() {
                for i in 1..=n {
                    circuit::rot_gate(i, &mut psi, &theta, g as i64 + 1, self.mask(g))?;
                }
            }
            let mut psi_bar = target.to_vec();
            let mut theta_bar = vec![0.0; self.gates()];
            for g in (0..self.gates()).rev() {
                for i in 1..=n {
                    circuit::rot_gate_adjoint(
                        i,
                        &mut psi,
                        &mut psi_bar,
                        &theta,
                        &mut theta_bar,
                        g as i64 + 1,
                        self.mask(g),
                    )?;
                }
            }
            for i in 1..=self.gates() as i64 {
                circuit::ascend(i, &mut theta, &theta_bar, rate)?;
            }
        }
        Ok(theta)
    }

    /// The overlap `<target|ψ(θ)>` on the CPU.
    pub fn overlap(
        &self,
        psi0: &[f64],
        target: &[f64],
        theta: &[f64],
    ) -> Result<f64, nilang_runtime::Error> {
        let mut psi = psi0.to_vec();
        for g in 0..self.gates() {
            for i in 1..=self.amplitudes() as i64 {
                circuit::rot_gate(i, &mut psi, theta, g as i64 + 1, self.mask(g))?;
            }
        }
        Ok(psi.iter().zip(target).map(|(a, b)| a * b).sum())
    }
}
