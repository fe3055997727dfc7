//! What the GPU crate's tests and benchmarks share (the benchmarks include
//! this file by path).

use nilang_adbench::ba::BaInput;
use nilang_gpu::BaBlocks;

/// ADBench's ba1 instance (`adbench/data/ba/ba1_*.txt`).
pub fn ba1() -> BaInput {
    let dir = nilang_adbench::data_dir().join("ba");
    let name = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .find(|n| n.starts_with("ba1_"))
        .expect("ba1 in adbench/data/ba");
    BaInput::read(dir.join(name)).unwrap()
}

/// An ADBench instance's inputs gathered per observation, converted by
/// `conv`.
pub fn blocks<T: Copy>(input: &BaInput, conv: impl Fn(f64) -> T) -> BaBlocks<T> {
    BaBlocks::gather(
        &input.cams,
        &input.points,
        &input.weights,
        &input.feats,
        &input.obs,
        conv,
    )
}
