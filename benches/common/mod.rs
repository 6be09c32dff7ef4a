//! What the sgq benches share: the generated `lasker` input.

use sgtab::judge::Problem;
use sgtab::judge::generate::{Size, generate};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// A `lasker` judge input of about `mb` MB (seed 1, the library's deterministic generator),
/// made once and kept in target/bench-inputs/.
pub fn lasker_input(mb: u64) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target").join("bench-inputs");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("lasker-{mb}MB-seed1.txt"));
    if !path.exists() {
        // One case of 10^6 heaps is about 10.5 MB.
        let cases = (mb * 10).div_ceil(105).max(1);
        // Per process, so two benches making it at once do not write one file.
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        let mut out = BufWriter::new(File::create(&tmp).unwrap());
        generate(
            Problem::Lasker,
            1,
            Size { cases: Some(cases), per_case: Some(1_000_000), chips: None },
            &mut out,
        )
        .unwrap();
        drop(out);
        std::fs::rename(&tmp, &path).unwrap();
    }
    path
}
