//! The middle end of the NiLang compiler: everything decided about a
//! program before code is generated, as tracked salsa queries over one
//! database ([`db`]).
//!
//! Name resolution ([`resolve`]), the types of definitions ([`types`]) and
//! of every expression ([`typeck`]), what functions change ([`effects`]),
//! the reversibility checks ([`check`]), structs ([`structs`]), the
//! shared-write analysis of kernels ([`kernel`]), `@primitive` contracts
//! ([`primitive`]), which code records a tape ([`taping`]) and inversion
//! ([`invert`]). Every diagnostic but the backends' "cannot generate this
//! yet" (E0701) is raised here; the backends read these facts and do not
//! decide them again. No IO.

pub mod activity;
pub mod builtins;
pub mod check;
pub mod db;
pub mod derivative_rules;
pub mod derivatives;
pub mod effects;
pub mod invert;
pub mod julia;
pub mod kernel;
pub mod limits;
pub mod local_callees;
pub mod modules;
pub mod names;
pub mod primitive;
pub mod resolve;
pub mod stdlib;
pub mod storing;
pub mod struct_checks;
pub mod structs;
pub mod taping;
pub mod ty;
pub mod typeck;
pub mod types;
pub mod values;
pub mod windows;

pub use db::{Db, FnId, Project, RootDatabase, SourceFile};
pub use diagnostics::{Diagnostic, Severity};
pub use nilang_syntax::{ast, diagnostics, parser as syntax, printer};
