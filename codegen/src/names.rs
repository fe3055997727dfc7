//! Rust names of NiLang names.

/// The Rust name of a NiLang name: `!` dropped, Greek letters spelled out
/// (`θ` is `theta`; rustc warns about mixed scripts otherwise), other
/// non-ASCII letters as `u` and their code point, keywords raw.
pub fn rust_name(name: &str) -> String {
    let mut base = String::new();
    for c in name.chars().filter(|&c| c != '!') {
        if c.is_ascii() {
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

pub fn uncall_name(name: &str) -> String {
    format!("uncall_{}", rust_name(name).trim_start_matches("r#"))
}

/// The body of a generated function `name` (`f`, `uncall_f`, `f_adjoint`,
/// ...): what generated code calls. The public `name` is its entry point,
/// which saves the arguments it changes and restores them when the body
/// returns an error.
pub fn inner_name(name: &str) -> String {
    format!("__nil_{}", name.trim_start_matches("r#"))
}
