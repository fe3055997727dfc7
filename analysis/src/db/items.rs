//! The items of a project: where each function is in its file (by chunks of
//! 16), the table of names, the structs.

use super::inputs::{
    Db, FnId, Project, SourceFile, defined_name, is_local, library_module, parse_file,
};
use crate::ast::Span;
use crate::diagnostics::Diagnostic;
use crate::names::module_name;
use crate::syntax::{self};
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// The names of a file's functions, in order, each with its span relative
/// to its function: what the project-wide tables (names, modules, clashes)
/// are built from instead of the parse. An edit inside a body, or one that
/// only moves functions, leaves this as it was, so salsa backdates it and
/// those tables are not built again on each keystroke (in a 10 MB file,
/// building them took about a fifth of a keystroke).
#[salsa::tracked(returns(ref))]
pub(crate) fn file_names(db: &dyn Db, file: SourceFile) -> Vec<(String, Span)> {
    parse_file(db, file)
        .items
        .iter()
        .map(|item| (item.function.name.name.clone(), item.function.name.span))
        .collect()
}

/// The functions of a file, in order, as ids.
#[salsa::tracked(returns(ref))]
pub fn file_functions<'db>(db: &'db dyn Db, project: Project, file: SourceFile) -> Vec<FnId<'db>> {
    let mut seen: FxHashMap<&str, u32> = FxHashMap::default();
    file_names(db, file)
        .iter()
        .map(|(name, _)| {
            let ordinal = seen.entry(name.as_str()).or_insert(0);
            let defined = defined_name(db, project, file, name);
            let id = FnId::new(db, project, file, defined, *ordinal);
            *ordinal += 1;
            id
        })
        .collect()
}

/// Where each function of a file is in its item list, by (name, ordinal).
#[salsa::tracked(returns(ref))]
fn file_item_index(db: &dyn Db, file: SourceFile) -> FxHashMap<(String, u32), usize> {
    let mut ordinals: FxHashMap<&str, u32> = FxHashMap::default();
    let mut index = FxHashMap::default();
    for (i, (name, _)) in file_names(db, file).iter().enumerate() {
        let ordinal = ordinals.entry(name.as_str()).or_insert(0);
        index.insert((name.clone(), *ordinal), i);
        *ordinal += 1;
    }
    index
}

/// Where `f` is in its file's item list.
pub(crate) fn item_index(db: &dyn Db, f: FnId<'_>) -> Option<usize> {
    let name = crate::modules::bare_name(f.name(db));
    file_item_index(db, f.file(db))
        .get(&(name.to_string(), f.ordinal(db)))
        .copied()
}

pub(crate) fn item<'a>(db: &'a dyn Db, f: FnId<'_>) -> Option<&'a syntax::Item> {
    parse_file(db, f.file(db)).items.get(item_index(db, f)?)
}

/// How many functions a chunk holds: the unit of the checking path's
/// queries. After an edit inside one function, that function's chunk is
/// analysed again, and salsa verifies one memo per chunk and query instead
/// of one per function (a 10 MB file has 44,000 functions: verifying
/// fourteen memos each cost about 290 ms a keystroke).
pub(crate) const CHUNK: usize = 16;

/// How many chunks a file's functions make (a query of its own, so that
/// what iterates over the chunks does not depend on the whole parse).
#[salsa::tracked(returns(copy))]
pub(crate) fn chunk_count(db: &dyn Db, file: SourceFile) -> u32 {
    file_names(db, file).len().div_ceil(CHUNK) as u32
}

/// Where `f` is: its file, its chunk and its place in the chunk.
pub(crate) fn locate(db: &dyn Db, f: FnId<'_>) -> Option<(SourceFile, u32, usize)> {
    let i = item_index(db, f)?;
    Some((f.file(db), (i / CHUNK) as u32, i % CHUNK))
}

/// Where the function starts in its file.
#[salsa::tracked(returns(copy))]
pub fn function_offset<'db>(db: &'db dyn Db, f: FnId<'db>) -> u32 {
    item(db, f).map(|i| i.offset).unwrap_or(0)
}

/// Every function of the project by name (first definition wins), and the
/// duplicate-definition errors (by file, each placed at a function).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct ItemTable {
    pub by_name: FxHashMap<String, (SourceFile, u32)>,
    pub duplicates: Vec<(SourceFile, ItemDiagnostic)>,
}

/// A diagnostic about a function's name, with spans relative to functions
/// (so that the table stays the same while functions only move): the
/// primary span is relative to the file's `item`-th function (absolute when
/// `None`: the file itself), each secondary span to the function
/// `secondary_items` gives for it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ItemDiagnostic {
    pub item: Option<u32>,
    pub secondary_items: Vec<u32>,
    pub diagnostic: Diagnostic,
}

impl ItemDiagnostic {
    /// `diagnostic`, its primary span relative to the file's `item`-th
    /// function.
    fn at(item: u32, diagnostic: Diagnostic) -> ItemDiagnostic {
        ItemDiagnostic {
            item: Some(item),
            secondary_items: Vec::new(),
            diagnostic,
        }
    }

    /// A secondary label at `span` of the file's `item`-th function.
    fn with_secondary(mut self, item: u32, span: Span, message: String) -> ItemDiagnostic {
        self.diagnostic = self.diagnostic.with_secondary(span, message);
        self.secondary_items.push(item);
        self
    }
    /// The diagnostic with absolute spans, given where each function of its
    /// file starts.
    pub fn absolute(&self, offsets: &dyn Fn(u32) -> u32) -> Diagnostic {
        let mut d = self.diagnostic.clone();
        if let Some(item) = self.item {
            d.primary.span = d.primary.span.shift(offsets(item));
        }
        for (label, &item) in d.secondary.iter_mut().zip(&self.secondary_items) {
            label.span = label.span.shift(offsets(item));
        }
        d
    }
}

#[salsa::tracked(returns(ref))]
pub fn item_table(db: &dyn Db, project: Project) -> Arc<ItemTable> {
    let mut table = ItemTable::default();
    let mut first_at: FxHashMap<String, (SourceFile, u32, Span)> = FxHashMap::default();
    for &file in project.files(db) {
        let library = library_module(db, project, file);
        let mut ordinals: FxHashMap<&str, u32> = FxHashMap::default();
        for (index, (name, span)) in file_names(db, file).iter().enumerate() {
            let (index, span) = (index as u32, *span);
            let ordinal = ordinals.entry(name.as_str()).or_insert(0);
            let key = match library {
                Some(l) => crate::modules::qualified(&l.path, name),
                None => name.clone(),
            };
            match first_at.get(&key) {
                None => {
                    first_at.insert(key.clone(), (file, index, span));
                    table.by_name.insert(key, (file, *ordinal));
                }
                Some(&(first_file, first_index, first_span)) => {
                    let mut d = ItemDiagnostic::at(
                        index,
                        Diagnostic::error(
                            "E0106",
                            span,
                            format!("function `{name}` is defined twice"),
                        )
                        .with_label("second definition")
                        .with_help(
                            "functions share one namespace per project (crate); rename one of them",
                        ),
                    );
                    if first_file == file {
                        d = d.with_secondary(first_index, first_span, "first defined here".into());
                    } else {
                        d.diagnostic.help = Some(format!(
                            "it is also defined in {}; functions share one namespace per project, rename one of them",
                            first_file.path(db)
                        ));
                    }
                    table.duplicates.push((file, d));
                }
            }
            *ordinal += 1;
        }
    }
    function_clashes(db, project, &mut table);
    Arc::new(table)
}

/// E0110 between functions: two names generated Rust spells alike, or a
/// function named as one generated for another (`uncall_f`, `f_adjoint`,
/// `f_grad`, a kernel's `f_gpu`, ...; `names::generated_from`); and two
/// files that are one Rust module.
fn function_clashes(db: &dyn Db, project: Project, table: &mut ItemTable) {
    use crate::names::{generated_from, reserved_name, rust_name};
    struct Named {
        file: SourceFile,
        name: String,
        spelled: String,
        /// The function's place in its file, and the name's span in it.
        index: u32,
        span: Span,
    }
    let at = ItemDiagnostic::at;
    let mut all = Vec::new();
    let mut modules: FxHashMap<String, SourceFile> = FxHashMap::default();
    // A library module's Rust is generated in its own crate.
    for &file in project
        .files(db)
        .iter()
        .filter(|&&f| is_local(db, project, f))
    {
        let module = module_name(file.path(db));
        if let Some(other) = modules.get(&module) {
            table.duplicates.push((
                file,
                ItemDiagnostic {
                    item: None,
                    secondary_items: Vec::new(),
                    diagnostic: Diagnostic::error(
                    "E0110",
                    Span::new(0, 0),
                    format!(
                        "this file and {} are both the Rust module `{module}`",
                        other.path(db)
                    ),
                )
                .with_label("this file's module")
                .with_help("a file's module is its name with `-`, `.` and spaces as `_`; rename one of the files"),
                },
            ));
        } else {
            modules.insert(module, file);
        }
        for (index, (name, span)) in file_names(db, file).iter().enumerate() {
            all.push(Named {
                file,
                spelled: rust_name(name).trim_start_matches("r#").to_string(),
                name: name.clone(),
                index: index as u32,
                span: *span,
            });
        }
    }
    // The first function of each spelling, by its position in `all`.
    let mut first: FxHashMap<&str, usize> = FxHashMap::default();
    for (k, f) in all.iter().enumerate() {
        first.entry(f.spelled.as_str()).or_insert(k);
    }
    for (k, f) in all.iter().enumerate() {
        let (file, name, s, span, index) = (f.file, &f.name, &f.spelled, f.span, f.index);
        let other = &all[first[s.as_str()]];
        if first[s.as_str()] != k && other.name != *name {
            let mut d = at(
                index,
                Diagnostic::error(
                    "E0110",
                    span,
                    format!(
                        "functions `{name}` and `{}` are both `{s}` in generated Rust",
                        other.name
                    ),
                )
                .with_label("this name")
                .with_help("Greek letters are spelled out and `!` is dropped; rename one of them"),
            );
            if other.file == file {
                d = d.with_secondary(
                    other.index,
                    other.span,
                    format!("`{}` defined here", other.name),
                );
            }
            table.duplicates.push((file, d));
            continue;
        }
        if first[s.as_str()] != k {
            continue;
        }
        if let Some(why) = reserved_name(s) {
            table.duplicates.push((
                file,
                at(
                    index,
                    Diagnostic::error(
                        "E0110",
                        span,
                        format!("`{name}` is a name generated code keeps for itself"),
                    )
                    .with_label("this name")
                    .with_help(format!("{why}; rename it")),
                ),
            ));
            continue;
        }
        let owner = generated_from(s)
            .into_iter()
            .filter_map(|base| first.get(base).copied())
            .min()
            .map(|o| &all[o].name);
        if let Some(owner) = owner.filter(|o| *o != name) {
            table.duplicates.push((
                file,
                at(
                    index,
                    Diagnostic::error(
                        "E0110",
                        span,
                        format!("`{name}` is the name of a function generated for `{owner}`"),
                    )
                    .with_label("this name")
                    .with_help(format!(
                        "the compiler generates `{owner}`'s inverse, reverse passes, gradient and launchers under names built from `{owner}`; rename `{name}`"
                    )),
                ),
            ));
        }
    }
}

/// The project's structs, and the problems of their definitions (absolute
/// spans, by file).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct ProjectStructs {
    pub table: crate::structs::StructTable,
    /// The file each struct is defined in, by the index in `table`.
    pub files: Vec<SourceFile>,
    pub diagnostics: Vec<(SourceFile, Diagnostic)>,
}

#[salsa::tracked(returns(ref))]
pub fn project_structs(db: &dyn Db, project: Project) -> Arc<ProjectStructs> {
    let files: Vec<SourceFile> = project.files(db).clone();
    let defs: Vec<&[Arc<crate::ast::StructDef>]> = files
        .iter()
        .map(|&f| parse_file(db, f).structs.as_slice())
        .collect();
    let functions = item_table(db, project);
    let (table, diagnostics) =
        crate::structs::build_table(&defs, &|name| functions.by_name.contains_key(name));
    let diagnostics = diagnostics
        .into_iter()
        .map(|(i, d)| (files[i], d))
        .collect();
    Arc::new(ProjectStructs {
        table,
        files,
        diagnostics,
    })
}

/// The project's structs as the analysis of functions reads them: the
/// table of [`project_structs`] with each definition's spans relative to
/// its start, so that an edit above a struct, which moves it, does not
/// re-check every function of the project (the diagnostics of the
/// definitions, and the editor's navigation, read [`project_structs`]).
#[salsa::tracked(returns(ref))]
pub fn struct_table(db: &dyn Db, project: Project) -> Arc<crate::structs::StructTable> {
    let files: Vec<SourceFile> = project.files(db).clone();
    let defs: Vec<&[Arc<crate::ast::StructDef>]> = files
        .iter()
        .map(|&f| file_structs(db, f).as_slice())
        .collect();
    let functions = item_table(db, project);
    let (table, _) =
        crate::structs::build_table(&defs, &|name| functions.by_name.contains_key(name));
    Arc::new(table)
}

/// A file's struct definitions, each with spans relative to its start.
#[salsa::tracked(returns(ref))]
fn file_structs(db: &dyn Db, file: SourceFile) -> Vec<Arc<crate::ast::StructDef>> {
    parse_file(db, file)
        .structs
        .iter()
        .map(|d| Arc::new(d.relative()))
        .collect()
}

/// The function named `name` in the project.
pub fn lookup_function<'db>(db: &'db dyn Db, project: Project, name: &str) -> Option<FnId<'db>> {
    let (file, ordinal) = *item_table(db, project).by_name.get(name)?;
    Some(FnId::new(db, project, file, name.to_string(), ordinal))
}

/// The names of the project's functions, sorted: what name resolution
/// suggests from, and what editors complete and correct to.
#[salsa::tracked(returns(clone))]
pub fn function_names(db: &dyn Db, project: Project) -> Vec<String> {
    let mut names: Vec<String> = item_table(db, project)
        .by_name
        .keys()
        .filter(|n| crate::modules::module_of(n).is_none())
        .cloned()
        .collect();
    names.sort();
    names
}
