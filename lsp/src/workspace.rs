//! The server's state: one salsa database, the open documents, and which
//! files are compiled together.
//!
//! A project is the set of `.nil` files of one folder (what `nilc inverse`
//! loads), so that calls across files of the folder resolve. Open documents
//! override what is on disk. A document that is not a `file:` URI is a project
//! of its own.
//!
//! The files the server knows are the open documents, the `.nil` files of
//! the workspace folders (loaded at `initialized`) and the siblings of any
//! open document; all of them get diagnostics, the closed ones without a
//! version. Closed files follow the disk through
//! `workspace/didChangeWatchedFiles` ([`Workspace::disk_changed`]).
//!
//! Writes (opening, editing, closing) take `&mut self` and may block in
//! salsa until every snapshot has been dropped: readers hold snapshots only
//! on blocking threads and never wait on this state while holding one, so
//! the writer never deadlocks with them.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use nilang_ide::{
    LibraryModule, Project, RootDatabase, SourceFile, set_file_text, set_project_files,
};
use tower_lsp_server::ls_types::{Range, TextDocumentContentChangeEvent, Uri};

use crate::line_index::{Encoding, LineIndex};

/// A consistent, read-only view for one request, used on a blocking thread.
/// Salsa cancels it (the request answers `ContentModified`) when an edit
/// arrives while it is in use.
pub struct Snapshot {
    pub db: RootDatabase,
    pub project: Project,
    pub file: SourceFile,
    pub uri: Uri,
    pub encoding: Encoding,
    /// The URI of every file the database knows.
    pub uris: Arc<HashMap<SourceFile, Uri>>,
    pub snippets: bool,
}

impl Snapshot {
    pub fn text(&self) -> &str {
        self.file.text(&self.db)
    }

    pub fn line_index(&self) -> LineIndex<'_> {
        LineIndex::new(self.text(), self.encoding)
    }

    pub fn uri_of(&self, file: SourceFile) -> Uri {
        self.uris
            .get(&file)
            .cloned()
            .unwrap_or_else(|| self.uri.clone())
    }
}

struct Document {
    file: SourceFile,
    version: i32,
}

/// What the diagnostics task must (re)compute: a file, at the version of
/// its open document (`None` for a closed file, its text on disk).
#[derive(Clone, Debug)]
pub struct DiagnosticsJob {
    pub uri: Uri,
    pub file: SourceFile,
    pub project: Project,
    pub version: Option<i32>,
    /// Publish even if unchanged (the document itself was edited).
    pub force: bool,
}

#[derive(Default)]
pub struct Workspace {
    db: RootDatabase,
    open: HashMap<Uri, Document>,
    files: HashMap<Uri, SourceFile>,
    uris: Arc<HashMap<SourceFile, Uri>>,
    /// Projects by folder (or by URI for documents that are not files).
    projects: HashMap<String, Project>,
    project_of: HashMap<SourceFile, Project>,
    pub encoding: Encoding,
    pub snippets: bool,
    /// The client shows `$/progress` (`window.workDoneProgress`).
    pub work_done_progress: bool,
    /// The client watches files for us when asked at run time.
    pub watch_files: bool,
    /// The workspace folders, whose `.nil` files are all checked.
    pub roots: Vec<PathBuf>,
    /// The workspace's files were loaded and their first check, which
    /// reports progress, has not started.
    pub first_check_pending: bool,
    /// The client pulls diagnostics (`textDocument/diagnostic`,
    /// `workspace/diagnostic`) instead of taking published ones, and
    /// whether it takes `workspace/diagnostic/refresh`.
    pub pull_diagnostics: bool,
    pub refresh_diagnostics: bool,
    dirty: HashMap<Uri, bool>,
    /// The packages a project's files import that were last looked for
    /// among its Cargo package's dependencies.
    dependencies_sought: HashMap<Project, Vec<String>>,
}

/// The key of a document: a `file:` URI rebuilt from its path, so that the
/// spellings clients send for one file (`%c3%a9` or `%C3%A9`, `+` or `%2B`
/// left unescaped) are one document; other URIs as they are.
pub fn normalize(uri: &Uri) -> Uri {
    if uri.scheme().as_str() == "file"
        && let Some(path) = uri.to_file_path()
        && let Some(canonical) = Uri::from_file_path(&path)
    {
        return canonical;
    }
    uri.clone()
}

fn project_key(uri: &Uri) -> (String, Option<PathBuf>) {
    if uri.scheme().as_str() == "file"
        && let Some(path) = uri.to_file_path()
        && let Some(dir) = path.parent()
    {
        return (dir.to_string_lossy().into_owned(), Some(dir.to_path_buf()));
    }
    (uri.as_str().to_string(), None)
}

fn path_of(uri: &Uri) -> String {
    if uri.scheme().as_str() == "file"
        && let Some(path) = uri.to_file_path()
    {
        return path.to_string_lossy().into_owned();
    }
    uri.as_str().to_string()
}

/// The `.nil` files of a folder and their text (unreadable ones are skipped).
fn read_folder(dir: &Path) -> Vec<(Uri, String, String)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(Uri, String, String)> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| nilang_ide::is_nil_file(p) && p.is_file())
        .filter_map(|p| {
            let text = std::fs::read_to_string(&p).ok()?;
            let uri = normalize(&Uri::from_file_path(&p)?);
            Some((uri, p.to_string_lossy().into_owned(), text))
        })
        .collect();
    out.sort_by(|a, b| a.1.cmp(&b.1));
    out
}

impl Workspace {
    /// An empty workspace whose files are parsed incrementally.
    pub fn new() -> Workspace {
        Workspace {
            db: RootDatabase::default().with_reparsing(),
            ..Workspace::default()
        }
    }

    fn add_file(&mut self, uri: &Uri, text: String) -> SourceFile {
        if let Some(&file) = self.files.get(uri) {
            if file.text(&self.db) != &text {
                set_file_text(&mut self.db, file, text);
            }
            return file;
        }
        let file = SourceFile::new(&self.db, path_of(uri), text);
        self.files.insert(uri.clone(), file);
        Arc::make_mut(&mut self.uris).insert(file, uri.clone());
        let (key, dir) = project_key(uri);
        let project = match self.projects.get(&key) {
            Some(&project) => {
                let mut files = project.files(&self.db).clone();
                files.push(file);
                set_project_files(&mut self.db, project, files);
                project
            }
            None => {
                // First file of this folder: load its siblings from disk.
                let mut files = vec![file];
                for (sibling_uri, path, sibling_text) in
                    dir.as_deref().map(read_folder).unwrap_or_default()
                {
                    if &sibling_uri == uri || self.files.contains_key(&sibling_uri) {
                        continue;
                    }
                    let sibling = SourceFile::new(&self.db, path, sibling_text);
                    self.files.insert(sibling_uri.clone(), sibling);
                    Arc::make_mut(&mut self.uris).insert(sibling, sibling_uri);
                    files.push(sibling);
                }
                // The standard library's modules join each project; they
                // are not documents, but goto-definition opens them.
                let project = nilang_ide::project_with_std(&self.db, files.clone(), Vec::new());
                for library in project.libraries(&self.db) {
                    if let Some(uri) = Uri::from_file_path(library.file.path(&self.db)) {
                        Arc::make_mut(&mut self.uris).insert(library.file, uri);
                    }
                }
                for f in files {
                    self.project_of.insert(f, project);
                }
                self.projects.insert(key, project);
                project
            }
        };
        self.project_of.insert(file, project);
        file
    }

    /// The files of a project, to re-check after a change in it.
    fn mark_project_dirty(&mut self, project: Project, edited: &Uri) {
        let uris: Vec<Uri> = self
            .files
            .iter()
            .filter(|(_, f)| self.project_of.get(f) == Some(&project))
            .map(|(u, _)| u.clone())
            .collect();
        for uri in uris {
            let force = &uri == edited;
            let entry = self.dirty.entry(uri).or_insert(false);
            *entry |= force;
        }
    }

    pub fn open(&mut self, uri: Uri, text: String, version: i32) {
        let uri = normalize(&uri);
        let file = self.add_file(&uri, text);
        self.open.insert(uri.clone(), Document { file, version });
        if let Some(&project) = self.project_of.get(&file) {
            self.seek_dependencies(project, &uri);
            self.mark_project_dirty(project, &uri);
        }
    }

    /// When the project's files import packages it does not have, looks
    /// for their `.nil` modules among the dependencies of the Cargo package
    /// `near` is in (`cargo metadata`, as `nilc` does), once for each set
    /// of packages missing, and makes them the project's libraries.
    fn seek_dependencies(&mut self, project: Project, near: &Uri) {
        let missing = nilang_ide::missing_packages(&self.db, project);
        if missing.is_empty() || self.dependencies_sought.get(&project) == Some(&missing) {
            return;
        }
        self.dependencies_sought.insert(project, missing);
        let Some(found) = near
            .to_file_path()
            .and_then(|path| nilang_build::libraries_near(&self.db, &path))
        else {
            return;
        };
        let old: Vec<LibraryModule> = project.libraries(&self.db).clone();
        let dropped: HashSet<SourceFile> = old
            .iter()
            .filter(|l| l.package != nilang_ide::STD_PACKAGE)
            .map(|l| l.file)
            .collect();
        let mut files: Vec<SourceFile> = project
            .files(&self.db)
            .iter()
            .copied()
            .filter(|f| !dropped.contains(f))
            .collect();
        files.extend(found.iter().map(|l| l.file));
        let mut libraries: Vec<LibraryModule> = old
            .into_iter()
            .filter(|l| !dropped.contains(&l.file))
            .collect();
        for l in &found {
            if let Some(uri) = Uri::from_file_path(l.file.path(&self.db)) {
                Arc::make_mut(&mut self.uris).insert(l.file, uri);
            }
        }
        libraries.extend(found);
        set_project_files(&mut self.db, project, files);
        nilang_ide::set_project_libraries(&mut self.db, project, libraries);
    }

    /// Applies edits in order. Returns false for a document that is not open.
    pub fn change(
        &mut self,
        uri: &Uri,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
    ) -> bool {
        let uri = &normalize(uri);
        let Some(doc) = self.open.get_mut(uri) else {
            return false;
        };
        doc.version = version;
        let file = doc.file;
        let mut text = file.text(&self.db).clone();
        for change in changes {
            match change.range {
                Some(range) => apply_edit(&mut text, range, &change.text, self.encoding),
                None => text = change.text,
            }
        }
        set_file_text(&mut self.db, file, text);
        if let Some(&project) = self.project_of.get(&file) {
            self.seek_dependencies(project, uri);
            self.mark_project_dirty(project, uri);
        }
        true
    }

    /// Closes a document: the file goes back to its text on disk (or leaves
    /// the project if it has none).
    pub fn close(&mut self, uri: &Uri) {
        let uri = &normalize(uri);
        let Some(doc) = self.open.remove(uri) else {
            return;
        };
        self.dirty.remove(uri);
        let disk = (uri.scheme().as_str() == "file")
            .then(|| uri.to_file_path())
            .flatten()
            .and_then(|p| std::fs::read_to_string(p).ok());
        match disk {
            Some(text) => {
                if doc.file.text(&self.db) != &text {
                    set_file_text(&mut self.db, doc.file, text);
                }
                if let Some(&project) = self.project_of.get(&doc.file) {
                    // Its diagnostics are now those of the disk's text.
                    self.mark_project_dirty(project, uri);
                }
            }
            None => self.remove_file(uri),
        }
    }

    /// Takes a file out of its project (its text is gone) and re-checks the
    /// rest of the project.
    fn remove_file(&mut self, uri: &Uri) {
        let Some(file) = self.files.remove(uri) else {
            return;
        };
        self.dirty.remove(uri);
        self.db.forget_parse(file);
        Arc::make_mut(&mut self.uris).remove(&file);
        if let Some(project) = self.project_of.remove(&file) {
            let files: Vec<SourceFile> = project
                .files(&self.db)
                .iter()
                .copied()
                .filter(|&f| f != file)
                .collect();
            set_project_files(&mut self.db, project, files);
            self.mark_project_dirty(project, uri);
        }
    }

    /// A `.nil` file changed on disk (`workspace/didChangeWatchedFiles`):
    /// a closed file takes the new text, a new file joins its folder's
    /// project, a deleted one leaves it; an open document keeps the
    /// editor's text. Returns whether anything changed.
    pub fn disk_changed(&mut self, uri: &Uri, deleted: bool) -> bool {
        let uri = normalize(uri);
        if self.open.contains_key(&uri) || !is_nil_uri(&uri) {
            return false;
        }
        let text = uri
            .to_file_path()
            .and_then(|p| std::fs::read_to_string(p).ok());
        match text {
            Some(text) if !deleted => {
                let file = self.add_file(&uri, text);
                if let Some(&project) = self.project_of.get(&file) {
                    self.mark_project_dirty(project, &uri);
                }
                true
            }
            _ => {
                let known = self.files.contains_key(&uri);
                self.remove_file(&uri);
                known
            }
        }
    }

    /// Loads every `.nil` file under `root` (hidden folders and `target`
    /// skipped, as `nilc check` does) that the server does not know yet,
    /// to be checked. Returns how many files it added.
    pub fn load_folder(&mut self, root: &Path) -> usize {
        let mut found = Vec::new();
        walk(root, &mut found, 0);
        let mut added = 0;
        for path in found {
            let Some(uri) = Uri::from_file_path(&path).map(|u| normalize(&u)) else {
                continue;
            };
            if self.files.contains_key(&uri) {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let file = self.add_file(&uri, text);
            if let Some(&project) = self.project_of.get(&file) {
                self.mark_project_dirty(project, &uri);
            }
            added += 1;
        }
        added
    }

    pub fn version(&self, uri: &Uri) -> Option<i32> {
        self.open.get(&normalize(uri)).map(|d| d.version)
    }

    pub fn snapshot(&self, uri: &Uri) -> Option<Snapshot> {
        let uri = &normalize(uri);
        let file = *self.files.get(uri)?;
        let project = *self.project_of.get(&file)?;
        Some(Snapshot {
            db: self.db.clone(),
            project,
            file,
            uri: uri.clone(),
            encoding: self.encoding,
            uris: self.uris.clone(),
            snippets: self.snippets,
        })
    }

    /// Whether the server knows the file (open, or loaded from disk).
    pub fn knows(&self, uri: &Uri) -> bool {
        self.files.contains_key(uri)
    }

    /// A snapshot for requests about the whole workspace (on any one file),
    /// and every project. `None` when the server knows no file.
    pub fn workspace_snapshot(&self) -> Option<(Snapshot, Vec<Project>)> {
        let uri = self.files.keys().min_by_key(|u| u.as_str())?;
        let snapshot = self.snapshot(uri)?;
        let mut projects: Vec<(&String, Project)> =
            self.projects.iter().map(|(k, &p)| (k, p)).collect();
        projects.sort_by(|a, b| a.0.cmp(b.0));
        Some((snapshot, projects.into_iter().map(|(_, p)| p).collect()))
    }

    /// Takes up to `n` files of the pending diagnostics work (open
    /// documents first), with a database handle to do it and how many are
    /// left.
    pub fn take_dirty(&mut self, n: usize) -> Option<(RootDatabase, Vec<DiagnosticsJob>, usize)> {
        if self.dirty.is_empty() {
            return None;
        }
        let mut uris: Vec<Uri> = self.dirty.keys().cloned().collect();
        let open = |u: &Uri| self.open.contains_key(u);
        uris.sort_by(|a, b| (!open(a), a.as_str()).cmp(&(!open(b), b.as_str())));
        uris.truncate(n);
        let taken: Vec<(Uri, bool)> = uris
            .into_iter()
            .filter_map(|u| self.dirty.remove_entry(&u))
            .collect();
        let left = self.dirty.len();
        let jobs = taken
            .into_iter()
            .filter_map(|(uri, force)| {
                let file = *self.files.get(&uri)?;
                Some(DiagnosticsJob {
                    file,
                    project: *self.project_of.get(&file)?,
                    version: self.open.get(&uri).map(|d| d.version),
                    uri,
                    force,
                })
            })
            .collect();
        Some((self.db.clone(), jobs, left))
    }

    /// Puts back work that was cancelled before it finished.
    pub fn requeue(&mut self, jobs: Vec<DiagnosticsJob>) {
        for job in jobs {
            if self.files.contains_key(&job.uri) {
                *self.dirty.entry(job.uri).or_insert(false) |= job.force;
            }
        }
    }

    /// The files whose diagnostics are published.
    pub fn known_files(&self) -> HashSet<Uri> {
        self.files.keys().cloned().collect()
    }
}

/// A `file:` URI of a `.nil` file.
fn is_nil_uri(uri: &Uri) -> bool {
    uri.scheme().as_str() == "file"
        && uri
            .to_file_path()
            .is_some_and(|p| nilang_ide::is_nil_file(&p))
}

/// The `.nil` files under `dir`, sorted, as `nilc check` finds them.
pub(crate) fn walk(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) {
    if depth > 64 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if kind.is_dir() {
            if !nilang_ide::skipped_folder(&name) {
                walk(&path, out, depth + 1);
            }
        } else if nilang_ide::is_nil_file(&path) {
            out.push(path);
        }
    }
}

/// Replaces `range` of `text` by `new`, positions clamped to the text.
pub fn apply_edit(text: &mut String, range: Range, new: &str, encoding: Encoding) {
    let index = LineIndex::new(text, encoding);
    let start = index.offset(range.start) as usize;
    let end = (index.offset(range.end) as usize).max(start);
    text.replace_range(start..end, new);
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower_lsp_server::ls_types::Position;

    #[test]
    fn edits_apply_in_utf16() {
        let mut text = "x ← 1\ny += x\n".to_string();
        let r = Range::new(Position::new(0, 4), Position::new(0, 5));
        apply_edit(&mut text, r, "2", Encoding::Utf16);
        assert_eq!(text, "x ← 2\ny += x\n");
        let r = Range::new(Position::new(1, 2), Position::new(1, 4));
        apply_edit(&mut text, r, "-=", Encoding::Utf16);
        assert_eq!(text, "x ← 2\ny -= x\n");
        // Reversed and out-of-range ranges do not panic.
        let r = Range::new(Position::new(9, 9), Position::new(0, 0));
        apply_edit(&mut text, r, "!", Encoding::Utf16);
        assert_eq!(text, "x ← 2\ny -= x\n!");
    }
}
