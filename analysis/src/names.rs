//! The Rust spelling of NiLang names, and the names generated code takes
//! for itself. Both backends spell names through [`rust_name`]; the
//! analysis reports two names that would meet in generated code (E0110),
//! so a file `nilc check` accepts never compiles to a clash.

/// The Rust name of a NiLang name: `!` dropped, Greek letters spelled out
/// (`θ` is `theta`; rustc warns about mixed scripts otherwise), other
/// non-ASCII letters as `u` and their code point, keywords raw.
pub fn rust_name(name: &str) -> String {
    let mut base = String::new();
    for c in name.chars().filter(|&c| c != '!') {
        if c == '.' {
            // A library function's qualified name (`std.linalg.i_dot`),
            // where one is spelled whole (a WGSL helper of a kernel's callee).
            base.push_str("__");
        } else if c.is_ascii() {
            base.push(c);
        } else if let Some(spelled) = greek(c) {
            base.push_str(spelled);
        } else {
            base.push_str(&format!("u{:x}", c as u32));
        }
    }
    const KEYWORDS: &[&str] = &[
        "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn",
        "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
        "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where", "while",
        "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro", "override",
        "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
    ];
    if ["self", "Self", "super", "crate"].contains(&base.as_str()) {
        format!("{base}_")
    } else if KEYWORDS.contains(&base.as_str()) {
        format!("r#{base}")
    } else if base.is_empty() {
        "_".to_string()
    } else {
        base
    }
}

fn greek(c: char) -> Option<&'static str> {
    const LOWER: [&str; 25] = [
        "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
        "lambda", "mu", "nu", "xi", "omicron", "pi", "rho", "sigmaf", "sigma", "tau", "upsilon",
        "phi", "chi", "psi", "omega",
    ];
    const UPPER: [&str; 25] = [
        "Alpha", "Beta", "Gamma", "Delta", "Epsilon", "Zeta", "Eta", "Theta", "Iota", "Kappa",
        "Lambda", "Mu", "Nu", "Xi", "Omicron", "Pi", "Rho", "Sigmaf", "Sigma", "Tau", "Upsilon",
        "Phi", "Chi", "Psi", "Omega",
    ];
    match c {
        'α'..='ω' => Some(LOWER[c as usize - 'α' as usize]),
        'Α'..='Ω' => Some(UPPER[c as usize - 'Α' as usize]),
        _ => None,
    }
}

/// The Rust name of a file's module: its stem, `!` dropped, `-`, `.` and
/// spaces as `_`, and `_` before a leading digit (`00_setup.nil` is
/// `_00_setup`).
pub fn module_name(path: &str) -> String {
    let stem = std::path::Path::new(path)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = rust_name(&stem.replace(['-', '.', ' '], "_"));
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{name}")
    } else {
        name
    }
}

fn bare(name: &str) -> String {
    rust_name(name).trim_start_matches("r#").to_string()
}

/// A function generated for a `.nil` function `f`, by what it does: `f`
/// itself, its gradient `f_grad`, its reverse pass `f_adjoint` and that
/// pass's accumulating form. Each is generated for `f` and for its inverse
/// (`uncall_f`, `uncall_f_grad`, ...).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Pass {
    Plain,
    Grad,
    Adjoint,
    AdjointAccumulating,
}

impl Pass {
    const ALL: [Pass; 4] = [
        Pass::Plain,
        Pass::Grad,
        Pass::Adjoint,
        Pass::AdjointAccumulating,
    ];

    fn suffix(self) -> &'static str {
        match self {
            Pass::Plain => "",
            Pass::Grad => "_grad",
            Pass::Adjoint => "_adjoint",
            Pass::AdjointAccumulating => "_adjoint_accumulating",
        }
    }
}

/// How a kernel's pass is run: the CPU function, the launcher that takes
/// device arrays (`f_device`) and the one that takes slices (`f_gpu`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Launcher {
    Cpu,
    Device,
    Gpu,
}

impl Launcher {
    const ALL: [Launcher; 3] = [Launcher::Cpu, Launcher::Device, Launcher::Gpu];

    fn suffix(self) -> &'static str {
        match self {
            Launcher::Cpu => "",
            Launcher::Device => "_device",
            Launcher::Gpu => "_gpu",
        }
    }
}

/// The Rust name of a function generated for `name` (a NiLang name, or
/// one spelled already): of its inverse when `inverse`, for `pass`, run by
/// `launcher`. Every generated function of a `.nil` function is named
/// here, and [`generated_from`] reads these names back.
pub fn generated_name(name: &str, inverse: bool, pass: Pass, launcher: Launcher) -> String {
    let uncall = if inverse { UNCALL } else { "" };
    format!(
        "{uncall}{}{}{}",
        bare(name),
        pass.suffix(),
        launcher.suffix()
    )
}

const UNCALL: &str = "uncall_";

/// The inverse of `name`: `uncall_f`.
pub fn uncall_name(name: &str) -> String {
    generated_name(name, true, Pass::Plain, Launcher::Cpu)
}

/// The entry point of a derivative call of `name` (`(∇f)`: `gradient`;
/// `(∂f)` otherwise) that generated code calls, for the call itself, its
/// inverse (`inverse`) and their reverse passes (`reverse`):
/// `__grad_f`, `__uncall_tangent_f_adjoint`, ... (`__` keeps them apart
/// from every user name).
pub fn derivative_entry_name(gradient: bool, name: &str, inverse: bool, reverse: bool) -> String {
    let what = if gradient { "grad" } else { "tangent" };
    let uncall = if inverse { UNCALL } else { "" };
    let adjoint = if reverse { Pass::Adjoint.suffix() } else { "" };
    format!("__{uncall}{what}_{}{adjoint}", bare(name))
}

/// Whether a generated function's Rust name is that of an inverse.
pub fn is_uncall(spelled: &str) -> bool {
    spelled.starts_with(UNCALL)
}

/// The adjoint of a variable in a reverse pass (`x_bar`).
pub fn bar_name(name: &str) -> String {
    format!("{}{BAR}", bare(name))
}

/// The small buffer that holds an array ancilla whose name then stands
/// for a slice of it (`__small_x` for `x`, `__small_x_bar` for `x_bar`):
/// `__` keeps it apart from every user name.
pub fn small_buffer_name(spelled: &str) -> String {
    format!("__small_{}", spelled.trim_start_matches("r#"))
}

/// The Rust spelling of the variable whose adjoint is spelled `spelled`,
/// if it is an adjoint's name (`x` for `x_bar`): [`bar_name`] read back.
pub fn bar_of(spelled: &str) -> Option<&str> {
    spelled.strip_suffix(BAR)
}

const BAR: &str = "_bar";

/// The body of a generated function `name` (`f`, `uncall_f`, `f_adjoint`,
/// ...): what generated code calls. The public `name` is its entry point,
/// which saves the arguments it changes and restores them when the body
/// returns an error.
pub fn inner_name(name: &str) -> String {
    format!("__nil_{}", name.trim_start_matches("r#"))
}

/// The constant of the `k`-th index check site of the generated function
/// `function` (a `nilang::IndexSite` in static memory). The function's
/// name ends before the last `_` and its digits, so no two functions'
/// constants share a name.
pub fn index_site_name(function: &str, k: usize) -> String {
    format!("__nil_site_{function}_{k}")
}

/// The Rust spellings of the functions that the compiler would generate a
/// public function `spelled` for (besides the function itself): `f` for
/// `uncall_f`, `f_grad`, `f_adjoint`, `uncall_f_adjoint_accumulating`,
/// `f_gpu`, `uncall_f_adjoint_device`, ... Found by taking the name apart
/// rather than by listing every function's generated names, so that the
/// project-wide check costs no allocation per function.
pub fn generated_from(spelled: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for launcher in Launcher::ALL {
        let Some(pass_name) = spelled.strip_suffix(launcher.suffix()) else {
            continue;
        };
        for pass in Pass::ALL {
            let Some(stem) = pass_name.strip_suffix(pass.suffix()) else {
                continue;
            };
            if (launcher != Launcher::Cpu || pass != Pass::Plain) && !stem.is_empty() {
                out.push(stem);
            }
            if let Some(f) = stem.strip_prefix(UNCALL).filter(|f| !f.is_empty()) {
                out.push(f);
            }
        }
    }
    out
}

/// Why a variable's or function's Rust name is taken by generated code,
/// if it is. All of these live in Rust's value namespace: `__` starts
/// generated temporaries and function bodies, `ATOL` is the checks'
/// tolerance (a constant, which a parameter may not shadow),
/// `global_index` is the index parameter of a kernel's CPU function, and `Ok`,
/// `Err`, `Some` and `None` are the prelude's variants, which generated
/// code uses and a name of theirs would hide. The runtime's alias `nilang`
/// lives in the type namespace, so a variable may take that name. (The
/// WGSL backend puts `v_` or `aN_` before every variable, so its own names
/// never meet a user's.)
pub fn reserved_name(spelled: &str) -> Option<&'static str> {
    if spelled.starts_with("__") {
        Some("names starting with `__` are kept for generated temporaries and function bodies")
    } else if spelled == "ATOL" {
        Some("generated code names the run-time checks' tolerance `ATOL`")
    } else if spelled == "global_index" {
        Some("a kernel's CPU function takes the invocation's index as its parameter `global_index`")
    } else if PRELUDE_VARIANTS.contains(&spelled) {
        Some(
            "generated code uses Rust's `Ok`, `Err`, `Some` and `None`, which this name would hide",
        )
    } else {
        None
    }
}

const PRELUDE_VARIANTS: [&str; 4] = ["Ok", "Err", "Some", "None"];

/// The type parameter of reverse passes for the adjoints' type
/// (`G: nilang::Adjoint<T>`), which a function's own may not take.
pub const ADJOINT_TYPE: &str = "G";

#[cfg(test)]
mod tests {
    #[test]
    fn generated_names_lead_back_to_their_function() {
        let generated = [
            "uncall_f",
            "f_grad",
            "uncall_f_grad",
            "f_adjoint",
            "f_adjoint_accumulating",
            "uncall_f_adjoint",
            "uncall_f_adjoint_accumulating",
            "f_device",
            "f_gpu",
            "uncall_f_device",
            "uncall_f_gpu",
            "f_grad_device",
            "f_grad_gpu",
            "f_adjoint_device",
            "f_adjoint_gpu",
            "f_adjoint_accumulating_device",
            "f_adjoint_accumulating_gpu",
            "uncall_f_adjoint_device",
            "uncall_f_adjoint_gpu",
            "uncall_f_adjoint_accumulating_device",
            "uncall_f_adjoint_accumulating_gpu",
        ];
        for name in generated {
            assert!(super::generated_from(name).contains(&"f"), "{name}");
        }
        // Each is what `generated_name` spells.
        use super::{Launcher, Pass, generated_name};
        let mut spelled = Vec::new();
        for inverse in [false, true] {
            for pass in Pass::ALL {
                for launcher in Launcher::ALL {
                    spelled.push(generated_name("f!", inverse, pass, launcher));
                }
            }
        }
        for name in &spelled[1..] {
            assert!(super::generated_from(name).contains(&"f"), "{name}");
        }
        for name in generated {
            assert!(spelled.iter().any(|s| s == name), "{name}");
        }
        for name in ["f", "g", "uncall_", "_grad", "uncall_f_grad_x", "fgrad"] {
            assert!(!super::generated_from(name).contains(&"f"), "{name}");
        }
        // `uncall_f_adjoint` is also the reverse pass of a function named
        // `uncall_f`.
        assert!(super::generated_from("uncall_f_adjoint").contains(&"uncall_f"));
    }

    #[test]
    fn module_names_are_rust_identifiers() {
        assert_eq!(super::module_name("nil/00_setup.nil"), "_00_setup");
        assert_eq!(super::module_name("a-b.c.nil"), "a_b_c");
    }
}
