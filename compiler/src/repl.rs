//! `nilc repl`: what one line typed at the prompt does, apart from the
//! terminal (the line editor is `nilc`'s). A session holds the loaded
//! files, the interpreter's variables, and answers each line with text.
//!
//! ```text
//! nil> x = [1.0, 2.0, 3.0]
//! nil> out = 0.0
//! nil> isum(out, x)          # calls change the variables they are given
//! out = 6.0
//! x = [1.0, 2.0, 3.0]
//! nil> ~isum(out, x)         # the inverse
//! nil> grad isum(out, x) out # adjoints, seeded with 1 on `out`
//! nil> :inverse isum         # its inverse, as .nil
//! nil> :emit isum            # the Rust generated for it
//! ```

use crate::db::{self, Project, RootDatabase, SourceFile};
use nilang_interp::{Direction, Interpreter, Value, literal};
use std::collections::BTreeMap;

/// The commands, for `:help` and completion.
pub const COMMANDS: &[(&str, &str)] = &[
    (":help", "this list"),
    (
        ":load FILE",
        "load a .nil file (with the files of its folder)",
    ),
    (":functions", "the functions loaded"),
    (":vars", "the variables and their values"),
    (":inverse F", "the inverse of F, as .nil source"),
    (":emit F", "the Rust generated for F and its inverse"),
    (":quit", "leave (or Ctrl-D)"),
];

/// A REPL session: a project and the variables typed so far.
pub struct Session {
    db: RootDatabase,
    files: Vec<(String, String)>,
    project: Project,
    sources: Vec<SourceFile>,
    vars: BTreeMap<String, Value>,
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

impl Session {
    pub fn new() -> Session {
        let db = RootDatabase::default();
        let project = db::project_with_std(&db, Vec::new(), Vec::new());
        Session {
            db,
            files: Vec::new(),
            project,
            sources: Vec::new(),
            vars: BTreeMap::new(),
        }
    }

    /// Adds files (path and text) to the project; their errors, if any,
    /// are the answer (the functions of a file with errors do not run).
    pub fn load(&mut self, files: Vec<(String, String)>) -> Result<String, String> {
        for (path, text) in files {
            match self.files.iter_mut().find(|(p, _)| *p == path) {
                Some(slot) => slot.1 = text,
                None => self.files.push((path, text)),
            }
        }
        self.db = RootDatabase::default();
        self.sources = self
            .files
            .iter()
            .map(|(p, t)| SourceFile::new(&self.db, p.clone(), t.clone()))
            .collect();
        self.project = db::project_with_std(&self.db, self.sources.clone(), Vec::new());
        let mut errors = String::new();
        for (&file, (path, text)) in self.sources.iter().zip(&self.files) {
            let diagnostics: Vec<_> = db::file_diagnostics(&self.db, self.project, file)
                .iter()
                .filter(|d| d.severity == crate::Severity::Error)
                .cloned()
                .collect();
            if !diagnostics.is_empty() {
                errors.push_str(&crate::render::render_human(
                    path,
                    text,
                    &diagnostics,
                    false,
                ));
            }
        }
        if errors.is_empty() {
            Ok(format!(
                "{} file{} loaded, {} function{}",
                self.files.len(),
                if self.files.len() == 1 { "" } else { "s" },
                self.functions().len(),
                if self.functions().len() == 1 { "" } else { "s" }
            ))
        } else {
            Err(errors)
        }
    }

    /// The functions of the loaded files, sorted.
    pub fn functions(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .sources
            .iter()
            .flat_map(|&f| db::file_functions(&self.db, self.project, f).iter())
            .map(|f| f.name(&self.db).clone())
            .collect();
        names.sort();
        names
    }

    /// The variables' names, sorted.
    pub fn variables(&self) -> Vec<String> {
        self.vars.keys().cloned().collect()
    }

    /// Answers one line: the text to print, or an error's.
    pub fn line(&mut self, line: &str) -> Result<String, String> {
        let line = line.trim();
        let line = match line.find(" #") {
            Some(i) => line[..i].trim(),
            None if line.starts_with('#') => "",
            None => line,
        };
        if line.is_empty() {
            return Ok(String::new());
        }
        if let Some(command) = line.strip_prefix(':') {
            return self.command(command);
        }
        if let Some(rest) = line.strip_prefix("grad ") {
            return self.gradient(rest);
        }
        if let Some((name, value)) = assignment(line) {
            let v = self.value(value)?;
            self.vars.insert(name.to_string(), v.clone());
            return Ok(format!("{name} = {v}"));
        }
        if let Some(rest) = line.strip_prefix('~') {
            return self.call(rest, Direction::Backward);
        }
        if line.contains('(') {
            return self.call(line, Direction::Forward);
        }
        self.value(line).map(|v| v.to_string())
    }

    fn command(&mut self, command: &str) -> Result<String, String> {
        let (name, arg) = command
            .split_once(' ')
            .map_or((command, ""), |(n, a)| (n, a.trim()));
        match name {
            "help" | "h" | "?" => Ok(COMMANDS
                .iter()
                .map(|(c, what)| format!("{c:<14} {what}"))
                .chain([
                    "x = VALUE      a variable (1.5, [1, 2], [1 2; 3 4], Complex(1, 2))".into(),
                    "f(x, 2.0)      call f: the variables it is given take the new values".into(),
                    "~f(x, 2.0)     call its inverse".into(),
                    "grad f(x, y) x its gradient, seeding the adjoint of x with 1".into(),
                ])
                .collect::<Vec<_>>()
                .join("\n")),
            "load" | "l" => {
                if arg.is_empty() {
                    return Err(":load needs a file".into());
                }
                let files = read_with_folder(arg)?;
                self.load(files)
            }
            "functions" | "f" => Ok(self.functions().join("\n")),
            "vars" | "v" => Ok(self
                .vars
                .iter()
                .map(|(n, v)| format!("{n} = {v}"))
                .collect::<Vec<_>>()
                .join("\n")),
            "inverse" | "i" => {
                let f = self.function(arg)?;
                Ok(db::inverse_source(&self.db, f).trim_end().to_string())
            }
            "emit" | "e" => {
                let f = self.function(arg)?;
                let module = db::rust_module_text(
                    &self.db,
                    self.project,
                    f.file(&self.db),
                    &crate::codegen::Options::default(),
                )
                .map_err(|errors| {
                    errors
                        .iter()
                        .map(|d| d.message.clone())
                        .collect::<Vec<_>>()
                        .join("\n")
                })?;
                let rust = crate::names::rust_name(f.name(&self.db));
                // Each entry point and the body it runs.
                let uncall = crate::names::uncall_name(&rust);
                let names = [
                    crate::names::inner_name(&rust),
                    crate::names::inner_name(&uncall),
                    rust,
                    uncall,
                ];
                let items = items_named(&module, &names);
                if items.is_empty() {
                    Err(format!("no Rust generated for `{arg}`"))
                } else {
                    Ok(items.join("\n\n"))
                }
            }
            "quit" | "q" | "exit" => Ok(String::new()),
            _ => Err(format!("unknown command `:{name}` (`:help` lists them)")),
        }
    }

    fn function(&self, name: &str) -> Result<crate::FnId<'_>, String> {
        if name.is_empty() {
            return Err("name a function".into());
        }
        db::lookup_function(&self.db, self.project, name)
            .ok_or_else(|| format!("no function `{name}` is loaded (`:functions` lists them)"))
    }

    /// A value typed at the prompt: a literal or a variable.
    fn value(&self, text: &str) -> Result<Value, String> {
        let text = text.trim();
        if let Some(v) = self.vars.get(text) {
            return Ok(v.clone());
        }
        literal::parse(text).map_err(|e| {
            if text
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '!')
            {
                format!("no variable `{text}` (`:vars` lists them)")
            } else {
                e
            }
        })
    }

    /// `f(a, b, ...)`: the function, its arguments' values, and for each
    /// argument the variable it names, if any.
    fn parse_call<'a>(&self, text: &'a str) -> Result<Call<'a>, String> {
        let open = text.find('(').ok_or("expected a call `f(...)`")?;
        let name = text[..open].trim();
        let inner = text[open + 1..]
            .trim_end()
            .strip_suffix(')')
            .ok_or("a call ends with `)`")?;
        let mut values = Vec::new();
        let mut names = Vec::new();
        for arg in split_arguments(inner) {
            let arg = arg.trim();
            values.push(self.value(arg)?);
            names.push(self.vars.contains_key(arg).then(|| arg.to_string()));
        }
        Ok((name, values, names))
    }

    fn call(&mut self, text: &str, direction: Direction) -> Result<String, String> {
        let (name, values, names) = self.parse_call(text)?;
        let name = name.to_string();
        let (params, out) = {
            let mut run = Interpreter::new(&self.db, self.project);
            let f = run.function(&name).ok_or_else(|| {
                format!("no function `{name}` is loaded (`:functions` lists them)")
            })?;
            let params = run.params(f);
            let out = run
                .call(&name, values, direction)
                .map_err(|e| e.to_string())?;
            let mut shown = run.output.clone();
            if !shown.is_empty() && !shown.ends_with('\n') {
                shown.push('\n');
            }
            (params, (out, shown))
        };
        let (out, mut shown) = out;
        for ((p, _), (v, var)) in params.iter().zip(out.iter().zip(&names)) {
            let label = var.as_deref().unwrap_or(p);
            shown.push_str(&format!("{label} = {v}\n"));
            if let Some(var) = var {
                self.vars.insert(var.clone(), v.clone());
            }
        }
        Ok(shown.trim_end().to_string())
    }

    /// `grad f(args...) seed...`: the adjoints after the reverse run,
    /// seeding each named parameter (or variable passed for it) with 1.
    fn gradient(&mut self, text: &str) -> Result<String, String> {
        let close = text.rfind(')').ok_or("expected `grad f(...) seed`")?;
        let (call, seeds) = text.split_at(close + 1);
        let (name, values, names) = self.parse_call(call)?;
        let mut run = Interpreter::new(&self.db, self.project);
        let f = run
            .function(name)
            .ok_or_else(|| format!("no function `{name}` is loaded (`:functions` lists them)"))?;
        let params = run.params(f);
        let mut seeded = Vec::new();
        for seed in seeds.split_whitespace() {
            // A seed names a parameter, or the variable passed for it.
            let param = names
                .iter()
                .position(|n| n.as_deref() == Some(seed))
                .and_then(|i| params.get(i))
                .or_else(|| params.iter().find(|(p, _)| p == seed))
                .ok_or_else(|| {
                    format!("`{seed}` is no parameter of `{name}` nor a variable passed to it")
                })?;
            seeded.push((param.0.clone(), Value::F64(1.0)));
        }
        if seeded.is_empty() {
            return Err("name what to seed: `grad f(y, x) y`".into());
        }
        let (_, grads) = run
            .gradient(name, values, &seeded)
            .map_err(|e| e.to_string())?;
        Ok(params
            .iter()
            .zip(grads.iter().zip(&names))
            .filter(|(_, (g, _))| g.has_adjoint())
            .map(|((p, _), (g, var))| {
                format!(
                    "{} = {g}",
                    crate::names::bar_name(var.as_deref().unwrap_or(p))
                )
            })
            .collect::<Vec<_>>()
            .join("\n"))
    }
}

/// A call typed at the prompt: the function, its arguments' values, and
/// for each argument the variable it names, if any.
type Call<'a> = (&'a str, Vec<Value>, Vec<Option<String>>);

/// `name = value`, when the line is an assignment (not `==`).
fn assignment(line: &str) -> Option<(&str, &str)> {
    let (name, value) = line.split_once('=')?;
    let name = name.trim();
    if value.starts_with('=') || name.is_empty() {
        return None;
    }
    name.chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '!')
        .then_some((name, value.trim()))
}

/// Arguments separated by commas outside brackets and parentheses.
fn split_arguments(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !text[start..].trim().is_empty() {
        out.push(&text[start..]);
    }
    out
}

/// The top-level `pub fn` items of a Rust module named `names`.
fn items_named(module: &str, names: &[String]) -> Vec<String> {
    let lines: Vec<&str> = module.lines().collect();
    let mut out = Vec::new();
    let mut k = 0;
    while k < lines.len() {
        let starts = names.iter().any(|n| {
            lines[k].starts_with(&format!("pub fn {n}<"))
                || lines[k].starts_with(&format!("pub fn {n}("))
        });
        if starts {
            let end = (k..lines.len())
                .find(|&j| lines[j] == "}")
                .unwrap_or(lines.len() - 1);
            out.push(lines[k..=end].join("\n"));
            k = end + 1;
        } else {
            k += 1;
        }
    }
    out
}

/// A file and the other `.nil` files of its folder, as `nilc run` loads
/// them.
pub fn read_with_folder(path: &str) -> Result<Vec<(String, String)>, String> {
    let path = std::path::Path::new(path);
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    let mut files = vec![(path.display().to_string(), text)];
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    if let Ok(entries) = std::fs::read_dir(folder) {
        let mut others: Vec<_> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.extension().is_some_and(|e| e == "nil") && p.file_name() != path.file_name()
            })
            .collect();
        others.sort();
        for other in others {
            if let Ok(text) = std::fs::read_to_string(&other) {
                files.push((other.display().to_string(), text));
            }
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_calls_uncalls_and_differentiates() {
        let mut s = Session::new();
        s.load(vec![(
            "m.nil".into(),
            "function mul(out!::f64, x::f64, y::f64)\n    out! += x * y\nend\n".into(),
        )])
        .unwrap();
        let mut said = Vec::new();
        for line in [
            "a = 3.0",
            "b = 0.5",
            "out = 1.0",
            "mul(out, a, b)",
            "out",
            "~mul(out, a, b)",
            "grad mul(out, a, b) out",
            ":inverse mul",
            "mul(out, a)",
            "c",
            ":nope",
        ] {
            said.push(match s.line(line) {
                Ok(t) => t,
                Err(e) => format!("error: {e}"),
            });
        }
        expect_test::expect![[r#"
            a = 3.0
            b = 0.5
            out = 1.0
            out = 2.5
            a = 3.0
            b = 0.5
            2.5
            out = 1.0
            a = 3.0
            b = 0.5
            out_bar = 1.0
            a_bar = 0.5
            b_bar = 3.0
            function mul(out!::f64, x::f64, y::f64)
                out! -= x * y
            end
            error: `mul` takes 3 arguments (out!::f64, x::f64, y::f64), 2 given
            error: no variable `c` (`:vars` lists them)
            error: unknown command `:nope` (`:help` lists them)"#]]
        .assert_eq(&said.join("\n"));
    }
}
