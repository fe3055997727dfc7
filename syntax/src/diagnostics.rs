//! Diagnostics as plain values.
//!
//! The compiler never prints: analyses return [`Diagnostic`]s, and the shells
//! (the CLI, the build plugin, the language server) render them. Codes are
//! stable; [`CODES`] lists every one with a one-line summary.

use serde::Serialize;

use crate::ast::Span;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

/// One finding. Spans are relative to the enclosing function while a check
/// runs and absolute (bytes into the file) once they reach the shells.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Diagnostic {
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub primary: Label,
    pub secondary: Vec<Label>,
    pub help: Option<String>,
    /// An edit that does what the help line says, for tools to apply (the
    /// editor's quick fix): replace `span` by `replacement`.
    pub suggestion: Option<Suggestion>,
}

/// A machine-applicable edit attached to a diagnostic.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Suggestion {
    pub span: Span,
    pub replacement: String,
}

impl Diagnostic {
    pub fn error(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity: Severity::Error,
            message: message.into(),
            primary: Label {
                span,
                message: String::new(),
            },
            secondary: Vec::new(),
            help: None,
            suggestion: None,
        }
    }

    pub fn warning(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, span, message)
        }
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.primary.message = label.into();
        self
    }

    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.secondary.push(Label {
            span,
            message: message.into(),
        });
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// Attaches the edit the help line describes.
    pub fn with_suggestion(mut self, span: Span, replacement: impl Into<String>) -> Diagnostic {
        self.suggestion = Some(Suggestion {
            span,
            replacement: replacement.into(),
        });
        self
    }

    /// Moves every span by `offset` bytes (function-relative to absolute).
    pub fn shifted(mut self, offset: u32) -> Diagnostic {
        self.primary.span = self.primary.span.shift(offset);
        if let Some(s) = &mut self.suggestion {
            s.span = s.span.shift(offset);
        }
        for label in &mut self.secondary {
            label.span = label.span.shift(offset);
        }
        self
    }
}

/// Every diagnostic code with its severity and a summary (used by docs and tests).
pub const CODES: &[(&str, &str)] = &[
    ("E0001", "syntax error"),
    ("E0002", "missing token"),
    ("E0003", "nesting too deep"),
    ("E0004", "construct not allowed here"),
    ("E0005", "file is not valid UTF-8"),
    ("E0006", "NiLang.jl syntax that is spelt differently here"),
    ("E0101", "undefined variable"),
    ("E0102", "unknown function"),
    ("E0103", "variable allocated while it already exists"),
    ("E0104", "ancilla used after deallocation"),
    (
        "E0105",
        "deallocation of something that is not a live ancilla",
    ),
    ("E0106", "function defined twice"),
    ("E0107", "parameter declared twice"),
    ("E0108", "wrong number of arguments"),
    ("E0109", "unknown keyword argument"),
    (
        "E0110",
        "two names that generated Rust would spell alike, or a name it keeps for itself",
    ),
    ("E0111", "unknown module in `using` or `import`"),
    ("E0112", "`import` of a name the module does not define"),
    ("E0113", "`import` of a name this crate also defines"),
    ("E0114", "a name two `using`s bring in, called"),
    ("E0201", "simultaneous read and write of one variable"),
    (
        "E0202",
        "one variable passed twice to a mutating instruction or call",
    ),
    (
        "W0203",
        "shared read: the gradient of this variable would be written twice",
    ),
    ("E0204", "irreversible assignment"),
    (
        "E0205",
        "`*=` or `/=` on a number system where it is not reversible",
    ),
    ("E0206", "call of a function that is not reversible"),
    ("E0207", "target is not an assignable place"),
    ("E0208", "reversible function used as a value"),
    (
        "E0209",
        "mutating a loop variable, keyword parameter or constant",
    ),
    (
        "E0210",
        "shared write: a variable read twice by one instruction of a differentiated function",
    ),
    (
        "E0211",
        "a value that carries a derivative passed to a `Const` or keyword parameter",
    ),
    ("E0220", "`+=`/`-=` on a logarithmic number"),
    (
        "E0221",
        "tropical `+=` outside a `@tape` loop, or `-=` on a tropical number",
    ),
    (
        "E0301",
        "ancilla never deallocated, and its final value cannot be inferred",
    ),
    (
        "E0401",
        "`if` with `~` postcondition whose branch writes what the condition reads",
    ),
    ("E0402", "`for` body writes its loop variable"),
    ("E0403", "`for` body writes a variable its range reads"),
    ("E0404", "`while` without a postcondition"),
    ("E0405", "`if` without a postcondition"),
    ("E0406", "`@routine` without a matching `~@routine`"),
    ("E0407", "`~@routine` without a preceding `@routine`"),
    ("E0409", "a `@tape` loop under `~`"),
    ("E0410", "`for` range with step 0"),
    ("E0411", "`for x in xs` body changes `xs`"),
    (
        "W0412",
        "`@store` on a routine that stores nothing: no costly instruction, or no gradient",
    ),
    ("E0601", "parameter without a type"),
    ("E0602", "unknown type"),
    ("E0603", "a complex value added to a real place"),
    (
        "E0610",
        "values of types that do not convert into each other",
    ),
    (
        "E0611",
        "a float value into an integer place (it would be truncated)",
    ),
    (
        "W0612",
        "a value of a type parameter into a `f64`/`f32` place: a dual number's derivative part is dropped there",
    ),
    ("E0612", "indexing a value that is not an array"),
    (
        "E0620",
        "a stack instruction on something that is not a stack, or a value of another type",
    ),
    (
        "E0621",
        "a typecast whose source type is not the variable's type, or of something not a variable",
    ),
    (
        "E0622",
        "a typecast of a parameter, or outside the block that allocates the ancilla",
    ),
    (
        "E0623",
        "a function passed where its `Fn` parameter expects other parameter types, a function where a value is expected (or the reverse), or a function that cannot be passed (a kernel, `Const` parameters, a tape)",
    ),
    (
        "E0624",
        "a derivative call `(∇f)(...)` or `(∂f)(...)` of a function that cannot be differentiated from `.nil` (not generic in one `Real` type, other parameter types, a kernel, a tape)",
    ),
    (
        "E0625",
        "a variant that names a parameter the function lacks, or whose name is taken",
    ),
    ("E0701", "not supported by the Rust backend yet"),
    (
        "E0702",
        "a function that records a tape uncalled with `~` (its tape is not there)",
    ),
    (
        "E0703",
        "a `@routine` overwrites on a tape what is changed before its `~@routine`",
    ),
    (
        "E0801",
        "a kernel write whose index is not provably distinct per invocation",
    ),
    (
        "E0802",
        "a kernel read of an element another invocation may write",
    ),
    (
        "E0803",
        "`global_index()` outside a kernel, or a kernel called like a function",
    ),
    (
        "E0804",
        "an f64 adjoint that several kernel invocations add to inside a loop (WGSL has no 64-bit atomics)",
    ),
    ("E0805", "a `@tape` loop in a GPU kernel"),
    (
        "E0901",
        "a struct defined twice, or named like a function or a built-in",
    ),
    ("E0902", "a struct field declared twice"),
    ("E0903", "a struct that contains itself"),
    ("E0904", "a field the struct does not have"),
    (
        "E0905",
        "a struct construction with the wrong number of values",
    ),
    ("E0906", "a struct field of an array, stack or tuple type"),
    (
        "E0907",
        "a struct construction outside the value of `←` or `→`",
    ),
    ("E0908", "a whole struct used where a number is needed"),
];
