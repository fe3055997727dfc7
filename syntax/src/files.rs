//! Which files are `.nil` sources, for every tool that looks for them in
//! folders (`nilc`, the build plugin, the language server, the tests): one
//! rule, no IO here.

/// Whether a folder of this name is left out of a search for `.nil` files:
/// hidden folders (`.git`), build output (`target`) and JavaScript
/// packages (`node_modules`).
pub fn skipped_folder(name: &str) -> bool {
    name.starts_with('.') || name == "target" || name == "node_modules"
}

/// Whether a file is a `.nil` source, by its name.
pub fn is_nil_file(path: &std::path::Path) -> bool {
    path.extension().is_some_and(|e| e == "nil")
}
