//! The plugin on 100 functions in 10 files: a full compilation, and a run
//! with nothing changed (every output already up to date).

use nilang_build::Config;

fn main() {
    divan::main();
}

fn setup() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("nilang-plugin-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("nil")).unwrap();
    std::fs::create_dir_all(dir.join("out")).unwrap();
    for file in 0..10 {
        let mut text = String::new();
        for f in 0..10 {
            let n = file * 10 + f;
            text.push_str(&format!(
                "function f{n}(y::f64, x::f64, v::[f64], k::i64)\n    a ← zero(f64)\n    @routine a += sin(x)\n    for i = 1:k\n        v[i] += a * x\n    end\n    while (y < 10.0, y > 0.0)\n        y += 1.0\n    end\n    ~@routine\nend\n\n"
            ));
        }
        std::fs::write(dir.join(format!("nil/m{file}.nil")), text).unwrap();
    }
    dir
}

fn config(dir: &std::path::Path) -> Config {
    Config::new()
        .manifest_dir(dir)
        .out_dir(dir.join("out"))
        .read_metadata(false)
        .emit_cargo_directives(false)
}

#[divan::bench(sample_count = 20)]
fn compile_100_functions(bencher: divan::Bencher) {
    let dir = setup();
    bencher.bench(|| {
        for entry in std::fs::read_dir(dir.join("out")).unwrap() {
            std::fs::remove_file(entry.unwrap().path()).unwrap();
        }
        config(&dir).compile_dir("nil").unwrap().len()
    });
}

#[divan::bench(sample_count = 20)]
fn nothing_changed(bencher: divan::Bencher) {
    let dir = setup();
    config(&dir).compile_dir("nil").unwrap();
    bencher.bench(|| config(&dir).compile_dir("nil").unwrap().len());
}
