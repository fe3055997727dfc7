//! The server's state: one salsa database, the open documents, and which
//! files are compiled together.
//!
//! A project is the set of `.nil` files of one folder (what `nilc inverse`
//! loads), so that calls across files of the folder resolve. Open documents
//! override what is on disk. A document that is not a `file:` URI is a project
//! of its own.
//!
//! Writes (opening, editing, closing) take `&mut self` and may block in
//! salsa until every snapshot has been dropped: readers hold snapshots only
//! on blocking threads and never wait on this state while holding one, so
//! the writer never deadlocks with them.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use nilang_ide::{Project, RootDatabase, SourceFile, set_file_text, set_project_files};
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

/// What the diagnostics task must (re)compute: an open document at a version.
#[derive(Clone, Debug)]
pub struct DiagnosticsJob {
    pub uri: Uri,
    pub file: SourceFile,
    pub project: Project,
    pub version: i32,
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
    dirty: HashMap<Uri, bool>,
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
        .filter(|p| p.extension().is_some_and(|e| e == "nil") && p.is_file())
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
                let project = Project::new(&self.db, files.clone());
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

    /// The open documents of a project, to re-check after a change in it.
    fn mark_project_dirty(&mut self, project: Project, edited: &Uri) {
        let uris: Vec<Uri> = self
            .open
            .iter()
            .filter(|(_, d)| self.project_of.get(&d.file) == Some(&project))
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
            self.mark_project_dirty(project, &uri);
        }
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
            }
            None => {
                if let Some(&project) = self.project_of.get(&doc.file) {
                    let files: Vec<SourceFile> = project
                        .files(&self.db)
                        .iter()
                        .copied()
                        .filter(|&f| f != doc.file)
                        .collect();
                    set_project_files(&mut self.db, project, files);
                }
                self.files.remove(uri);
                Arc::make_mut(&mut self.uris).remove(&doc.file);
                self.project_of.remove(&doc.file);
            }
        }
        if let Some(&project) = self.project_of.get(&doc.file) {
            self.mark_project_dirty(project, uri);
        }
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

    /// Takes the pending diagnostics work, with a database handle to do it.
    pub fn take_dirty(&mut self) -> Option<(RootDatabase, Vec<DiagnosticsJob>)> {
        if self.dirty.is_empty() {
            return None;
        }
        let jobs = std::mem::take(&mut self.dirty)
            .into_iter()
            .filter_map(|(uri, force)| {
                let doc = self.open.get(&uri)?;
                Some(DiagnosticsJob {
                    file: doc.file,
                    project: *self.project_of.get(&doc.file)?,
                    version: doc.version,
                    uri,
                    force,
                })
            })
            .collect();
        Some((self.db.clone(), jobs))
    }

    /// Puts back work that was cancelled before it finished.
    pub fn requeue(&mut self, jobs: Vec<DiagnosticsJob>) {
        for job in jobs {
            if self.open.contains_key(&job.uri) {
                *self.dirty.entry(job.uri).or_insert(false) |= job.force;
            }
        }
    }

    /// The open documents.
    pub fn open_documents(&self) -> HashSet<Uri> {
        self.open.keys().cloned().collect()
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
