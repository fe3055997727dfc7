//! `ht`: the hand model's residuals, and their Jacobian in theta (and in
//! each point's `us`, for the complicated variant), both from `ht.nil`
//! (generic in its float type): the residuals are `ht_residuals` on `f64`;
//! the Jacobian is made on dual numbers (forward mode) or by the gradient
//! program `ht_residuals_grad` (reverse mode), whichever is faster for the
//! number of points ([`FORWARD_FROM`]).
//!
//! Forward mode: per column, the stages of `ht_residuals` run on
//! `Dual<f64>` over all the points: `ht_world` (pose and skinning) once,
//! then `ht_point_residuals` [`CHUNK`] points a call (a buffer of residuals
//! that stays in cache), their eps the column. theta[k] is seeded with eps
//! 1 for the theta columns; for the two `us` columns of the complicated
//! variant every point's `us` component j at once (a residual depends only
//! on its own point's `us`, so the eps of residual r is row r's entry of
//! the compressed column). 26 or 28 poses and skinnings in all, whatever
//! the number of points. The data are copied into dual constants (eps 0)
//! once a run; `ht_world`'s work arrays are zeroed before each column
//! rather than uncomputed. The Jacobian is kept column-major, and
//! `output` writes it out row by row.
//!
//! Reverse mode: a residual depends on theta and on its own point's
//! vertices only. So the Jacobian is made K points at a time: one reverse
//! sweep of `ht_residuals_grad` over those K points (their vertices alone
//! skinned), with adjoints of W = 3K lanes, the residual r of the sweep
//! seeded with the unit vector e_r. Lane r of `theta_bar` is then row r's
//! theta part, and lane r of the point's two `us_bar` entries its two `us`
//! columns. A pose a sweep: cheaper than forward mode for few points only
//! (see [`FORWARD_FROM`]).
//!
//! Only the vertices the points use are skinned. Which they are is chosen
//! by each run, in the time measured ([`Choice`]: a slot per vertex used,
//! in the order of first use, and each point's slots), and their base
//! positions and weights gathered into the slots; `prepare` only converts
//! the JSON and sizes the buffers by the counts of points, vertices and
//! bones.

use nilang_runtime::Dual;
use serde_json::{Value, json};

use super::{Build, Eval, Which, number, numbers, rows, same_count};

/// The number of points from which the Jacobian is made in forward mode
/// (below it, by reverse sweeps), simple and complicated variant. Forward
/// mode costs 26 or 28 poses and skinnings of the points' vertices plus
/// 26 or 28 dual residuals a point; reverse mode one pose and gradient
/// sweep per K points. On GradBench's `big` model (22 bones) forward mode
/// took about 68 µs + 0.8 µs a point (simple) and 78 µs + 2.2 µs a point
/// (complicated), reverse mode about 22 µs (simple) and 24 µs
/// (complicated) a sweep of K = 4 points: forward is faster from 13 and
/// 21 points (of 1 to 100 measured; at GradBench's 100 points and more it
/// always is).
const FORWARD_FROM: [usize; 2] = [13, 21];

/// Points whose residuals forward mode makes a call (their 3 `CHUNK`
/// dual residuals stay in cache).
const CHUNK: usize = 256;

/// Points one gradient sweep takes (of 2, 4 and 16, 4 was fastest at
/// 100,000 points: 1.16 s, 0.90 s, 1.50 s).
const K: usize = 4;
/// Lanes of an adjoint: the sweep's 3 K residuals.
const W: usize = 3 * K;

/// theta's length: global rotation, translation, 4 angles for 5 fingers.
const THETA: usize = 26;

/// The work arrays of `ht_residuals`, of numbers, of dual numbers or of
/// adjoints: zeroed before each use (what the programs uncompute comes
/// back as rounding errors, not zeros, which would seed the next use).
struct Work<T> {
    pose: Vec<T>,
    rot: Vec<T>,
    rel: Vec<T>,
    absm: Vec<T>,
    trans: Vec<T>,
    grot: Vec<T>,
    pos: Vec<T>,
    world: Vec<T>,
}

impl<T: Copy> Work<T> {
    fn new(nb: usize, slots: usize, zero: T) -> Work<T> {
        let v = |len: usize| vec![zero; len];
        Work {
            pose: v(3 * nb),
            rot: v(9 * nb),
            rel: v(16 * nb),
            absm: v(12 * nb),
            trans: v(12 * nb),
            grot: v(9),
            pos: v(3 * slots),
            world: v(3 * slots),
        }
    }

    /// Sets the per-bone arrays and the first `slots` slots to `zero`.
    fn fill(&mut self, slots: usize, zero: T) {
        for v in [
            &mut self.pose,
            &mut self.rot,
            &mut self.rel,
            &mut self.absm,
            &mut self.trans,
            &mut self.grot,
        ] {
            v.fill(zero);
        }
        self.pos[..3 * slots].fill(zero);
        self.world[..3 * slots].fill(zero);
    }
}

/// The vertices some points use, one slot each, and each point's slots:
/// chosen by [`Choice::choose`] in a run, in buffers sized once.
struct Choice {
    /// Vertex ids, in the order of first use.
    verts: Vec<usize>,
    /// Per point its vertex's slot (simple) or its triangle's three.
    of_points: Vec<i64>,
    /// Each vertex's slot, by the vertex ([`UNUSED`] for none): a point
    /// finds its slot in constant time. Only the entries of `verts` are
    /// set between choices.
    slot_of: Vec<u32>,
}

/// A vertex without a slot.
const UNUSED: u32 = u32::MAX;

impl Choice {
    /// Room for `points` point vertices among `nv` vertices.
    fn new(nv: usize, points: usize) -> Choice {
        Choice {
            verts: Vec::with_capacity(nv.min(points)),
            of_points: Vec::with_capacity(points),
            slot_of: vec![UNUSED; nv],
        }
    }

    /// Gives each of `point_verts` (the vertices of some points, in order)
    /// its vertex's slot, a new slot for a vertex not seen before.
    fn choose(&mut self, point_verts: impl Iterator<Item = usize>) {
        for &v in &self.verts {
            self.slot_of[v] = UNUSED;
        }
        self.verts.clear();
        self.of_points.clear();
        for v in point_verts {
            let mut slot = self.slot_of[v];
            if slot == UNUSED {
                slot = self.verts.len() as u32;
                self.slot_of[v] = slot;
                self.verts.push(v);
            }
            self.of_points.push(i64::from(slot));
        }
    }
}

/// The input, as `ht.nil`'s arrays.
struct Input {
    theta: Vec<f64>,
    /// 2 a point, empty for the simple variant.
    us: Vec<f64>,
    complicated: bool,
    mirrored: bool,
    parents: Vec<i64>,
    base_rel: Vec<f64>,
    inv_base_abs: Vec<f64>,
    /// 4 a vertex, and nb a vertex.
    base_pos: Vec<f64>,
    weights: Vec<f64>,
    /// Three vertex ids a triangle.
    triangles: Vec<usize>,
    /// Per point its vertex (simple) or its triangle (complicated).
    corr: Vec<usize>,
    /// 3 a point.
    points: Vec<f64>,
}

impl Input {
    /// Points, vertices and bones.
    fn counts(&self) -> (usize, usize, usize) {
        (self.corr.len(), self.base_pos.len() / 4, self.parents.len())
    }

    /// Vertices a point uses: 3 (its triangle's) or 1.
    fn per_point(&self) -> usize {
        if self.complicated { 3 } else { 1 }
    }

    /// The vertices of the points `from..to`, in order.
    fn point_verts(&self, from: usize, to: usize) -> impl Iterator<Item = usize> + '_ {
        self.corr[from..to].iter().flat_map(|c| {
            let verts = if self.complicated {
                &self.triangles[3 * c..3 * c + 3]
            } else {
                std::slice::from_ref(c)
            };
            verts.iter().copied()
        })
    }
}

pub struct Ht {
    input: Input,
    /// The objective's vertices: all that the points use (and forward
    /// mode's), with their base positions and weights.
    all: Choice,
    all_vpos: Vec<f64>,
    all_vweights: Vec<f64>,
    work: Work<f64>,
    err: Vec<f64>,
    /// How the Jacobian is made, with its buffers.
    mode: Mode,
    /// The last Jacobian: 3 n rows of `columns()`, row-major (reverse
    /// mode) or column-major (forward mode), as `output` reads it.
    jac: Vec<f64>,
}

enum Mode {
    Forward(Box<Forward>),
    Reverse(Box<Reverse>),
}

/// Forward mode's copies of the inputs as dual numbers (the data
/// constants, of eps 0; theta and `us` seeded per column), made by each
/// run, and its work arrays.
struct Forward {
    theta: Vec<Dual<f64>>,
    us: Vec<Dual<f64>>,
    base_rel: Vec<Dual<f64>>,
    inv_base_abs: Vec<Dual<f64>>,
    vpos: Vec<Dual<f64>>,
    vweights: Vec<Dual<f64>>,
    points: Vec<Dual<f64>>,
    err: Vec<Dual<f64>>,
    work: Work<Dual<f64>>,
}

/// Reverse mode's sweeps (it shares `Ht`'s `f64` work arrays and residuals)
/// and adjoints.
struct Reverse {
    /// One sweep's K points' vertices (chosen each sweep).
    batch: Choice,
    /// One sweep's vertices (gathered each sweep; `Const` data in
    /// `ht.nil`, so they have no adjoints).
    vpos: Vec<f64>,
    vweights: Vec<f64>,
    work_bar: Work<[f64; W]>,
    theta_bar: Vec<[f64; W]>,
    us_bar: Vec<[f64; W]>,
    err_bar: Vec<[f64; W]>,
}

fn ints(value: &Value, what: &str) -> Result<Vec<i64>, String> {
    value
        .as_array()
        .ok_or_else(|| format!("{what} must be an array of whole numbers"))?
        .iter()
        .map(|v| {
            v.as_i64()
                .ok_or_else(|| format!("{what} must hold whole numbers, not {v}"))
        })
        .collect()
}

/// `field` of `model`: `count` 4x4 matrices, flattened row after row.
fn matrices(model: &Value, field: &str, count: usize) -> Result<Vec<f64>, String> {
    let items = model
        .get(field)
        .and_then(Value::as_array)
        .filter(|items| items.len() == count)
        .ok_or_else(|| format!("`{field}` must hold one 4x4 matrix a bone ({count})"))?;
    let mut out = Vec::with_capacity(16 * count);
    for m in items {
        let rows = m.as_array().filter(|r| r.len() == 4);
        for row in rows.into_iter().flatten() {
            let row = row.as_array().filter(|r| r.len() == 4);
            for x in row.into_iter().flatten() {
                out.push(number(x, &format!("each entry of `{field}`"))?);
            }
        }
    }
    if out.len() != 16 * count {
        return Err(format!("`{field}` must hold one 4x4 matrix a bone"));
    }
    Ok(out)
}

impl Input {
    /// GradBench's input as the program's arrays, checked: bones' parents
    /// earlier bones, vertex and triangle ids in range, a row of `us` a
    /// point or none.
    fn of(input: &Value) -> Result<Input, String> {
        let theta = numbers(input, "theta")?;
        if theta.len() != THETA {
            return Err(format!(
                "`theta` must have {THETA} numbers, not {}",
                theta.len()
            ));
        }
        let data = input.get("data").unwrap_or(&Value::Null);
        let model = data.get("model").unwrap_or(&Value::Null);
        let parents = ints(
            model.get("parents").unwrap_or(&Value::Null),
            "`data.model.parents`",
        )?;
        let nb = parents.len();
        if nb == 0 {
            return Err("the model needs at least one bone".into());
        }
        for (b, &p) in parents.iter().enumerate() {
            if p < -1 || p >= b as i64 {
                return Err(format!(
                    "bone {b}'s parent {p} must be -1 or an earlier bone"
                ));
            }
        }
        if let Some(names) = model.get("bone_names").and_then(Value::as_array)
            && names.len() != nb
        {
            return Err(format!("{} bone names for {nb} parents", names.len()));
        }
        let base_rel = matrices(model, "base_relatives", nb)?;
        let inv_base_abs = matrices(model, "inverse_base_absolutes", nb)?;
        let (base_pos, nv, width) = rows(model, "base_positions")?;
        if width != 4 {
            return Err("`base_positions` must have 4 homogeneous coordinates a vertex".into());
        }
        let (weights, weight_rows, width) = rows(model, "weights")?;
        if weight_rows != nv || (nv > 0 && width != nb) {
            return Err(format!(
                "`weights` must have a row of {nb} a vertex ({nv} vertices)"
            ));
        }
        let mirrored = model
            .get("is_mirrored")
            .and_then(Value::as_bool)
            .ok_or("`is_mirrored` must be true or false")?;
        let Some(Value::Array(triangle_items)) = model.get("triangles") else {
            return Err("`triangles` must be an array of vertex-id triples".into());
        };
        let mut triangles = Vec::with_capacity(3 * triangle_items.len());
        for (t, item) in triangle_items.iter().enumerate() {
            let verts = ints(item, "each triangle")?;
            if verts.len() != 3 {
                return Err(format!("triangle {t} must have three vertex ids"));
            }
            for &v in &verts {
                if v < 0 || v >= nv as i64 {
                    return Err(format!(
                        "triangle {t} names vertex {v}, but there are {nv} vertices"
                    ));
                }
            }
            triangles.extend(verts.into_iter().map(|v| v as usize));
        }
        let ntri = triangle_items.len();
        let corr = ints(
            data.get("correspondences").unwrap_or(&Value::Null),
            "`data.correspondences`",
        )?;
        let (points, n, width) = rows(data, "points")?;
        if n != corr.len() || (n > 0 && width != 3) {
            return Err(format!(
                "`points` must have 3 numbers a correspondence ({})",
                corr.len()
            ));
        }
        let us = match input.get("us") {
            None => vec![],
            Some(_) => {
                let (us, us_rows, width) = rows(input, "us")?;
                if us_rows != 0 && (us_rows != n || width != 2) {
                    return Err(format!(
                        "`us` must be empty or have 2 numbers a point ({n} points)"
                    ));
                }
                us
            }
        };
        let complicated = !us.is_empty();
        let limit = if complicated { ntri } else { nv };
        let mut corr_ids = Vec::with_capacity(n);
        for (i, &c) in corr.iter().enumerate() {
            if c < 0 || c >= limit as i64 {
                let what = if complicated { "triangle" } else { "vertex" };
                return Err(format!(
                    "correspondence {i} names {what} {c}, but there are {limit}"
                ));
            }
            corr_ids.push(c as usize);
        }
        Ok(Input {
            theta,
            us,
            complicated,
            mirrored,
            parents,
            base_rel,
            inv_base_abs,
            base_pos,
            weights,
            triangles,
            corr: corr_ids,
            points,
        })
    }
}

impl Ht {
    /// The input converted, and the buffers sized by its counts.
    pub fn of(input: &Value) -> Result<Ht, String> {
        let input = Input::of(input)?;
        let (n, nv, nb) = input.counts();
        let complicated = input.complicated;
        let per_point = input.per_point();
        // The most slots a choice can take.
        let slots = nv.min(per_point * n);
        let mode = if n >= FORWARD_FROM[usize::from(complicated)] {
            let duals = |len: usize| vec![Dual::constant(0.0); len];
            Mode::Forward(Box::new(Forward {
                theta: duals(THETA),
                us: duals(input.us.len()),
                base_rel: duals(input.base_rel.len()),
                inv_base_abs: duals(input.inv_base_abs.len()),
                vpos: Vec::with_capacity(4 * slots),
                vweights: Vec::with_capacity(nb * slots),
                points: duals(input.points.len()),
                err: duals(3 * CHUNK.min(n)),
                work: Work::new(nb, slots, Dual::constant(0.0)),
            }))
        } else {
            let bars = |len: usize| vec![[0.0; W]; len];
            Mode::Reverse(Box::new(Reverse {
                batch: Choice::new(nv, K * per_point),
                vpos: Vec::with_capacity(4 * K * per_point),
                vweights: Vec::with_capacity(nb * K * per_point),
                work_bar: Work::new(nb, 3 * K, [0.0; W]),
                theta_bar: bars(THETA),
                us_bar: bars(2 * K),
                err_bar: bars(3 * K),
            }))
        };
        let cols = THETA + if complicated { 2 } else { 0 };
        Ok(Ht {
            all: Choice::new(nv, per_point * n),
            all_vpos: Vec::with_capacity(4 * slots),
            all_vweights: Vec::with_capacity(nb * slots),
            // Reverse mode's sweeps use these too, up to 3 K slots.
            work: Work::new(nb, slots.max(3 * K), 0.0),
            err: vec![0.0; 3 * n],
            jac: vec![0.0; 3 * n * cols],
            mode,
            input,
        })
    }

    fn columns(&self) -> usize {
        THETA + if self.input.complicated { 2 } else { 0 }
    }

    /// The Jacobian, column-major, in forward mode: the points' vertices
    /// chosen and the inputs copied into dual numbers, then per column,
    /// `ht_world` on dual numbers and `ht_point_residuals` a chunk of
    /// points at a time.
    fn forward(&mut self, build: Build) -> nilang_runtime::Result {
        let Mode::Forward(f) = &mut self.mode else {
            unreachable!("forward mode's buffers")
        };
        let input = &self.input;
        let (n, _, nb) = input.counts();
        self.all.choose(input.point_verts(0, n));
        let ns = self.all.verts.len();
        gather(
            &self.all.verts,
            &input.base_pos,
            &input.weights,
            nb,
            &mut f.vpos,
            &mut f.vweights,
            Dual::constant,
        );
        for (duals, xs) in [
            (&mut f.us, &input.us),
            (&mut f.base_rel, &input.base_rel),
            (&mut f.inv_base_abs, &input.inv_base_abs),
            (&mut f.points, &input.points),
            (&mut f.theta, &input.theta),
        ] {
            for (d, &x) in duals.iter_mut().zip(xs) {
                *d = Dual::constant(x);
            }
        }
        let rows = 3 * n;
        let complicated = input.complicated;
        let extra = if complicated { 2 } else { 0 };
        let zero = Dual::constant(0.0);
        let per_point = input.per_point();
        for (col, out) in self.jac.chunks_exact_mut(rows).enumerate() {
            // Columns 0 and 1 (complicated): every point's `us` component
            // col, cleared again for column 2; then theta.
            if col <= extra && complicated {
                for (i, u) in f.us.iter_mut().enumerate() {
                    u.eps = if i % 2 == col { 1.0 } else { 0.0 };
                }
            }
            for (k, t) in f.theta.iter_mut().enumerate() {
                t.eps = if extra + k == col { 1.0 } else { 0.0 };
            }
            // The last column's pose and positions, left in the work
            // arrays (zeroing them is cheaper than `uncall_ht_world`).
            f.work.fill(ns, zero);
            let w = &mut f.work;
            call!(
                build,
                ht::ht_world(
                    &f.theta,
                    input.mirrored,
                    &input.parents,
                    &f.base_rel,
                    &f.inv_base_abs,
                    &f.vpos,
                    &f.vweights,
                    &mut w.pose,
                    &mut w.rot,
                    &mut w.rel,
                    &mut w.absm,
                    &mut w.trans,
                    &mut w.grot,
                    &mut w.pos,
                    &mut w.world,
                )
            )?;
            // The residuals a chunk of points at a time, in a buffer that
            // stays in cache.
            for (chunk, out) in out.chunks_mut(3 * CHUNK).enumerate() {
                let (lo, m) = (chunk * CHUNK, out.len() / 3);
                let err = &mut f.err[..3 * m];
                err.fill(zero);
                let us = if complicated {
                    &f.us[2 * lo..2 * (lo + m)]
                } else {
                    &f.us[..]
                };
                call!(
                    build,
                    ht::ht_point_residuals(
                        err,
                        us,
                        complicated,
                        &self.all.of_points[per_point * lo..per_point * (lo + m)],
                        &f.points[3 * lo..3 * (lo + m)],
                        &w.world,
                    )
                )?;
                for (o, e) in out.iter_mut().zip(err.iter()) {
                    *o = e.eps;
                }
            }
        }
        Ok(())
    }

    /// The Jacobian, row-major, K points a reverse sweep: each sweep
    /// chooses and gathers its points' vertices.
    fn reverse(&mut self, build: Build) -> nilang_runtime::Result {
        let cols = self.columns();
        let Mode::Reverse(r) = &mut self.mode else {
            unreachable!("reverse mode's buffers")
        };
        let input = &self.input;
        let (n, _, nb) = input.counts();
        let complicated = input.complicated;
        let extra = cols - THETA;
        for lo in (0..n).step_by(K) {
            let m = K.min(n - lo);
            r.batch.choose(input.point_verts(lo, lo + m));
            let slots = &r.batch;
            let ns = slots.verts.len();
            gather(
                &slots.verts,
                &input.base_pos,
                &input.weights,
                nb,
                &mut r.vpos,
                &mut r.vweights,
                |x| x,
            );
            let err = &mut self.err[..3 * m];
            err.fill(0.0);
            let err_bar = &mut r.err_bar[..3 * m];
            for (row, lanes) in err_bar.iter_mut().enumerate() {
                *lanes = [0.0; W];
                lanes[row] = 1.0;
            }
            r.theta_bar.fill([0.0; W]);
            r.us_bar.fill([0.0; W]);
            // What the last sweep left in the work arrays and their
            // adjoints would seed this one.
            self.work.fill(ns, 0.0);
            r.work_bar.fill(ns, [0.0; W]);
            let (us, us_bar) = if complicated {
                (&input.us[2 * lo..2 * (lo + m)], &mut r.us_bar[..2 * m])
            } else {
                (&input.us[..], &mut r.us_bar[..0])
            };
            let (w, wb) = (&mut self.work, &mut r.work_bar);
            call!(
                build,
                ht::ht_residuals_grad(
                    err,
                    err_bar,
                    &input.theta,
                    &mut r.theta_bar,
                    us,
                    us_bar,
                    complicated,
                    input.mirrored,
                    &input.parents,
                    &input.base_rel,
                    &input.inv_base_abs,
                    &r.vpos,
                    &r.vweights,
                    &slots.of_points,
                    &input.points[3 * lo..3 * (lo + m)],
                    &mut w.pose,
                    &mut wb.pose,
                    &mut w.rot,
                    &mut wb.rot,
                    &mut w.rel,
                    &mut wb.rel,
                    &mut w.absm,
                    &mut wb.absm,
                    &mut w.trans,
                    &mut wb.trans,
                    &mut w.grot,
                    &mut wb.grot,
                    &mut w.pos[..3 * ns],
                    &mut wb.pos[..3 * ns],
                    &mut w.world[..3 * ns],
                    &mut wb.world[..3 * ns],
                )
            )?;
            for lane in 0..3 * m {
                let row = &mut self.jac[(3 * lo + lane) * cols..(3 * lo + lane + 1) * cols];
                if complicated {
                    let p = lane / 3;
                    row[0] = r.us_bar[2 * p][lane];
                    row[1] = r.us_bar[2 * p + 1][lane];
                }
                for (k, bar) in r.theta_bar.iter().enumerate() {
                    row[extra + k] = bar[lane];
                }
            }
        }
        Ok(())
    }
}

/// The base positions and weights of `verts`, a slot each, as `T`.
fn gather<T>(
    verts: &[usize],
    base_pos: &[f64],
    weights: &[f64],
    nb: usize,
    vpos: &mut Vec<T>,
    vweights: &mut Vec<T>,
    to: impl Fn(f64) -> T + Copy,
) {
    vpos.clear();
    vweights.clear();
    for &v in verts {
        vpos.extend(base_pos[4 * v..4 * v + 4].iter().map(|&x| to(x)));
        vweights.extend(weights[nb * v..nb * v + nb].iter().map(|&x| to(x)));
    }
}

impl Eval for Ht {
    fn run(&mut self, which: Which, build: Build) -> nilang_runtime::Result {
        match which {
            Which::Primal => {
                let input = &self.input;
                let (n, _, nb) = input.counts();
                self.all.choose(input.point_verts(0, n));
                gather(
                    &self.all.verts,
                    &input.base_pos,
                    &input.weights,
                    nb,
                    &mut self.all_vpos,
                    &mut self.all_vweights,
                    |x| x,
                );
                self.err.fill(0.0);
                let ns = self.all.verts.len();
                self.work.fill(ns, 0.0);
                let w = &mut self.work;
                call!(
                    build,
                    ht::ht_residuals(
                        &mut self.err,
                        &input.theta,
                        &input.us,
                        input.complicated,
                        input.mirrored,
                        &input.parents,
                        &input.base_rel,
                        &input.inv_base_abs,
                        &self.all_vpos,
                        &self.all_vweights,
                        &self.all.of_points,
                        &input.points,
                        &mut w.pose,
                        &mut w.rot,
                        &mut w.rel,
                        &mut w.absm,
                        &mut w.trans,
                        &mut w.grot,
                        &mut w.pos[..3 * ns],
                        &mut w.world[..3 * ns],
                    )
                )
            }
            Which::Derivative | Which::Nested(..) => match self.mode {
                Mode::Forward(_) => self.forward(build),
                Mode::Reverse(_) => self.reverse(build),
            },
        }
    }

    fn replace_input(&mut self, input: &Value) -> Result<(), String> {
        let input = Input::of(input)?;
        let (n, nv, nb) = input.counts();
        let (pn, pnv, pnb) = self.input.counts();
        same_count("the points", pn, n)?;
        same_count("the vertices", pnv, nv)?;
        same_count("the bones", pnb, nb)?;
        if input.complicated != self.input.complicated {
            return Err("the buffers were sized for the other variant".into());
        }
        self.input = input;
        Ok(())
    }

    fn output(&self, which: Which) -> Value {
        match which {
            Which::Primal => json!(self.err),
            // Row 3i + j: residual j of point i; columns (du0, du1 of the
            // row's point, when complicated) then theta, as GradBench's
            // reference prints them.
            Which::Derivative | Which::Nested(..) => {
                let cols = self.columns();
                match self.mode {
                    Mode::Reverse(_) => json!(self.jac.chunks(cols).collect::<Vec<_>>()),
                    Mode::Forward(_) => {
                        let rows = self.input.points.len();
                        json!(
                            (0..rows)
                                .map(|r| (0..cols)
                                    .map(|c| self.jac[c * rows + r])
                                    .collect::<Vec<_>>())
                                .collect::<Vec<_>>()
                        )
                    }
                }
            }
        }
    }
}
