//! `kmeans`: the cost, and Newton's direction J / H from one sweep of the
//! cost's gradient program on dual numbers (forward over reverse): every
//! centroid coordinate seeded 1, the adjoints' values are J and, since H is
//! diagonal, their tangents H·1 = diag H. Each run copies the points and
//! centroids into its dual numbers (the centroids seeded 1), in buffers
//! kept from run to run. The points are `Const` in the program, so they
//! have no adjoint; the program's work arrays are its own ancillas.

use nilang_runtime::num_dual::Dual64;
use serde_json::{Value, json};

use super::{Build, Eval, Which, rows, same_count};

pub struct Kmeans {
    n: usize,
    k: usize,
    d: usize,
    points: Vec<f64>,
    centroids: Vec<f64>,
    cost: f64,
    dual: Duals,
    dir: Vec<f64>,
}

/// The derivative's values: the inputs as dual numbers (copied by each
/// run) and the centroids' adjoints.
struct Duals {
    points: Vec<Dual64>,
    centroids: Vec<Dual64>,
    centroids_bar: Vec<Dual64>,
}

impl Kmeans {
    pub fn of(input: &Value) -> Result<Kmeans, String> {
        let (points, n, d) = rows(input, "points")?;
        let (centroids, k, dc) = rows(input, "centroids")?;
        if dc != d || k == 0 || d == 0 {
            return Err(
                "`points` and `centroids` need the same positive dimension and at least one centroid"
                    .into(),
            );
        }
        let zero = Dual64::from(0.0);
        let dual = Duals {
            points: vec![zero; points.len()],
            centroids: vec![zero; centroids.len()],
            centroids_bar: vec![zero; centroids.len()],
        };
        Ok(Kmeans {
            n,
            k,
            d,
            dir: vec![0.0; centroids.len()],
            points,
            centroids,
            cost: 0.0,
            dual,
        })
    }
}

impl Eval for Kmeans {
    fn run(&mut self, which: Which, build: Build) -> nilang_runtime::Result {
        let (n, k, d) = (self.n as i64, self.k as i64, self.d as i64);
        match which {
            Which::Primal => {
                self.cost = 0.0;
                call!(
                    build,
                    kmeans::kmeans_cost(&mut self.cost, &self.points, &self.centroids, n, k, d,)
                )
            }
            Which::Derivative | Which::Nested(..) => {
                let zero = Dual64::from(0.0);
                let (mut cost, mut cost_bar) = (zero, Dual64::from(1.0));
                let v = &mut self.dual;
                for (dual, &x) in v.points.iter_mut().zip(&self.points) {
                    *dual = Dual64::from(x);
                }
                // Every centroid coordinate seeded 1.
                for (dual, &x) in v.centroids.iter_mut().zip(&self.centroids) {
                    *dual = Dual64::new(x, 1.0);
                }
                v.centroids_bar.fill(zero);
                call!(
                    build,
                    kmeans::kmeans_cost_grad(
                        &mut cost,
                        &mut cost_bar,
                        &v.points,
                        &v.centroids,
                        &mut v.centroids_bar,
                        n,
                        k,
                        d,
                    )
                )?;
                for (out, g) in self.dir.iter_mut().zip(&v.centroids_bar) {
                    *out = g.re / g.eps;
                }
                Ok(())
            }
        }
    }

    fn replace_input(&mut self, input: &Value) -> Result<(), String> {
        let new = Kmeans::of(input)?;
        same_count("the points", self.n, new.n)?;
        same_count("the centroids", self.k, new.k)?;
        same_count("the dimension", self.d, new.d)?;
        (self.points, self.centroids) = (new.points, new.centroids);
        Ok(())
    }

    fn output(&self, which: Which) -> Value {
        match which {
            Which::Primal => json!(self.cost),
            Which::Derivative | Which::Nested(..) => {
                json!(self.dir.chunks(self.d).collect::<Vec<_>>())
            }
        }
    }
}
