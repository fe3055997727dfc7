//! The standard library: `.nil` modules shipped with the compiler, that
//! any file imports by name (`using std.linalg`). Every shell puts them in
//! its project as library modules (`db::project_with_std`); their Rust is generated
//! once, into the runtime crate (`nilang::stdlib::<module>`, by the
//! runtime's build script), and a project only calls it, except for the
//! instances of its templates, which are generated in the project.

/// One module of the standard library.
pub struct Module {
    /// Its name in `std.<name>` and its Rust module's name.
    pub name: &'static str,
    pub text: &'static str,
}

macro_rules! modules {
    ($($name:literal),* $(,)?) => {
        &[$(Module { name: $name, text: include_str!(concat!("../std/", $name, ".nil")) }),*]
    };
}

/// The modules, in the order docs/stdlib.md lists them.
pub const MODULES: &[Module] = modules![
    "linalg",
    "stats",
    "sparse",
    "lognumber",
    "sorting",
    "special",
    "functional",
];

/// Where a module's source is on disk, as compiled in (so an editor can
/// open it from goto-definition; the text itself is compiled in).
pub fn source_path(name: &str) -> String {
    format!("{STD_DIR}{name}.nil")
}

/// The folder of the standard library's sources on the machine that built
/// this crate.
const STD_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/std/");

/// The path a run-time error names for a file: `std/<module>.nil` for a
/// module of the standard library (its [`source_path`] is the build
/// machine's), the file's own path otherwise.
pub fn shown_path(path: &str) -> std::borrow::Cow<'_, str> {
    match path.strip_prefix(STD_DIR) {
        Some(module) => format!("std/{module}").into(),
        None => path.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run-time error in a standard-library function (a template instance
    /// generated in the user's crate included) names `std/<module>.nil`,
    /// never the build machine's path.
    #[test]
    fn errors_name_std_files_relatively() {
        for m in MODULES {
            assert_eq!(
                shown_path(&source_path(m.name)),
                format!("std/{}.nil", m.name)
            );
        }
        assert_eq!(shown_path("src/model.nil"), "src/model.nil");
    }
}
