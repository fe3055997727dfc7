use std::fmt;

/// Where in a `.nil` file a check sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    pub file: &'static str,
    pub line: u32,
    pub column: u32,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// Which run-time reversibility check failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// `x → v`: the ancilla's value was not `v`.
    Deallocation,
    /// `if (pre, post)`: after the branch, `post` did not agree with `pre`.
    IfPostcondition,
    /// `while (pre, post)`: `post` was true before the first iteration.
    WhileEntry,
    /// `while (pre, post)`: `post` was false after an iteration.
    WhileIteration,
    /// `for i = a:s:b`: the body changed `a`, `s` or `b`.
    ForBounds,
    /// A broadcast over arrays of different lengths, or a matrix argument
    /// not stored as the `.nil` code needs (a CSR matrix for `Csc<T>`).
    Shape,
    /// An adjoint function reached a construct without an adjoint rule.
    NotDifferentiable,
    /// A tape loop's inverse found its tape empty (a tape not recorded by
    /// the matching forward run).
    Tape,
    /// `@safe @assert cond`: the condition was false.
    Assertion,
    /// `PUSH!`, `POP!`, `COPYPUSH!`, `COPYPOP!` or freeing a stack: a pop
    /// from an empty stack, `POP!` into a non-zero value, `COPYPOP!` of a
    /// value other than the top, a stack freed while not empty, or an
    /// adjoint stack out of step with its stack.
    Stack,
    /// A typecast `(T1 => T2)(x)` that would lose information.
    Cast,
    /// A fixed-point `+=`/`-=` left the representable range.
    Overflow,
    /// One instruction or call would read and write one array element (or
    /// write it twice) through two index expressions that were equal at
    /// run time, e.g. `y[i] += y[j]` with `i == j`.
    Alias,
    /// `for i = a:s:b` with `s == 0`.
    ForStep,
    /// `x[i]` with `i` outside `1:length(x)` (or a matrix's rows or
    /// columns, or a stack's depth).
    Index,
    /// An operation on values it is not defined for: an integer divided
    /// by zero (`a ÷ 0`, `a % 0`), or the one quotient that does not fit
    /// (`typemin ÷ -1`).
    Domain,
}

impl Check {
    pub fn describe(self) -> &'static str {
        match self {
            Check::Deallocation => "deallocation check failed",
            Check::IfPostcondition => "`if` postcondition check failed",
            Check::WhileEntry => "`while` postcondition was already true on entry",
            Check::WhileIteration => "`while` postcondition was false after an iteration",
            Check::ForBounds => "`for` range changed by its body",
            Check::Shape => "shape check failed",
            Check::NotDifferentiable => "not differentiable",
            Check::Tape => "tape mismatch",
            Check::Assertion => "assertion failed",
            Check::Stack => "stack check failed",
            Check::Cast => "lossy typecast",
            Check::Overflow => "fixed-point overflow",
            Check::Alias => "one array element reached twice by one instruction",
            Check::ForStep => "`for` step is zero",
            Check::Index => "index out of range",
            Check::Domain => "operation not defined for these values",
        }
    }
}

/// The values of the index expressions an alias check found equal, as its
/// error shows them: `i = 2, j = 2`.
pub struct IndexValues<'a>(pub &'a [(&'a str, i64)]);

impl fmt::Debug for IndexValues<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, (name, value)) in self.0.iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{name} = {value}")?;
        }
        Ok(())
    }
}

/// A description shown as it is (not quoted) in an error's expected or
/// found value.
pub struct Plain<'a>(pub &'a str);

impl fmt::Debug for Plain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// A condition's value with the values of the variables it reads, as a
/// failed `if` or `while` check shows it: `false, where x = 3.0, n = 2`.
pub struct WithValues<'a, T>(pub T, pub &'a [(&'a str, &'a dyn fmt::Debug)]);

impl<T: fmt::Debug> fmt::Debug for WithValues<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)?;
        for (k, (name, value)) in self.1.iter().enumerate() {
            f.write_str(if k == 0 { ", where " } else { ", " })?;
            write!(f, "{name} = {value:?}")?;
        }
        Ok(())
    }
}

/// A failed run-time reversibility check. Running on would give a wrong
/// result, so generated code stops and returns this instead.
#[derive(Clone, Debug, PartialEq)]
pub struct Error {
    pub location: Location,
    pub check: Check,
    /// What was compared, e.g. "`z` must equal `0` when deallocated".
    pub what: String,
    /// The value required.
    pub expected: String,
    /// The value found.
    pub found: String,
}

impl Error {
    pub fn new(
        location: Location,
        check: Check,
        what: impl Into<String>,
        expected: impl fmt::Debug,
        found: impl fmt::Debug,
    ) -> Error {
        Error {
            location,
            check,
            what: what.into(),
            expected: format!("{expected:?}"),
            found: format!("{found:?}"),
        }
    }
}

/// Where an index is checked: the `.nil` place, what is indexed (`` "`x`"
/// ``) and the unit of its axis (`"element"`, `"row"`, `"column"`). The
/// generated code passes a constant, so this lives in static memory.
#[derive(Debug)]
pub struct IndexSite {
    pub location: Location,
    pub what: &'static str,
    pub unit: &'static str,
}

/// An index out of range, small enough that checking thousands of indices
/// in one function keeps its frame small; `?` turns it into the [`Error`].
#[derive(Clone, Copy, Debug)]
pub struct IndexError {
    index: i64,
    len: usize,
    site: &'static IndexSite,
}

/// The 0-based position of the 1-based index `i` on an axis of `len`
/// units, or, outside `1:len`, the error a checked build returns: where,
/// what, the index and the length, as Julia's `BoundsError` tells them.
/// Checked builds index through this; unchecked builds keep Rust's panic.
#[inline(always)]
pub fn index(i: i64, len: usize, site: &'static IndexSite) -> Result<usize, IndexError> {
    let k = (i as u64).wrapping_sub(1);
    if k < len as u64 {
        Ok(k as usize)
    } else {
        Err(IndexError {
            index: i,
            len,
            site,
        })
    }
}

/// The 0-based range of the elements `first`, `first + 1`, …, `first +
/// count - 1` (1-based, `count` > 0) of a vector of `len` elements: the
/// window a loop `for i = …` reads through `x[i + c]`, checked once before
/// the loop instead of at each access. Out of range, the error names the
/// index the loop would have failed at first: walking up (`down` false)
/// the first index outside `1:len`, walking down from the last element the
/// same.
#[inline(always)]
pub fn window(
    first: i64,
    count: i64,
    len: usize,
    down: bool,
    site: &'static IndexSite,
) -> Result<std::ops::Range<usize>, IndexError> {
    let last = first.wrapping_add(count).wrapping_sub(1);
    if first >= 1 && last >= first && (last as u64) <= len as u64 {
        // `start..start + count`, not `first - 1..last`: the slice's
        // length is then visibly the loop's trip count, and the compiler
        // drops the per-element checks of the loop over it (the other
        // form cost GMM's checked objective 4-5% of its instructions).
        let start = (first - 1) as usize;
        return Ok(start..start + count as usize);
    }
    Err(window_error(first, last, len, down, site))
}

#[cold]
#[inline(never)]
fn window_error(
    first: i64,
    last: i64,
    len: usize,
    down: bool,
    site: &'static IndexSite,
) -> IndexError {
    let len_i = i64::try_from(len).unwrap_or(i64::MAX);
    let index = if down {
        // From `last` down to `first`: past the end at once, or the first
        // index below 1.
        if last > len_i { last } else { last.min(0) }
    } else if first < 1 {
        first
    } else {
        first.max(len_i.saturating_add(1))
    };
    IndexError { index, len, site }
}

impl From<IndexError> for Error {
    #[cold]
    #[inline(never)]
    fn from(e: IndexError) -> Error {
        let IndexError { index, len, site } = e;
        Error::new(
            site.location,
            Check::Index,
            format!(
                "{} has {len} {}{}",
                site.what,
                site.unit,
                if len == 1 { "" } else { "s" }
            ),
            Plain(&if len == 0 {
                "no index (it is empty)".to_string()
            } else {
                format!("an index in 1:{len}")
            }),
            index,
        )
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}: {} (expected {}, found {})",
            self.location,
            self.check.describe(),
            self.what,
            self.expected,
            self.found
        )
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    static SITE: IndexSite = IndexSite {
        location: Location {
            file: "w.nil",
            line: 3,
            column: 9,
        },
        what: "`x`",
        unit: "element",
    };

    /// The index a loop over `first..first + count - 1` (or down from its
    /// end) would fail at first, element by element, as a plain loop finds it.
    fn plain(first: i64, count: i64, len: usize, down: bool) -> Option<i64> {
        let mut at: Vec<i64> = (first..first + count).collect();
        if down {
            at.reverse();
        }
        at.into_iter().find(|&i| i < 1 || i > len as i64)
    }

    #[test]
    fn a_window_fails_where_the_plain_loop_fails_first() {
        for len in 0..5usize {
            for first in -3..8i64 {
                for count in 1..8i64 {
                    for down in [false, true] {
                        let got = window(first, count, len, down, &SITE);
                        match plain(first, count, len, down) {
                            None => {
                                let r = got.unwrap();
                                assert_eq!(r, (first - 1) as usize..(first + count - 1) as usize);
                            }
                            Some(i) => {
                                let e = got.unwrap_err();
                                assert_eq!(
                                    (e.index, e.len),
                                    (i, len),
                                    "{first} {count} {len} {down}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}
