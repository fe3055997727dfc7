//! The server's own watcher of the workspace's `.nil` files, for clients
//! that watch none for it (no dynamic registration of
//! `workspace/didChangeWatchedFiles`). Without it, a file that is not open
//! and changes on disk (a `git checkout`, a formatter, another editor)
//! would keep the diagnostics of its old text. Built on `notify` (inotify
//! on Linux, FSEvents on macOS, ReadDirectoryChangesW on Windows).
//!
//! Each folder of the workspace is watched on its own, and only those the
//! server loads files from: not hidden folders, `target/` or
//! `node_modules/`, which a recursive watch would cover too (a Rust
//! crate's `target/` alone holds thousands of folders, each a watch).
//! A folder created later is watched when it appears.

use std::path::{Path, PathBuf};

use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

/// What the watcher saw.
#[derive(Debug)]
pub enum DiskChange {
    /// A `.nil` file of the workspace changed, appeared or is gone.
    File { path: PathBuf, deleted: bool },
    /// A folder of the workspace appeared: see [`Watching::add_folder`].
    Folder(PathBuf),
}

/// A running watcher, and the changes it reports (until it is dropped).
pub struct Watching {
    watcher: RecommendedWatcher,
    pub changes: UnboundedReceiver<DiskChange>,
}

/// Watches the folders of the workspace under `roots`. An error says why
/// it cannot (the system's limit of watches reached, say).
pub fn watch(roots: &[PathBuf]) -> notify::Result<Watching> {
    let (sender, changes) = unbounded_channel();
    let owned = roots.to_vec();
    let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else {
            return;
        };
        if matches!(event.kind, EventKind::Access(_) | EventKind::Other) {
            return;
        }
        for path in event.paths {
            if !in_workspace(&owned, &path) {
                continue;
            }
            let change = if path.is_dir() {
                DiskChange::Folder(path)
            } else if nilang_ide::is_nil_file(&path) {
                // A rename reports both names: the old one is gone, the
                // new one is there; the disk says which is which.
                let deleted = !path.is_file();
                DiskChange::File { path, deleted }
            } else {
                continue;
            };
            let _ = sender.send(change);
        }
    })?;
    let mut watching = Watching { watcher, changes };
    for root in roots {
        watching.watch_tree(root)?;
    }
    Ok(watching)
}

impl Watching {
    /// Watches a folder that appeared and the folders in it, and returns
    /// the `.nil` files already there (written before its watch began, so
    /// reported by no event).
    pub fn add_folder(&mut self, folder: &Path) -> Vec<PathBuf> {
        let _ = self.watch_tree(folder);
        let mut found = Vec::new();
        crate::workspace::walk(folder, &mut found, 0);
        found
    }

    /// Watches `folder` and every folder under it that the workspace
    /// loads files from.
    fn watch_tree(&mut self, folder: &Path) -> notify::Result<()> {
        self.watcher.watch(folder, RecursiveMode::NonRecursive)?;
        for sub in sub_folders(folder) {
            self.watch_tree(&sub)?;
        }
        Ok(())
    }
}

/// The folders in `folder` that the workspace loads files from.
fn sub_folders(folder: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| !nilang_ide::skipped_folder(&e.file_name().to_string_lossy()))
        .map(|e| e.path())
        .collect()
}

/// Whether `path` is in the workspace: under one of `roots`, and in no
/// folder the workspace skips (nor one itself).
fn in_workspace(roots: &[PathBuf], path: &Path) -> bool {
    roots.iter().any(|root| {
        path.strip_prefix(root).is_ok_and(|relative| {
            relative
                .components()
                .all(|c| !nilang_ide::skipped_folder(&c.as_os_str().to_string_lossy()))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_workspace_s_files_and_folders() {
        let roots = [PathBuf::from("/w")];
        assert!(in_workspace(&roots, Path::new("/w/src/a.nil")));
        assert!(in_workspace(&roots, Path::new("/w/a.nil")));
        assert!(in_workspace(&roots, Path::new("/w/src/models")));
        assert!(!in_workspace(&roots, Path::new("/w/target")));
        assert!(!in_workspace(&roots, Path::new("/w/target/debug/a.nil")));
        assert!(!in_workspace(&roots, Path::new("/w/.git/a.nil")));
        assert!(!in_workspace(&roots, Path::new("/w/node_modules/x/a.nil")));
        assert!(!in_workspace(&roots, Path::new("/elsewhere/a.nil")));
    }
}
