//! The `sgtab` binary and the `.sgt` files: committed tables reproduced byte for byte, damaged
//! files refused by `sgtab verify` and by `sgq`, and the read-only commands.

mod common;

use common::{sgtab, tables_dir, text};
use std::fs;
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    common::scratch("tables", name)
}

fn committed() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> =
        fs::read_dir(tables_dir()).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
}

fn rebuild_matches_committed(backend: &str) {
    let out = scratch(&format!("rebuild-{backend}"));
    let run = sgtab(&["build", "--backend", backend, "--dir", out.to_str().unwrap()]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let mut built: Vec<_> = fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name()).collect();
    built.sort();
    let names: Vec<_> = committed().iter().map(|p| p.file_name().unwrap().to_owned()).collect();
    assert_eq!(
        built, names,
        "the default build makes exactly the committed files, no temp files left"
    );
    for file in committed() {
        let fresh = fs::read(out.join(file.file_name().unwrap())).unwrap();
        assert!(
            fresh == fs::read(&file).unwrap(),
            "{} differs from a fresh {backend} build",
            file.display()
        );
    }
    fs::remove_dir_all(&out).unwrap();
}

#[test]
fn committed_tables_are_reproduced_byte_for_byte() {
    rebuild_matches_committed("scalar");
}

#[test]
fn the_simd_engine_writes_the_same_bytes() {
    rebuild_matches_committed("simd");
}

#[test]
fn committed_tables_verify() {
    let files: Vec<String> = committed().iter().map(|p| p.to_str().unwrap().to_owned()).collect();
    let mut args = vec!["verify"];
    args.extend(files.iter().map(|s| s.as_str()));
    let run = sgtab(&args);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert_eq!(text(&run.stdout).matches(": OK (").count(), files.len());
}

/// A copy of the committed tables with chess-20.sgt changed by `damage`.
fn damaged_tables(name: &str, damage: impl Fn(&mut Vec<u8>)) -> PathBuf {
    let dir = scratch(name);
    for file in committed() {
        fs::copy(&file, dir.join(file.file_name().unwrap())).unwrap();
    }
    let chess = dir.join("chess-20.sgt");
    let mut bytes = fs::read(&chess).unwrap();
    damage(&mut bytes);
    fs::write(&chess, bytes).unwrap();
    dir
}

fn refused(dir: &Path, needle: &str) {
    let chess = dir.join("chess-20.sgt");
    let run = sgtab(&["verify", chess.to_str().unwrap()]);
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(
        err.contains(needle) && err.lines().count() == 1 && !err.contains("panicked"),
        "verify: {err}"
    );

    let out = sgq_with(dir, "chess", b"1\n1\n1 20\n");
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(out.stdout.is_empty());
    assert!(err.contains(needle) && err.lines().count() == 1, "sgq: {err}");
    assert!(err.contains("build it with `sgtab build chess:20"), "sgq says what to do: {err}");
    fs::remove_dir_all(dir).unwrap();
}

fn sgq_with(dir: &Path, problem: &str, input: &[u8]) -> std::process::Output {
    common::run(env!("CARGO_BIN_EXE_sgq"), &[problem, "--tables", dir.to_str().unwrap()], input)
}

#[test]
fn a_flipped_value_byte_is_refused() {
    refused(&damaged_tables("flip", |b| b[1000] ^= 0x10), "checksum mismatch");
}

#[test]
fn a_truncated_table_is_refused() {
    refused(&damaged_tables("truncate", |b| b.truncate(b.len() / 2)), "file is truncated");
    refused(&damaged_tables("truncate-header", |b| b.truncate(30)), "file is truncated");
}

#[test]
fn a_damaged_header_is_refused() {
    refused(&damaged_tables("magic", |b| b[0] = b'X'), "wrong magic number");
    refused(&damaged_tables("version", |b| b[8] = 9), "format version 9 is not supported");
    refused(&damaged_tables("bits", |b| b[12] = 0), "damaged header: 0 bits per value");
    refused(
        &damaged_tables("count-up", |b| b[18] ^= 1),
        "file is truncated (or its header damaged)",
    );
    refused(&damaged_tables("count-down", |b| b[18] ^= 0x10), "damaged header or trailing data");
    refused(
        &damaged_tables("spec", |b| b[64] = b'C'),
        "damaged header: the game spec `Chess:20` is not one this sgtab reads",
    );
}

#[test]
fn a_table_with_the_wrong_values_is_caught_by_verify() {
    // Damage a value and fix the checksum: only recomputing can tell.
    let dir = damaged_tables("forged", |b| {
        let n = b.len() - 4;
        b[200] ^= 0x01;
        let crc = crc32fast::hash(&b[..n]);
        b[n..].copy_from_slice(&crc.to_le_bytes());
    });
    let chess = dir.join("chess-20.sgt");
    let run = sgtab(&["verify", chess.to_str().unwrap()]);
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1));
    assert!(err.contains("MISMATCH at index "), "{err}");
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn show_and_dump() {
    let lasker = tables_dir().join("lasker-1024.sgt");
    let run = sgtab(&["show", lasker.to_str().unwrap()]);
    let out = text(&run.stdout);
    assert!(out.contains("game:     lasker:1024"), "{out}");
    assert!(
        out.contains(
            "rule:     g(n+4) = g(n) + 4 for n >= 1 (checked up to n = 1023, not proven beyond)"
        ),
        "{out}"
    );
    assert!(out.contains("values:   0 1 2 4 3 5 6 8 7"), "{out}");
    let sub = tables_dir().join("sub-1_3_9-1024.sgt");
    assert!(
        text(&sgtab(&["show", sub.to_str().unwrap()]).stdout)
            .contains("g(n+2) = g(n) for n >= 0 (proven by the subtraction-game window")
    );
    let dump = text(&sgtab(&["dump", lasker.to_str().unwrap()]).stdout);
    let values: Vec<u64> = dump.lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(values.len(), 1024);
    assert_eq!(&values[..9], &[0, 1, 2, 4, 3, 5, 6, 8, 7]);
}

#[test]
fn bad_specs_and_missing_files_say_what_to_do() {
    let run = sgtab(&["build", "chess:40", "--dir", "/nonexistent-never"]);
    assert_eq!(run.status.code(), Some(1));
    let err = text(&run.stderr);
    assert!(err.contains("bad game spec `chess:40`: chess width 40 is outside 1 to 32"), "{err}");
    let run = sgtab(&["show", "/nonexistent.sgt"]);
    assert_eq!(run.status.code(), Some(1));
    assert!(text(&run.stderr).starts_with("sgtab: error: /nonexistent.sgt: No such file"));
}

#[test]
fn small_builds_of_every_game_round_trip() {
    let out = scratch("games");
    let run = sgtab(&[
        "build",
        "chess:9",
        "sub:2,5:300",
        "lasker:200",
        "funny:40",
        "--backend",
        "scalar",
        "--dir",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    for name in ["chess-9.sgt", "sub-2_5-300.sgt", "lasker-200.sgt", "funny-40.sgt"] {
        let path = out.join(name);
        let run = sgtab(&["verify", path.to_str().unwrap()]);
        assert!(run.status.success(), "{name}: {}", text(&run.stderr));
    }
    fs::remove_dir_all(&out).unwrap();
}

#[test]
fn sgq_answers_from_the_environment_variable() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sgq"))
        .arg("stones")
        .env("SGTAB_TABLES", tables_dir())
        .current_dir(std::env::temp_dir())
        .stdin(fs::File::open(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap())
        .output()
        .unwrap();
    // Cargo.toml is not judge input: the first token is not a number.
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr)
            .contains("line 1, column 1 (byte 0): expected the first heap n1 of pair 1")
    );
}

#[test]
fn auto_says_which_engine_it_chose() {
    let out = scratch("auto");
    let run = sgtab(&["build", "chess:8", "--dir", out.to_str().unwrap()]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let err = text(&run.stderr);
    assert!(err.contains("sgtab: --backend auto chose "), "{err}");
    assert!(text(&run.stdout).contains("chess-8.sgt"));
    fs::remove_dir_all(&out).unwrap();
}

// `verify` exited 1 on a good imported table: it cannot recompute values from another program,
// but their checksum, header and rule hold, so it says so and exits 0. A damaged one still fails.
#[test]
fn verify_passes_a_sound_imported_table_and_says_it_cannot_recompute_it() {
    let dir = scratch("verify-import");
    let d = dir.to_str().unwrap();
    let imported = common::run(
        env!("CARGO_BIN_EXE_sgtab"),
        &["import", "-", "--name", "mine", "--dir", d],
        b"0\n1\n2\n0\n1\n2\n",
    );
    assert!(imported.status.success(), "{}", text(&imported.stderr));
    let file = dir.join("mine.sgt");
    let run = sgtab(&["verify", file.to_str().unwrap()]);
    assert!(run.status.success() && run.stderr.is_empty(), "{}", text(&run.stderr));
    assert_eq!(
        text(&run.stdout),
        format!(
            "{}: OK as stored (import:mine, 6 entries: checksum, header and rule hold); its \
                values were imported from another program, so sgtab cannot recompute them\n",
            file.display()
        )
    );
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&file, &bytes).unwrap();
    let run = sgtab(&["verify", file.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stdout));
    assert!(text(&run.stderr).contains("checksum mismatch"), "{}", text(&run.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

// Import's messages: "3 fields where one value as the lines before", "1 fields", and an index
// past the table reported as "index 1 is missing".
#[test]
fn import_says_what_is_wrong_with_a_line_in_words() {
    let dir = scratch("import-messages");
    let d = dir.to_str().unwrap();
    for (input, want) in [
        ("0\n1 2 3\n", "standard input:2: 3 fields, but the lines before hold one value each"),
        (
            "0 1\n1\n",
            "standard input:2: 1 field, but the lines before hold an index and a value each \
                (`index value`)",
        ),
        (
            "7 8 9\n",
            "standard input:1: 3 fields on the first line of values; a line holds one value, or \
                an index and a value",
        ),
        (
            "0 1\n1073741823 5\n",
            "standard input:2: index 1073741823 is out of range: 2 entries were given, so without \
                --shape the indexes are 0 to 1; give --shape N for a larger table (every index \
                once)",
        ),
    ] {
        let run = common::run(
            env!("CARGO_BIN_EXE_sgtab"),
            &["import", "-", "--name", "bad", "--dir", d],
            input.as_bytes(),
        );
        let err = text(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{input:?}: {err}");
        assert_eq!(err, format!("sgtab: error: {want}\n"), "{input:?}");
        assert!(!dir.join("bad.sgt").exists());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
