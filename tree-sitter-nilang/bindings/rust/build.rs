fn main() {
    let src_dir = std::path::Path::new("src");
    let parser_path = src_dir.join("parser.c");

    let mut c_config = cc::Build::new();
    c_config
        .std("c11")
        .include(src_dir)
        .flag_if_supported("-Wno-unused-parameter")
        .flag_if_supported("-Wno-unused-but-set-variable")
        .flag_if_supported("-Wno-trigraphs");
    // A WebAssembly build (the playground) has no libc: the language crate
    // ships the headers a generated parser includes, and the `tree-sitter`
    // crate links the functions behind them.
    if std::env::var("TARGET").unwrap_or_default() == "wasm32-unknown-unknown" {
        let headers = std::env::var("DEP_TREE_SITTER_LANGUAGE_WASM_HEADERS")
            .expect("tree-sitter-language gives its WebAssembly headers to a wasm32 build");
        c_config.include(headers);
    }
    c_config.file(&parser_path);
    println!("cargo:rerun-if-changed={}", parser_path.to_str().unwrap());
    c_config.compile("tree-sitter-nilang");
}
