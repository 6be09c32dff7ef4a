//! The command line as a user meets it: bad options in one line with the pointer to `--help`,
//! `gen` sizes refused outside their range, `show --rows` checked before anything is printed,
//! and notes said once.

mod common;

use common::{sgtab, tables_dir, text};

/// A refusal in one line, no panic, with the exit status `code`.
fn refused(args: &[&str], code: i32, needles: &[&str]) {
    let run = sgtab(args);
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(code), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
    assert!(err.starts_with("sgtab: error: ") && !err.contains("panicked"), "{args:?}: {err}");
    for needle in needles {
        assert!(err.contains(needle), "{args:?}: `{err}` lacks `{needle}`");
    }
    assert!(run.stdout.is_empty(), "{args:?}: {}", text(&run.stdout));
}

#[test]
fn bad_options_are_one_line_with_the_pointer_to_help() {
    refused(
        &["build", "--backend", "cuda"],
        2,
        &["invalid value 'cuda'", "possible values: auto, scalar, simd, gpu", "sgtab --help"],
    );
    refused(&["build", "0.07", "--prove", "--max", "0"], 2, &["'0'", "--max", "sgtab --help"]);
    refused(
        &["plot", "t.sgt", "-o", "t.png", "--size", "1000x"],
        2,
        &["`1000x` is not WIDTHxHEIGHT", "sgtab --help"],
    );
    refused(&["show"], 2, &["required", "sgtab --help"]);
    refused(&["frobnicate"], 2, &["frobnicate", "sgtab --help"]);
    refused(&["build", "--bogus"], 2, &["--bogus", "sgtab --help"]);
    // Help and version still print in full, with success.
    for args in [&["--help"][..], &["build", "--help"], &["--version"]] {
        let run = sgtab(args);
        assert!(
            run.status.success() && !run.stdout.is_empty() && run.stderr.is_empty(),
            "{args:?}"
        );
    }
}

#[test]
fn gen_refuses_sizes_outside_their_range() {
    refused(&["gen", "chess", "--chips", "25"], 1, &["--chips 25 is outside 0 to 20 for chess"]);
    refused(&["gen", "lasker", "--cases", "0"], 1, &["--cases 0 is outside 1 to 100 for lasker"]);
    refused(&["gen", "lasker", "--cases", "101"], 1, &["--cases 101 is outside 1 to 100"]);
    refused(
        &["gen", "lasker", "--per-case", "2000000"],
        1,
        &["--per-case 2000000 is outside 1 to 1000000 for lasker"],
    );
    refused(&["gen", "funny", "--per-case", "24"], 1, &["outside 1 to 23"]);
    refused(&["gen", "snim", "--per-case", "0"], 1, &["outside 1 to 100"]);
    refused(&["gen", "stones", "--per-case", "3"], 1, &["--per-case does not apply to stones"]);
    refused(&["gen", "lasker", "--chips", "3"], 1, &["--chips does not apply to lasker"]);
    // The edges of the ranges are legal.
    for args in [
        &["gen", "chess", "--chips", "20", "--cases", "1", "--per-case", "1"][..],
        &["gen", "funny", "--cases", "1", "--per-case", "23"],
    ] {
        let run = sgtab(args);
        assert!(run.status.success(), "{args:?}: {}", text(&run.stderr));
    }
}

#[test]
fn show_rows_on_a_heap_table_is_refused_before_anything_is_printed() {
    let file = tables_dir().join("lasker-1024.sgt");
    refused(
        &["show", file.to_str().unwrap(), "--rows", "2"],
        1,
        &["--rows is for boards and games of several axes", "lasker:1024 is not one"],
    );
}

#[test]
fn the_auto_backend_says_once_why_it_passed_the_gpu_over() {
    // Without a hardware adapter (lavapipe is software), auto notes its choice for chess once.
    let dir = common::scratch("cli", "notes");
    let run = sgtab(&["build", "chess:6", "--dir", dir.to_str().unwrap()]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let err = text(&run.stderr);
    // Once, or never where a hardware adapter is found; a build asks for its engine twice.
    assert!(err.matches("--backend auto chose").count() <= 1, "{err}");
}

#[test]
fn a_wgpu_backend_variable_that_names_nothing_says_so() {
    let dir = common::scratch("cli", "wgpu");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_sgtab"))
        .args(["build", "chess:6", "--backend", "gpu", "--dir", dir.to_str().unwrap()])
        .env("WGPU_BACKEND", "bogus")
        .output()
        .unwrap();
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(
        err.contains("WGPU_BACKEND=`bogus` names no wgpu backend") && !err.contains("tried: none"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn a_build_of_a_three_heap_code_shows_its_progress_with_its_size() {
    // 0.8 to 4096 heaps takes a few seconds (three-heap splits are cubic): progress lines name
    // the table being built and count its heaps.
    let dir = common::scratch("cli", "progress");
    let run = sgtab(&["build", "0.8:4096", "--dir", dir.to_str().unwrap()]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let err = text(&run.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("building 0.8:4096: ")).collect();
    assert!(lines.iter().any(|l| l.contains("/4096) after")), "{err}");
    assert!(lines.last().is_some_and(|l| l.contains("done in")), "{err}");
}

#[test]
fn show_gives_a_board_as_a_grid_and_how_often_each_value_occurs() {
    let dir = common::scratch("cli", "show-board");
    let built = sgtab(&["build", "queen:8", "--dir", dir.to_str().unwrap()]);
    assert!(built.status.success(), "{}", text(&built.stderr));
    let shown =
        text(&sgtab(&["show", dir.join("queen-8.sgt").to_str().unwrap(), "--values", "3"]).stdout);
    // Wythoff's game: g(x, y) = x xor y below 3.
    assert!(shown.contains("values:   the corner 3×3 of 8×8: x down, y across\n"), "{shown}");
    assert!(
        shown.contains("          0 | 0 1 2\n          1 | 1 2 0\n          2 | 2 0 1\n"),
        "{shown}"
    );
    // Every value of the 8×8 board with its count and last position: the zeros are Wythoff's
    // P-positions (0, 0), (1, 2), (2, 1), (3, 5), (5, 3), (4, 7), (7, 4).
    assert!(shown.contains("counts:   11 values: 0 ×7 (last at (7, 4)), "), "{shown}");
    let counts = shown.lines().find(|l| l.starts_with("counts:")).unwrap();
    let total: u64 = counts
        .split('×')
        .skip(1)
        .map(|s| s.split_whitespace().next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, 64, "{counts}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn timings_label_each_step_of_a_growing_build() {
    let dir = common::scratch("cli", "timings");
    let built = sgtab(&["build", "0.16:20000", "--timings", "--dir", dir.to_str().unwrap()]);
    assert!(built.status.success(), "{}", text(&built.stderr));
    let out = text(&built.stdout);
    let steps: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("  kernel") || l.starts_with("  rule search"))
        .collect();
    // 256, 1024, 4096 (a quarter of the length at most), then the whole table.
    for (k, (from, to)) in [(0, 256), (256, 1024), (1024, 4096), (4096, 20000)].iter().enumerate() {
        assert!(steps[2 * k].starts_with(&format!("  kernel, heaps {from} to {to} ")), "{out}");
        assert!(steps[2 * k + 1].starts_with(&format!("  rule search over {to} heaps ")), "{out}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

// `-o` was a directory for `build` and `import` but a file for `dump`, `export` and `plot`. The
// directory is `-d/--dir` now; the old spelling still works, with a one-line note.
#[test]
fn dir_names_the_directory_and_out_a_file_with_the_old_spelling_noted() {
    let dir = common::scratch("cli", "dir-flag");
    let d = |name: &str| dir.join(name).to_str().unwrap().to_string();
    for flag in ["-d", "--dir"] {
        let run = sgtab(&["build", "lasker:16", flag, &d(flag)]);
        assert!(run.status.success() && run.stderr.is_empty(), "{flag}: {}", text(&run.stderr));
        assert!(dir.join(flag).join("lasker-16.sgt").is_file(), "{flag}");
    }
    for flag in ["-o", "--out"] {
        let run = sgtab(&["build", "lasker:16", flag, &d(&format!("old{flag}"))]);
        let err = text(&run.stderr);
        assert!(run.status.success(), "{flag}: {err}");
        assert!(dir.join(format!("old{flag}")).join("lasker-16.sgt").is_file(), "{flag}");
        assert_eq!(err.lines().count(), 1, "{flag}: {err}");
        assert!(
            err.starts_with("sgtab: note: `build -o/--out DIR` is spelled `-d/--dir DIR` now"),
            "{flag}: {err}"
        );
        let run = common::run(
            env!("CARGO_BIN_EXE_sgtab"),
            &["import", "-", "--name", "x", flag, &d(&format!("import{flag}"))],
            b"0\n1\n",
        );
        let err = text(&run.stderr);
        assert!(
            run.status.success() && dir.join(format!("import{flag}/x.sgt")).is_file(),
            "{flag}: {err}"
        );
        assert!(
            err.lines().count() == 1
                && err.contains("`import -o/--out DIR` is spelled `-d/--dir DIR` now"),
            "{flag}: {err}"
        );
    }
    // Both at once is a usage error, not a guess.
    refused(
        &["build", "lasker:16", "-d", &d("a"), "-o", &d("b")],
        2,
        &["cannot be used with", "sgtab --help"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `sgtab COMMAND --help`, printed in full.
fn help(command: &str) -> String {
    let run = sgtab(&[command, "--help"]);
    assert!(run.status.success(), "{command} --help: {}", text(&run.stderr));
    text(&run.stdout)
}

#[test]
fn help_says_what_each_flag_and_argument_is() {
    // One meaning per flag: -d/--dir a directory, -o/--out a file.
    for command in ["build", "import"] {
        let h = help(command);
        assert!(h.contains("-d, --dir <DIR>") && !h.contains("--out"), "{command}: {h}");
    }
    for command in ["dump", "export", "plot"] {
        let h = help(command);
        assert!(h.contains("-o, --out <FILE>") && !h.contains("--dir"), "{command}: {h}");
    }
    // Every argument is described.
    let verify = help("verify");
    assert!(
        verify.contains("[FILE]...") && verify.contains("The .sgt table files to check"),
        "{verify}"
    );
    assert!(verify.contains("An imported table"), "{verify}");
    for command in ["show", "dump", "export", "plot"] {
        assert!(
            help(command).contains("<FILE>  The .sgt table file"),
            "{command}: {}",
            help(command)
        );
    }
    // --rows works on any board or k-D table, and says so.
    let show = help("show");
    assert!(!show.contains("Board games (queen, rook, king):"), "{show}");
    assert!(show.contains("any game of two or more axes"), "{show}");
    // build lists what it can build: not an imported table, which `sgtab import` makes.
    let build = help("build");
    assert!(build.contains("lua:PATH") && !build.contains("import:NAME"), "{build}");
    // And what it says holds: --rows on a 3-D imported table gives each row's rule.
    let dir = common::scratch("cli", "rows-3d");
    let values: String = (0..2 * 3 * 8).map(|i| format!("{}\n", i % 8 % 3)).collect();
    let run = common::run(
        env!("CARGO_BIN_EXE_sgtab"),
        &["import", "-", "--name", "box", "--shape", "2x3x8", "--dir", dir.to_str().unwrap()],
        values.as_bytes(),
    );
    assert!(run.status.success(), "{}", text(&run.stderr));
    let run = sgtab(&["show", dir.join("box.sgt").to_str().unwrap(), "--rows", "2"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(text(&run.stdout).contains("rows:"), "{}", text(&run.stdout));
    std::fs::remove_dir_all(&dir).unwrap();
}
