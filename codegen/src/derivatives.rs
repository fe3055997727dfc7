//! The Rust side of derivative calls (`(∇f)(...)`, `(∂f)(...)`; what they
//! mean is `nilang_analysis::derivatives`).
//!
//! A module that makes such calls gets, for each derived function it calls,
//! four entry points and their reverse passes, generated here from `f`'s
//! signature (`f` itself is generated as usual, wherever it lives):
//!
//! | call | entry point | reverse pass (in a gradient program) |
//! | --- | --- | --- |
//! | `(∇f)` | `__grad_f`: `f_grad` | `__grad_f_adjoint` |
//! | `~(∇f)` | `__uncall_grad_f`: `uncall_f_grad` | `__uncall_grad_f_adjoint` |
//! | `(∂f)` | `__tangent_f`: `f` on dual numbers | `__tangent_f_adjoint` |
//! | `~(∂f)` | `__uncall_tangent_f`: `uncall_f` on dual numbers | `__uncall_tangent_f_adjoint` |
//!
//! The reverse passes are second derivatives, taken with `f`'s own
//! programs run on `nilang::Dual<T>` (forward over reverse):
//! - `(∇f)` maps the companions `b` to `Jᵀb` and keeps the arguments `a`.
//!   Given the adjoints `v` of the companions afterwards, the companions'
//!   adjoints become `J v` (`f` on `a + εv`), and the arguments' adjoints
//!   gain `∂/∂a (bᵀ J v)`: the tangent of `Jᵀb` at `a + εv` (`f_grad` on
//!   duals), a Hessian-vector product.
//! - `(∂f)` maps `(a, ȧ)` to `(F(a), J ȧ)`. Given adjoints `A` and `B` of
//!   both, `f_adjoint` run on duals from `F(a) + ε J ȧ` with seeds
//!   `B + εA` comes back to `a + εȧ` and leaves `Jᵀ B + ε (Jᵀ A + (∂_ȧ J)ᵀ B)`:
//!   the companions' adjoints and the arguments' adjoints.
//! - The inverses are the same with `f`'s inverse (`~(∂f)`: `uncall_f_adjoint`
//!   on duals; `~(∇f)`: `Jᵀ` undone, with `J⁻¹ B` from `uncall_f` on duals).
//!
//! Each reverse pass runs once per lane of the adjoint type `G` (one
//! direction a lane).

use crate::ast::Derivative;
use crate::{CalleeSig, Kind, adjoint, kind_of, rust_name};
use nilang_analysis::names::{self, Launcher, Pass};

/// How one parameter of `f` is passed and differentiated.
struct Param {
    kind: Kind,
    /// `f` changes it.
    mutated: bool,
    /// It is followed by a companion (not `Const`, of the float type).
    companion: bool,
    /// An array (`[T]`), otherwise a scalar.
    array: bool,
    /// Of the float type (carries a dual part when `f` runs on duals).
    generic: bool,
}

/// The Rust name of the entry point of a derivative call: the derivative,
/// whether the call is inverted, and whether it is its reverse pass.
pub(crate) fn entry_name(d: Derivative, base: &str, inverted: bool, reverse: bool) -> String {
    names::derivative_entry_name(d == Derivative::Gradient, base, inverted, reverse)
}

/// The code of the entry points of `d` of `base` (see the module docs), for
/// a module that calls it, and with `gradients` their reverse passes.
/// `sig` is `base`'s signature as seen from there, `mask` which of its
/// parameters have companions.
pub(crate) fn entry_points(
    d: Derivative,
    base: &str,
    sig: &CalleeSig,
    mask: &[bool],
    gradients: bool,
    location: &str,
) -> String {
    let params: Vec<Param> = sig
        .params
        .iter()
        .zip(mask)
        .map(|((mutated, ty), &companion)| {
            let kind = kind_of(ty);
            let (array, inner) = match &kind {
                Kind::Array(inner) => (true, (**inner).clone()),
                k => (false, k.clone()),
            };
            Param {
                generic: matches!(inner, Kind::Generic(_)),
                kind,
                mutated: *mutated,
                companion,
                array,
            }
        })
        .collect();
    let t = params
        .iter()
        .find_map(|p| match &p.kind {
            Kind::Generic(g) => Some(g.clone()),
            Kind::Array(inner) => match &**inner {
                Kind::Generic(g) => Some(g.clone()),
                _ => None,
            },
            _ => None,
        })
        .unwrap_or_else(|| "T".to_string());
    // `f`'s programs without their entry snapshot (`__nil_f_grad`, ...), as
    // generated code calls each other: the caller's entry point restores
    // its arguments if a call fails.
    let module = sig.module.clone();
    let f = rust_name(nilang_analysis::modules::bare_name(base));
    let f = f.trim_start_matches("r#");
    let g = Gen {
        params,
        t,
        module,
        f: f.to_string(),
        taped: sig.taped,
        location: location.to_string(),
        derivative: d,
    };
    let mut out = String::new();
    for inverted in [false, true] {
        out.push_str(&g.entry(base, inverted));
        if gradients {
            out.push_str(&g.reverse(base, inverted));
        }
    }
    out
}

struct Gen {
    params: Vec<Param>,
    /// The float type parameter's name.
    t: String,
    /// The module of `f`'s programs, as a path from the caller's
    /// (`super::m`; `None` for the same module).
    module: Option<String>,
    /// `f`'s Rust name.
    f: String,
    /// `f` records a tape: `f` and `uncall_f` take one (`f_grad` and
    /// `uncall_f_grad` keep their own).
    taped: bool,
    /// Where `f` is defined (a `nilang::Location` expression), for what
    /// cannot be differentiated.
    location: String,
    /// Which derivative the entry points are of.
    derivative: Derivative,
}

impl Gen {
    /// The body of `f`'s generated `program` (`f_grad`, `uncall_f`, ...),
    /// which generated code calls (`names::inner_name`), in its module.
    fn inner(&self, program: &str) -> String {
        match &self.module {
            Some(m) => format!("{m}::{}", names::inner_name(program)),
            None => names::inner_name(program),
        }
    }

    fn ty(&self, p: &Param) -> String {
        rust_ty(&p.kind)
    }

    /// A primal parameter's declaration, as `f` takes it.
    fn primal_decl(&self, k: usize) -> String {
        let p = &self.params[k];
        let ty = self.ty(p);
        if p.mutated {
            format!("a{k}: &mut {ty}")
        } else if p.array {
            format!("a{k}: &{ty}")
        } else {
            format!("a{k}: {ty}")
        }
    }

    fn companion_decl(&self, k: usize) -> String {
        format!("c{k}: &mut {}", self.ty(&self.params[k]))
    }

    /// The adjoint a gradient program passes with a parameter of this kind.
    fn adjoint_decl(&self, name: &str, k: usize) -> Option<String> {
        let p = &self.params[k];
        adjoint::bar_param_type(&p.kind).map(|ty| format!("{name}: {ty}"))
    }

    /// `f`'s parameters with companions: the entry point's signature.
    fn entry_params(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (k, p) in self.params.iter().enumerate() {
            out.push(self.primal_decl(k));
            if p.companion {
                out.push(self.companion_decl(k));
            }
        }
        out
    }

    /// The same with each differentiable one followed by its adjoint: the
    /// signature a gradient program calls the reverse pass with.
    fn reverse_params(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (k, p) in self.params.iter().enumerate() {
            out.push(self.primal_decl(k));
            // Only a parameter with a companion has an adjoint (not a
            // `Const` one of the float type, not an integer).
            if p.companion {
                out.extend(self.adjoint_decl(&format!("a{k}_adj"), k));
                out.push(self.companion_decl(k));
                out.extend(self.adjoint_decl(&format!("c{k}_adj"), k));
            }
        }
        out
    }

    /// The value of primal parameter `k` (element `i` for an array).
    fn value(&self, k: usize, i: &str) -> String {
        let p = &self.params[k];
        match (p.array, p.mutated) {
            (true, _) => format!("a{k}[{i}]"),
            (false, true) => format!("*a{k}"),
            (false, false) => format!("a{k}"),
        }
    }

    /// `let mut {name}{k} = ...` for each parameter of the float type: a
    /// dual number (or a `Vec` of them) with value `re(k, i)` and dual part
    /// `eps(k, i)` (`None`: zero).
    fn duals(
        &self,
        name: &str,
        re: &dyn Fn(usize, &str) -> String,
        eps: &dyn Fn(usize, &str) -> Option<String>,
        only_companions: bool,
    ) -> Vec<String> {
        let t = &self.t;
        let mut out = Vec::new();
        for (k, p) in self.params.iter().enumerate() {
            if !p.generic || (only_companions && !p.companion) {
                continue;
            }
            let dual = |i: &str| match eps(k, i) {
                Some(e) => format!("nilang::Dual::new({}, {e})", re(k, i)),
                None => format!("nilang::Dual::constant({})", re(k, i)),
            };
            if p.array {
                out.push(format!(
                    "let mut {name}{k}: Vec<nilang::Dual<{t}>> = (0..a{k}.len()).map(|i| {}).collect();",
                    dual("i")
                ));
            } else {
                out.push(format!("let mut {name}{k} = {};", dual("")));
            }
        }
        out
    }

    /// The state of a tangent call as dual numbers `d{k}`: each argument
    /// of the float type with its companion as the dual part.
    fn state_duals(&self) -> Vec<String> {
        self.duals(
            "d",
            &|k, i| self.value(k, i),
            &|k, i| self.params[k].companion.then(|| self.companion(k, i)),
            false,
        )
    }

    /// Writes the duals `d{k}` back: their values into the arguments `f`
    /// changes, their dual parts into those arguments' companions (what
    /// `f` only reads, and its tangent, stay as they are).
    fn write_back_state(&self, lines: &mut Vec<String>) {
        self.store(
            lines,
            &|k, i| self.params[k].mutated.then(|| self.place(k, i)),
            &|k, i| self.at("d", k, i, "re"),
        );
        self.store(
            lines,
            &|k, i| {
                (self.params[k].mutated && self.params[k].companion).then(|| self.companion(k, i))
            },
            &|k, i| self.at("d", k, i, "eps"),
        );
    }

    /// `, &mut *__tape` where a tangent call passes its caller's tape on
    /// (`f` records one), else nothing.
    fn caller_tape(&self) -> &'static str {
        if self.taped && self.derivative == Derivative::Tangent {
            ", &mut *__tape"
        } else {
            ""
        }
    }

    /// The arguments of `f` or `uncall_f` run on duals `d{k}`, with the
    /// local tape `__tape` last when `f` records one.
    fn dual_args_taped(&self, d: &str) -> String {
        let args = self.dual_args(d, None);
        if self.taped {
            format!("{args}, &mut __tape")
        } else {
            args
        }
    }

    /// Arguments for one of `f`'s programs run on duals `d{k}` (and seeds
    /// `s{k}` after each companion parameter when `seeds`).
    fn dual_args(&self, d: &str, seeds: Option<&str>) -> String {
        let mut out = Vec::new();
        for (k, p) in self.params.iter().enumerate() {
            let arg = if p.generic {
                match (p.mutated, p.array) {
                    (true, true) => format!("&mut {d}{k}[..]"),
                    (true, false) => format!("&mut {d}{k}"),
                    (false, true) => format!("&{d}{k}[..]"),
                    (false, false) => format!("{d}{k}"),
                }
            } else if p.mutated {
                format!("&mut *a{k}")
            } else {
                format!("a{k}")
            };
            out.push(arg);
            if let (Some(s), true) = (seeds, p.companion) {
                out.push(if p.array {
                    format!("&mut {s}{k}[..]")
                } else {
                    format!("&mut {s}{k}")
                });
            }
        }
        out.join(", ")
    }

    /// Arguments for one of `f`'s programs on the entry point's own
    /// parameters (and companions when `companions`).
    fn plain_args(&self, companions: bool) -> String {
        let mut out = Vec::new();
        for (k, p) in self.params.iter().enumerate() {
            out.push(if p.mutated {
                format!("&mut *a{k}")
            } else {
                format!("a{k}")
            });
            if companions && p.companion {
                out.push(format!("&mut *c{k}"));
            }
        }
        out.join(", ")
    }

    /// Writes `what(k, i)` into each companion or primal place.
    fn store(
        &self,
        lines: &mut Vec<String>,
        target: &dyn Fn(usize, &str) -> Option<String>,
        what: &dyn Fn(usize, &str) -> String,
    ) {
        for (k, p) in self.params.iter().enumerate() {
            if !p.generic {
                continue;
            }
            if p.array {
                if let Some(place) = target(k, "i") {
                    lines.push(format!(
                        "for i in 0..a{k}.len() {{ {place} = {}; }}",
                        what(k, "i")
                    ));
                }
            } else if let Some(place) = target(k, "") {
                lines.push(format!("{place} = {};", what(k, "")));
            }
        }
    }

    /// The call an entry point serves, as `.nil` writes it: `` `~(∂f)` ``.
    fn call(&self, base: &str, inverted: bool) -> String {
        let tilde = if inverted { "~" } else { "" };
        format!("`{tilde}({}{base})`", self.derivative.symbol())
    }

    /// A generated function: its doc line, signature (with `G` for a
    /// reverse pass) and body lines.
    fn function(
        &self,
        name: &str,
        params: &[String],
        reverse: bool,
        doc: &str,
        lines: &[String],
    ) -> String {
        let mut params = params.to_vec();
        if !self.caller_tape().is_empty() {
            params.push("__tape: &mut nilang::Tape".into());
        }
        let mut out = self.header(name, &params, reverse, doc);
        for l in lines {
            out.push_str("    ");
            out.push_str(l);
            out.push('\n');
        }
        out.push_str("}\n");
        out
    }

    fn header(&self, name: &str, params: &[String], reverse: bool, doc: &str) -> String {
        let t = &self.t;
        let generics = if reverse {
            format!("<{t}: nilang::Real, G: nilang::Adjoint<{t}>>")
        } else {
            format!("<{t}: nilang::Real>")
        };
        format!(
            "\n/// {doc}\n#[doc(hidden)]\n#[allow(clippy::too_many_arguments, unused_mut, unused_variables)]\npub fn {name}{generics}({}) -> nilang::Result {{\n",
            params.join(", ")
        )
    }

    /// That each array's companion is as long as the array, first in every
    /// entry point and reverse pass: the dual numbers and adjoint lanes
    /// are built element by element from both, and a shorter companion
    /// would be read past its end.
    fn companion_checks(&self, base: &str, inverted: bool) -> Vec<String> {
        self.params
            .iter()
            .enumerate()
            .filter(|(_, p)| p.generic && p.companion && p.array)
            .map(|(k, _)| {
                let what = format!(
                    "the companion of argument {} of {} must be as long as the argument",
                    k + 1,
                    self.call(base, inverted)
                );
                format!(
                    "if c{k}.len() != a{k}.len() {{ return Err(nilang::Error::new({}, nilang::Check::Shape, {what:?}, a{k}.len(), c{k}.len())); }}",
                    self.location
                )
            })
            .collect()
    }

    fn entry(&self, base: &str, inverted: bool) -> String {
        let d = self.derivative;
        let name = entry_name(d, base, inverted, false);
        let f = &self.f;
        let mut lines = self.companion_checks(base, inverted);
        match d {
            Derivative::Gradient => {
                let program = names::generated_name(f, inverted, Pass::Grad, Launcher::Cpu);
                let program = self.inner(&program);
                lines.push(format!("{program}({})", self.plain_args(true)));
            }
            Derivative::Tangent => {
                lines.extend(self.state_duals());
                let program = names::generated_name(f, inverted, Pass::Plain, Launcher::Cpu);
                let program = self.inner(&program);
                lines.push(format!(
                    "{program}({}{})?;",
                    self.dual_args("d", None),
                    self.caller_tape()
                ));
                self.write_back_state(&mut lines);
                lines.push("Ok(())".into());
            }
        }
        let doc = format!(
            "{}: see `nilang_codegen::derivatives`.",
            self.call(base, inverted)
        );
        self.function(&name, &self.entry_params(), false, &doc, &lines)
    }

    fn companion(&self, k: usize, i: &str) -> String {
        if self.params[k].array {
            format!("c{k}[{i}]")
        } else {
            format!("*c{k}")
        }
    }

    fn place(&self, k: usize, i: &str) -> String {
        if self.params[k].array {
            format!("a{k}[{i}]")
        } else {
            format!("*a{k}")
        }
    }

    /// `{d}{k}` (element `i`), field `part`.
    fn at(&self, d: &str, k: usize, i: &str, part: &str) -> String {
        if self.params[k].array {
            format!("{d}{k}[{i}].{part}")
        } else {
            format!("{d}{k}.{part}")
        }
    }

    /// An adjoint's lane `l` (`a{k}_adj` or `c{k}_adj`), to read or write.
    fn lane(&self, adj: &str, k: usize, i: &str) -> String {
        if self.params[k].array {
            format!("*nilang::Adjoint::lane_mut(&mut {adj}{k}_adj[{i}], l)")
        } else {
            format!("*nilang::Adjoint::lane_mut({adj}{k}_adj, l)")
        }
    }

    fn lane_read(&self, adj: &str, k: usize, i: &str) -> String {
        if self.params[k].array {
            format!("nilang::Adjoint::lane(&{adj}{k}_adj[{i}], l)")
        } else {
            format!("nilang::Adjoint::lane(&*{adj}{k}_adj, l)")
        }
    }

    /// Whether the reverse pass has an adjoint for primal parameter `k`.
    fn has_primal_adjoint(&self, k: usize) -> bool {
        let p = &self.params[k];
        p.generic && p.companion
    }

    /// Lane `l` of the arguments' adjoints `{sign}=` the tangent of `Jᵀb`
    /// at `a + ε dir` (`b` the companions): `f_grad` on dual numbers, a
    /// Hessian-vector product.
    fn hessian_vector(
        &self,
        lines: &mut Vec<String>,
        dir: &dyn Fn(usize, &str) -> Option<String>,
        sign: char,
    ) {
        lines.extend(self.duals("h", &|k, i| self.value(k, i), dir, false));
        lines.extend(self.duals("s", &|k, i| self.companion(k, i), &|_, _| None, true));
        lines.push(format!(
            "{}({})?;",
            self.inner(&names::generated_name(
                &self.f,
                false,
                Pass::Grad,
                Launcher::Cpu
            )),
            self.dual_args("h", Some("s"))
        ));
        self.store(
            lines,
            &|k, i| self.has_primal_adjoint(k).then(|| self.lane("a", k, i)),
            &|k, i| {
                format!(
                    "{} {sign} {}",
                    self.lane_read("a", k, i),
                    self.at("s", k, i, "eps")
                )
            },
        );
    }

    /// Lane `l` of the companions' adjoints of the parameters `f` changes
    /// becomes the dual part of `{d}{k}` (those `f` only reads keep theirs:
    /// the identity).
    fn set_companion_adjoints(&self, lines: &mut Vec<String>, d: &str) {
        self.store(
            lines,
            &|k, i| {
                (self.params[k].companion && self.params[k].mutated).then(|| self.lane("c", k, i))
            },
            &|k, i| self.at(d, k, i, "eps"),
        );
    }

    fn reverse(&self, base: &str, inverted: bool) -> String {
        let d = self.derivative;
        let name = entry_name(d, base, inverted, true);
        let f = &self.f;
        let t = &self.t;
        let mut lines: Vec<String> = self.companion_checks(base, inverted);
        let lanes = format!("<G as nilang::Adjoint<{t}>>::LANES");
        match (d, inverted) {
            // The reverse pass of `~(∇f)` or `~(∂f)` of a function that
            // records: `~(∇f)`'s would need `J⁻¹` through overwrites, which
            // are not invertible and whose old values on the tape carry no
            // tangents; `~(∂f)`'s would run `f` forwards, recording into a
            // tape its reverse pass cannot give back.
            (_, true) if self.taped => {
                lines.push(format!(
                    "return Err(nilang::Error::new({}, nilang::Check::NotDifferentiable, {:?}, \"a reverse pass\", \"none\"));",
                    self.location,
                    format!(
                        "the reverse pass of `~({}{base})`: `{base}` records a tape",
                        d.symbol()
                    )
                ));
            }
            (Derivative::Gradient, false) => {
                // Back to the seeds `b`, then per lane: v = the companions'
                // adjoints; a's adjoints += tangent of Jᵀb at a + εv; the
                // companions' adjoints = J v.
                lines.push(format!(
                    "{}({})?;",
                    self.inner(&names::generated_name(f, true, Pass::Grad, Launcher::Cpu)),
                    self.plain_args(true)
                ));
                lines.push(format!("for l in 0..{lanes} {{"));
                self.hessian_vector(
                    &mut lines,
                    &|k, i| self.params[k].companion.then(|| self.lane_read("c", k, i)),
                    '+',
                );
                lines.extend(self.duals(
                    "j",
                    &|k, i| self.value(k, i),
                    &|k, i| self.params[k].companion.then(|| self.lane_read("c", k, i)),
                    false,
                ));
                if self.taped {
                    lines.push("let mut __tape = nilang::Tape::new();".into());
                }
                lines.push(format!(
                    "{}({})?;",
                    self.inner(f),
                    self.dual_args_taped("j")
                ));
                self.set_companion_adjoints(&mut lines, "j");
                lines.push("}".into());
            }
            (Derivative::Gradient, true) => {
                // `~(∇f)` took Jᵀ back out: b = J⁻ᵀ c. Per lane: u = J⁻¹ B
                // (`uncall_f` on duals from F(a) + εB); a's adjoints -=
                // tangent of Jᵀb at a + εu; the companions' adjoints = u;
                // then the companions go forwards to c = Jᵀ b.
                lines.push(format!("for l in 0..{lanes} {{"));
                lines.extend(self.duals("j", &|k, i| self.value(k, i), &|_, _| None, false));
                lines.push(format!(
                    "{}({})?;",
                    self.inner(f),
                    self.dual_args("j", None)
                ));
                lines.extend(self.duals(
                    "u",
                    &|k, i| self.at("j", k, i, "re"),
                    &|k, i| self.params[k].companion.then(|| self.lane_read("c", k, i)),
                    false,
                ));
                lines.push(format!(
                    "{}({})?;",
                    self.inner(&names::uncall_name(f)),
                    self.dual_args("u", None)
                ));
                // Read-only parameters are their own inverse: u = B there.
                self.hessian_vector(
                    &mut lines,
                    &|k, i| {
                        self.params[k].companion.then(|| {
                            if self.params[k].mutated {
                                self.at("u", k, i, "eps")
                            } else {
                                self.lane_read("c", k, i)
                            }
                        })
                    },
                    '-',
                );
                self.set_companion_adjoints(&mut lines, "u");
                lines.push("}".into());
                lines.push(format!(
                    "{}({})?;",
                    self.inner(&names::generated_name(f, false, Pass::Grad, Launcher::Cpu)),
                    self.plain_args(true)
                ));
            }
            (Derivative::Tangent, _) => {
                // `f_adjoint` (for `~(∂f)`: `uncall_f_adjoint`) on duals from
                // the state after the call, seeds B + εA: it comes back to
                // the state before and leaves both adjoints. A function that
                // records pops what `(∂f)` pushed onto the caller's tape, once
                // a lane: each lane after the first gets it back from a copy.
                let program = names::generated_name(f, inverted, Pass::Adjoint, Launcher::Cpu);
                let program = self.inner(&program);
                if self.taped {
                    lines.push(format!(
                        "let __whole = ({lanes} > 1).then(|| __tape.snapshot());"
                    ));
                }
                lines.push(format!("for l in 0..{lanes} {{"));
                if self.taped {
                    lines.push(
                        "if let (true, Some(w)) = (l > 0, &__whole) { __tape.restore(w.snapshot()); }"
                            .into(),
                    );
                }
                lines.extend(self.state_duals());
                lines.extend(self.duals(
                    "s",
                    &|k, i| self.lane_read("c", k, i),
                    &|k, i| Some(self.lane_read("a", k, i)),
                    true,
                ));
                lines.push(format!(
                    "{program}({}{})?;",
                    self.dual_args("d", Some("s")),
                    self.caller_tape()
                ));
                self.store(
                    &mut lines,
                    &|k, i| self.has_primal_adjoint(k).then(|| self.lane("a", k, i)),
                    &|k, i| self.at("s", k, i, "eps"),
                );
                self.store(
                    &mut lines,
                    &|k, i| self.params[k].companion.then(|| self.lane("c", k, i)),
                    &|k, i| self.at("s", k, i, "re"),
                );
                lines.push(format!("if l + 1 == {lanes} {{"));
                self.write_back_state(&mut lines);
                lines.push("}".into());
                lines.push("}".into());
            }
        }
        lines.push("Ok(())".into());
        let doc = format!(
            "Reverse pass of {}: see `nilang_codegen::derivatives`.",
            self.call(base, inverted)
        );
        self.function(&name, &self.reverse_params(), true, &doc, &lines)
    }
}

/// The Rust type of a parameter kind derivative calls support.
fn rust_ty(kind: &Kind) -> String {
    match kind {
        Kind::Int(s) | Kind::Float(s) => s.name().to_string(),
        Kind::Bool => "bool".into(),
        Kind::Generic(g) => g.clone(),
        Kind::Array(inner) => format!("[{}]", rust_ty(inner)),
        _ => "()".into(),
    }
}
