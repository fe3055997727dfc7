fn main() {
    nilang_build::compile_dir("nil");
}
