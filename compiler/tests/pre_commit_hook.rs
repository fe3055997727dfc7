//! docs/ci/pre-commit-hook checks what is staged, not the working tree: in
//! a scratch repository, a staged broken `.nil` file with a fixed copy left
//! unstaged is refused, and a staged good file with a broken copy left
//! unstaged goes through.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::path_with_nilc;

const CLEAN: &str = "function f(y::f64, x::f64)\n    y += x\nend\n";
const BROKEN: &str = "function f(y::f64, x::f64)\n    y += x * y\nend\n";
/// Calls `f` of another file: checked with it, as one project.
const CALLER: &str = "function g(y::f64, x::f64)\n    f(y, x)\nend\n";

fn hook() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/ci/pre-commit-hook")
}

struct Repo {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Repo {
    /// A git repository with the hook installed, in a folder of its own
    /// inside a scratch folder (the hook writes the staged files beside the
    /// repository, and must leave nothing there).
    fn new() -> Repo {
        let tmp = tempfile::Builder::new()
            .prefix("nilc-hook-")
            .tempdir()
            .unwrap();
        let root = tmp.path().join("repo");
        std::fs::create_dir(&root).unwrap();
        let repo = Repo { _tmp: tmp, root };
        repo.git_ok(&["init", "-q"]);
        std::fs::copy(hook(), repo.root.join(".git/hooks/pre-commit")).unwrap();
        repo
    }

    fn write(&self, name: &str, text: &str) {
        let path = self.root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn git(&self, args: &[&str]) -> (bool, String) {
        let out = Command::new("git")
            .args(args)
            .current_dir(&self.root)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", self.root.parent().unwrap())
            .env("PATH", path_with_nilc())
            .output()
            .expect("git runs");
        let text = String::from_utf8_lossy(&out.stderr).into_owned()
            + &String::from_utf8_lossy(&out.stdout);
        (out.status.success(), text)
    }

    fn git_ok(&self, args: &[&str]) -> String {
        let (ok, output) = self.git(args);
        assert!(ok, "git {args:?}: {output}");
        output
    }

    /// The scratch folder holds the repository and nothing else.
    fn assert_nothing_left_beside(&self) {
        let names: Vec<_> = std::fs::read_dir(self.root.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["repo"], "the hook left files beside the repository");
    }
}

#[test]
fn a_staged_broken_file_is_refused_though_the_working_tree_is_fixed() {
    let repo = Repo::new();
    repo.write("src/a.nil", BROKEN);
    repo.git_ok(&["add", "src/a.nil"]);
    repo.write("src/a.nil", CLEAN); // fixed, not staged
    let (ok, output) = repo.git(&["commit", "-qm", "broken"]);
    assert!(!ok, "the broken staged file was committed: {output}");
    assert!(output.contains("src/a.nil:2:14: error[E0201]"), "{output}");
    repo.assert_nothing_left_beside();
    // Staged, the fix goes through.
    repo.git_ok(&["add", "src/a.nil"]);
    repo.git_ok(&["commit", "-qm", "fixed"]);
    repo.assert_nothing_left_beside();
}

#[test]
fn a_staged_good_file_goes_through_though_the_working_tree_is_broken() {
    let repo = Repo::new();
    repo.write("src/a.nil", CLEAN);
    repo.git_ok(&["add", "src/a.nil"]);
    repo.write("src/a.nil", BROKEN); // broken, not staged
    // An untracked broken file is not part of the commit either.
    repo.write("src/scratch.nil", BROKEN);
    let (ok, output) = repo.git(&["commit", "-qm", "good"]);
    assert!(ok, "{output}");
    repo.assert_nothing_left_beside();
}

#[test]
fn the_staged_files_are_one_project() {
    let repo = Repo::new();
    // `g` calls `f` of the other file: staged alone, it is refused.
    repo.write("src/b.nil", CALLER);
    repo.git_ok(&["add", "src/b.nil"]);
    repo.write("src/a.nil", CLEAN); // `f`, not staged
    let (ok, output) = repo.git(&["commit", "-qm", "caller"]);
    assert!(!ok, "{output}");
    assert!(output.contains("src/b.nil:2:"), "{output}");
    // With `f` staged too, it goes through.
    repo.git_ok(&["add", "src/a.nil"]);
    repo.git_ok(&["commit", "-qm", "both"]);
    // A later commit that only touches `b.nil` is checked with the
    // committed `a.nil`: a broken `a.nil` left unstaged does not count.
    repo.write("src/a.nil", BROKEN);
    repo.write("src/b.nil", &format!("{CALLER}\n"));
    repo.git_ok(&["add", "src/b.nil"]);
    repo.git_ok(&["commit", "-qm", "caller again"]);
}

#[test]
fn git_commit_with_paths_checks_what_it_commits() {
    // `git commit <path>` commits the working-tree file, through an index
    // of its own ($GIT_INDEX_FILE): that is the content checked.
    let repo = Repo::new();
    repo.write("a.nil", CLEAN);
    repo.git_ok(&["add", "a.nil"]);
    repo.git_ok(&["commit", "-qm", "clean"]);
    repo.write("a.nil", BROKEN);
    let (ok, output) = repo.git(&["commit", "-qm", "broken", "a.nil"]);
    assert!(!ok, "{output}");
    assert!(output.contains("a.nil:2:14: error[E0201]"), "{output}");
    repo.write("a.nil", &format!("{CLEAN}\n"));
    repo.git_ok(&["commit", "-qm", "fixed", "a.nil"]);
}
