//! The sites of a function's index checks, each written once.
//!
//! A checked index names where it is (`nilang::IndexSite`: the `.nil`
//! location, the array, the axis) for the error it returns. The same site
//! turns up many times in one function's code: in the call and the uncall,
//! in each reverse pass, in a condition checked before and after its
//! branch. Written out in place, each is a constant expression that rustc
//! promotes to a static of its own, and rustc's time on a generated module
//! grows with their number (a 10 MB module of long chains: 369 s to check
//! with 42,839 in place, 104 s with its 7,068 distinct sites as constants).
//! So each distinct site becomes one `const` after the function's code, and
//! the checks take a reference to it.

use rustc_hash::FxHashMap;
use std::fmt::Write;

/// The distinct sites of one function's generated code, in the order first
/// used.
pub(crate) struct Sites {
    /// The Rust name of the function (or instance, or variant): the
    /// constants are named after it, so that two functions of a module never
    /// name theirs alike.
    function: String,
    literals: Vec<String>,
    index: FxHashMap<String, usize>,
}

impl Sites {
    pub(crate) fn new(function: &str) -> Self {
        Sites {
            function: crate::rust_name(function),
            literals: Vec::new(),
            index: FxHashMap::default(),
        }
    }

    /// The Rust name of the function the sites belong to.
    pub(crate) fn function(&self) -> &str {
        &self.function
    }

    /// A reference to the constant holding `literal` (a
    /// `nilang::IndexSite { .. }` expression), made on first use.
    pub(crate) fn reference(&mut self, literal: String) -> String {
        let next = self.literals.len();
        let k = *self.index.entry(literal.clone()).or_insert(next);
        if k == next {
            self.literals.push(literal);
        }
        format!("&{}", self.name(k))
    }

    fn name(&self, k: usize) -> String {
        nilang_analysis::names::index_site_name(&self.function, k)
    }

    /// The constants, after the function's code (none if it checks no
    /// index).
    pub(crate) fn write(&self, out: &mut String) {
        for (k, literal) in self.literals.iter().enumerate() {
            let _ = write!(
                out,
                "#[allow(dead_code, non_upper_case_globals)]\nconst {}: nilang::IndexSite = {literal};\n",
                self.name(k)
            );
        }
    }
}
