//! `sgtab export`: the C, C++, Rust and Python sources compiled (gcc, g++, rustc) or run
//! (python3) and compared value for value with their tables, for every committed table and
//! Kayles; past the table, with a longer reference where the rule answers.

mod common;

use common::{sgtab, tables_dir, text};
use sgtab::progress::Progress;
use sgtab::spec::GameSpec;
use sgtab::table::{Table, format};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn scratch(name: &str) -> PathBuf {
    common::scratch("export", name)
}

/// Whether `tool` runs; a missing compiler skips its language with a loud line (CI installs them).
fn have(tool: &str) -> bool {
    let ok = Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "{tool} is missing on CI; scripts/test.sh installs it"
        );
        eprintln!("SKIPPED: {tool} not found");
    }
    ok
}

fn run_ok(cmd: &mut Command) {
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{cmd:?}: {}{}", text(&out.stdout), text(&out.stderr));
}

/// Exports `file` to every language, runs sg on `queries` and compares with `want`.
fn agree(file: &Path, queries: &[u64], want: &[u64]) {
    let dir = scratch(file.file_stem().unwrap().to_str().unwrap());
    let input: String = queries.iter().map(|q| format!("{q}\n")).collect();
    let expect: String = want.iter().map(|w| format!("{w}\n")).collect();
    let export = |lang: &str, name: &str| {
        let out = dir.join(name);
        let run = sgtab(&[
            "export",
            file.to_str().unwrap(),
            "--lang",
            lang,
            "-o",
            out.to_str().unwrap(),
            "--max-bytes",
            "10000000",
        ]);
        assert!(run.status.success(), "{}", text(&run.stderr));
        out
    };
    let answers = |cmd: &mut Command| -> String {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let data = input.clone();
        let feeder = std::thread::spawn(move || stdin.write_all(data.as_bytes()));
        let out = child.wait_with_output().unwrap();
        feeder.join().unwrap().unwrap();
        assert!(out.status.success(), "{cmd:?}: {}", text(&out.stderr));
        text(&out.stdout)
    };
    let check = |lang: &str, got: String| {
        let first = got.lines().zip(expect.lines()).position(|(a, b)| a != b);
        assert!(
            got == expect,
            "{} in {lang}: first difference at query {first:?} of {}",
            file.display(),
            queries.len()
        );
    };
    let main_c = "#include <stdio.h>\n#include <stdint.h>\nuint32_t sg(uint64_t n);\nint \
        main(void) { unsigned long long n; while (scanf(\"%llu\", &n) == 1) printf(\"%u\\n\", \
        sg(n)); return 0; }\n";
    for (lang, compiler, ext, std) in
        [("c", "gcc", "c", "-std=c11"), ("cpp", "g++", "cpp", "-std=c++17")]
    {
        if !have(compiler) {
            continue;
        }
        let src = export(lang, &format!("sg.{ext}"));
        let main = dir.join(format!("main.{ext}"));
        fs::write(&main, main_c).unwrap();
        let bin = dir.join(format!("sg-{lang}"));
        run_ok(
            Command::new(compiler)
                .args([std, "-O1", "-Wall", "-Wextra", "-Werror", "-o"])
                .arg(&bin)
                .arg(&src)
                .arg(&main),
        );
        check(lang, answers(&mut Command::new(&bin)));
    }
    if have("rustc") {
        let src = export("rust", "sg.rs");
        let main = dir.join("main.rs");
        fs::write(
            &main,
            "include!(\"sg.rs\");\nfn main() {\n    let mut s = String::new();\n    \
                std::io::Read::read_to_string(&mut std::io::stdin(), &mut s).unwrap();\n    let \
                out: String = s.split_whitespace().map(|t| format!(\"{}\\n\", \
                sg(t.parse().unwrap()))).collect();\n    print!(\"{out}\");\n}\n",
        )
        .unwrap();
        assert!(src.exists());
        let bin = dir.join("sg-rust");
        run_ok(
            Command::new("rustc")
                .args(["--edition", "2021", "-O", "-D", "warnings", "-o"])
                .arg(&bin)
                .arg(&main),
        );
        check("rust", answers(&mut Command::new(&bin)));
    }
    if have("python3") {
        export("python", "sg.py");
        let script = "import sys\nsys.path.insert(0, sys.argv[1])\nfrom sg import \
            sg\nsys.stdout.write(''.join('%d\\n' % sg(int(t)) for t in \
            sys.stdin.read().split()))\n";
        check("python", answers(Command::new("python3").arg("-c").arg(script).arg(&dir)));
    }
    fs::remove_dir_all(&dir).unwrap();
}

fn reference(spec: &str) -> Vec<u64> {
    GameSpec::parse(spec)
        .unwrap()
        .reference(&Progress::silent())
        .unwrap()
        .iter()
        .map(u64::from)
        .collect()
}

fn table(file: &Path) -> Table {
    format::read(file).unwrap()
}

fn whole(file: &Path) -> (Vec<u64>, Vec<u64>) {
    let t = table(file);
    ((0..t.values.len()).collect(), t.values.iter().map(u64::from).collect())
}

#[test]
fn chess_every_row() {
    let (q, w) = whole(&tables_dir().join("chess-20.sgt"));
    agree(&tables_dir().join("chess-20.sgt"), &q, &w);
}

#[test]
fn funny_every_entry() {
    let (q, w) = whole(&tables_dir().join("funny-32.sgt"));
    agree(&tables_dir().join("funny-32.sgt"), &q, &w);
}

#[test]
fn sub_and_lasker_past_their_tables() {
    for (file, longer) in
        [("sub-1_3_9-1024.sgt", "sub:1,3,9:6000"), ("lasker-1024.sgt", "lasker:3000")]
    {
        let want = reference(longer);
        let mut queries: Vec<u64> = (0..want.len() as u64).collect();
        let mut expect = want.clone();
        // Far out: sub:1,3,9 is n mod 2; Lasker's Nim swaps 4k+3 and 4k+4.
        let far = [1u64 << 31, (1 << 32) - 5, (1 << 32) - 4, 4_000_000_001, 4_000_000_003];
        queries.extend(far);
        expect.extend(far.map(|n| {
            if file.starts_with("sub") {
                n % 2
            } else {
                match n % 4 {
                    0 => n - 1,
                    3 => n + 1,
                    _ => n,
                }
            }
        }));
        agree(&tables_dir().join(file), &queries, &expect);
    }
}

#[test]
fn kayles_from_its_rule() {
    let dir = scratch("kayles-table");
    let spec = GameSpec::parse("0.77:1024").unwrap();
    let t = Table::new(spec.clone(), spec.reference(&Progress::silent()).unwrap());
    let file = dir.join(spec.file_name());
    format::write(&t, &file).unwrap();
    let want = reference("0.77:4000");
    agree(&file, &(0..4000).collect::<Vec<u64>>(), &want);
    let run = sgtab(&["export", file.to_str().unwrap(), "--lang", "c"]);
    assert!(
        run.status.success() && run.stdout.len() < 2000,
        "Kayles stores only pre-period + period values"
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn too_large_is_refused_with_its_size() {
    let file = tables_dir().join("chess-20.sgt");
    let run = sgtab(&["export", file.to_str().unwrap(), "--lang", "cpp"]);
    let err = text(&run.stderr);
    assert!(!run.status.success() && err.lines().count() == 1, "{err}");
    assert!(
        err.contains("the C++ source for chess:20 would be ")
            && err.contains("more than --max-bytes 65536"),
        "{err}"
    );
    let out = scratch("refused").join("x.cpp");
    let run =
        sgtab(&["export", file.to_str().unwrap(), "--lang", "c", "-o", out.to_str().unwrap()]);
    assert!(!run.status.success() && !out.exists(), "nothing written");
}

/// Exports `file` to every language whose tool is here and builds it: one program a language
/// (Rust once per edition in `editions`, `None` for rustc's default) reading numbers from stdin
/// and printing sg of each. Returns (label, argv) pairs.
fn programs(file: &Path, dir: &Path, editions: &[Option<&str>]) -> Vec<(String, Vec<String>)> {
    let export = |lang: &str, name: &str| {
        let out = dir.join(name);
        let run = sgtab(&[
            "export",
            file.to_str().unwrap(),
            "--lang",
            lang,
            "-o",
            out.to_str().unwrap(),
            "--max-bytes",
            "10000000",
        ]);
        assert!(run.status.success(), "{}", text(&run.stderr));
        out
    };
    let path = |p: &Path| p.to_str().unwrap().to_string();
    let mut out = vec![];
    let main_c = "#include <stdio.h>\n#include <stdint.h>\nuint32_t sg(uint64_t n);\nint \
        main(void) { unsigned long long n; while (scanf(\"%llu\", &n) == 1) { printf(\"%u\\n\", \
        sg(n)); fflush(stdout); } return 0; }\n";
    for (lang, compiler, ext, std) in
        [("c", "gcc", "c", "-std=c11"), ("cpp", "g++", "cpp", "-std=c++17")]
    {
        if !have(compiler) {
            continue;
        }
        let src = export(lang, &format!("sg.{ext}"));
        let main = dir.join(format!("main.{ext}"));
        fs::write(&main, main_c).unwrap();
        let bin = dir.join(format!("sg-{lang}"));
        run_ok(
            Command::new(compiler)
                .args([std, "-O1", "-Wall", "-Wextra", "-Werror", "-o"])
                .arg(&bin)
                .arg(&src)
                .arg(&main),
        );
        out.push((lang.to_string(), vec![path(&bin)]));
    }
    if have("rustc") {
        export("rust", "sg.rs");
        // Written for every edition: no inline format arguments, no 2018 paths.
        let main = dir.join("main.rs");
        fs::write(
            &main,
            "include!(\"sg.rs\");\nfn main() {\n    use std::io::Write;\n    let mut s = \
                String::new();\n    std::io::Read::read_to_string(&mut std::io::stdin(), &mut \
                s).unwrap();\n    let out = std::io::stdout();\n    let mut out = \
                out.lock();\n    for t in s.split_whitespace() {\n        writeln!(out, \"{}\", \
                sg(t.parse().unwrap())).unwrap();\n        out.flush().unwrap();\n    }\n}\n",
        )
        .unwrap();
        for edition in editions {
            let name = format!("sg-rust-{}", edition.unwrap_or("default"));
            let bin = dir.join(&name);
            let mut cmd = Command::new("rustc");
            if let Some(e) = edition {
                cmd.args(["--edition", e]);
            }
            run_ok(cmd.args(["-O", "-D", "warnings", "-o"]).arg(&bin).arg(&main));
            out.push((name, vec![path(&bin)]));
        }
    }
    if have("python3") {
        export("python", "sg.py");
        let script = "import sys\nsys.path.insert(0, sys.argv[1])\nfrom sg import sg\nfor t in \
            sys.stdin.read().split():\n    sys.stdout.write('%d\\n' % sg(int(t)))\n    \
            sys.stdout.flush()\n";
        out.push((
            "python".to_string(),
            vec!["python3".into(), "-c".into(), script.into(), path(dir)],
        ));
    }
    out
}

/// Runs `argv` with `input` on stdin.
fn ask(argv: &[String], input: &str) -> std::process::Output {
    let mut child = Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let data = input.to_string();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(data.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    out
}

/// Lasker's Nim for n ≥ 1: 4k+3 and 4k+4 swap.
fn lasker(n: u64) -> u64 {
    match n % 4 {
        0 => n - 1,
        3 => n + 1,
        _ => n,
    }
}

#[test]
fn exported_rust_passes_deny_warnings_under_the_default_edition_and_2021() {
    // A table with a growing rule (its 32-bit check panics) and one without a rule (past the
    // table it panics): both panics must name the number, in every edition.
    for (file, past) in [("lasker-1024.sgt", 4294967295u64), ("funny-32.sgt", 40)] {
        let file = tables_dir().join(file);
        let dir = scratch(&format!("editions-{}", file.file_stem().unwrap().to_str().unwrap()));
        let progs = programs(&file, &dir, &[None, Some("2021")]);
        for (label, argv) in progs.iter().filter(|(l, _)| l.starts_with("sg-rust")) {
            let out = ask(argv, "3\n");
            assert_eq!(text(&out.stdout), format!("{}\n", table(&file).values.get(3)), "{label}");
            let out = ask(argv, &format!("{past}\n"));
            let err = text(&out.stderr);
            assert!(
                !out.status.success() && err.contains(&format!("({past})")) && !err.contains("{n}"),
                "{label}: {err}"
            );
        }
        fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn exported_sg_answers_every_value_that_fits_32_bits() {
    // Lasker's Nim: g(2^32 − 1) = 2^32 is the first value past 32 bits, but g(2^32) = 2^32 − 1
    // fits again. C, C++ and Rust answer every n whose own value fits and stop at the one that
    // does not; Python's integers have no limit and answer it too.
    let file = tables_dir().join("lasker-1024.sgt");
    let dir = scratch("lasker-32-bits");
    let fits = [1u64, 1023, 1024, 4294967291, 4294967292, 4294967293, 4294967294, 1 << 32];
    let input: String = fits.iter().map(|n| format!("{n}\n")).collect();
    let want: String = fits.iter().map(|&n| format!("{}\n", lasker(n))).collect();
    let progs = programs(&file, &dir, &[Some("2021")]);
    assert!(progs.len() >= 2 || std::env::var_os("CI").is_none());
    for (label, argv) in &progs {
        let out = ask(argv, &input);
        assert!(
            out.status.success() && text(&out.stdout) == want,
            "{label}: {}{}",
            text(&out.stdout),
            text(&out.stderr)
        );
        // The first n past 32 bits, after one that fits: answers that one, then stops.
        let out = ask(argv, "4294967294\n4294967295\n4294967296\n");
        if label == "python" {
            assert_eq!(text(&out.stdout), "4294967294\n4294967296\n4294967295\n");
        } else {
            assert!(
                !out.status.success(),
                "{label} answered g(2^32 - 1) = 2^32 in 32 bits: {}",
                text(&out.stdout)
            );
            assert_eq!(text(&out.stdout), "4294967294\n", "{label}");
        }
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_named_function_past_its_table_exits_1_after_the_output_before_it() {
    // `--name grundy` in every language, called by a program that buffers its output (stdio to
    // a pipe, iostreams unsynchronised, Python's stdout): past the table the function says why
    // on stderr and exits 1, and the answers printed before it still come out.
    let file = tables_dir().join("funny-32.sgt");
    let values = table(&file);
    let dir = scratch("named");
    let export = |lang: &str, out: &str| {
        let out = dir.join(out);
        let run = sgtab(&[
            "export",
            file.to_str().unwrap(),
            "--lang",
            lang,
            "--name",
            "grundy",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(run.status.success(), "{}", text(&run.stderr));
        let source = fs::read_to_string(&out).unwrap();
        assert!(!source.contains("sg(") && !source.contains("abort"), "{lang}: {source}");
        out
    };
    let mut progs: Vec<(&str, Vec<String>)> = vec![];
    let path = |p: &Path| p.to_str().unwrap().to_string();
    let mains = [
        (
            "c",
            "gcc",
            "-std=c11",
            "#include <stdio.h>\n#include <stdint.h>\nuint32_t grundy(uint64_t n);\nint \
                main(void) { unsigned long long n; while (scanf(\"%llu\", &n) == 1) \
                printf(\"%u\\n\", grundy(n)); return 0; }\n",
        ),
        (
            "cpp",
            "g++",
            "-std=c++17",
            "#include <cstdint>\n#include <iostream>\nuint32_t grundy(uint64_t n);\nint main() { \
                std::ios::sync_with_stdio(false); std::cin.tie(nullptr); unsigned long long n; \
                while (std::cin >> n) std::cout << grundy(n) << '\\n'; return 0; }\n",
        ),
    ];
    for (lang, compiler, std, main_src) in mains {
        if !have(compiler) {
            continue;
        }
        let src = export(lang, &format!("grundy.{lang}"));
        let main = dir.join(format!("main.{lang}"));
        fs::write(&main, main_src).unwrap();
        let bin = dir.join(format!("grundy-{lang}"));
        run_ok(
            Command::new(compiler)
                .args([std, "-O1", "-Wall", "-Wextra", "-Werror", "-o"])
                .arg(&bin)
                .arg(&src)
                .arg(&main),
        );
        progs.push((lang, vec![path(&bin)]));
    }
    if have("rustc") {
        export("rust", "grundy.rs");
        let main = dir.join("main.rs");
        fs::write(
            &main,
            "include!(\"grundy.rs\");\nfn main() {\n    let mut s = String::new();\n    \
                std::io::Read::read_to_string(&mut std::io::stdin(), &mut s).unwrap();\n    for t \
                in s.split_whitespace() {\n        println!(\"{}\", \
                grundy(t.parse().unwrap()));\n    }\n}\n",
        )
        .unwrap();
        let bin = dir.join("grundy-rust");
        run_ok(
            Command::new("rustc")
                .args(["--edition", "2021", "-O", "-D", "warnings", "-o"])
                .arg(&bin)
                .arg(&main),
        );
        progs.push(("rust", vec![path(&bin)]));
    }
    if have("python3") {
        export("python", "grundy.py");
        let script = "import sys\nsys.path.insert(0, sys.argv[1])\nfrom grundy import grundy\nfor \
            t in sys.stdin.read().split():\n    sys.stdout.write('%d\\n' % grundy(int(t)))\n";
        progs.push(("python", vec!["python3".into(), "-c".into(), script.into(), path(&dir)]));
    }
    let before: String = (0..3).map(|n| format!("{}\n", values.values.get(n))).collect();
    for (lang, argv) in &progs {
        let out = ask(argv, "0\n1\n2\n40\n5\n");
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{lang}: {err}");
        assert_eq!(
            text(&out.stdout),
            before,
            "{lang}: the output before the call past the table is lost"
        );
        assert!(err.contains("grundy(40): past the table"), "{lang}: {err}");
    }
    fs::remove_dir_all(&dir).unwrap();
    // A name no language takes, or a keyword, is refused before anything is written.
    for bad in ["9lives", "int", "a-b", "__x"] {
        let run = sgtab(&["export", file.to_str().unwrap(), "--lang", "c", "--name", bad]);
        assert!(
            !run.status.success() && run.stdout.is_empty() && text(&run.stderr).contains("--name"),
            "{bad}: {}",
            text(&run.stderr)
        );
    }
}

/// Exports `file` (whose function takes the coordinates `names`) to every language whose tool
/// is here and builds a program of each that reads k numbers at a time and prints `sg` of
/// them, a line each (stdio buffered: the function's stop must flush it). Returns (language,
/// argv) pairs.
fn point_programs(file: &Path, dir: &Path, names: &[&str]) -> Vec<(String, Vec<String>)> {
    let k = names.len();
    let export = |lang: &str, name: &str| {
        let out = dir.join(name);
        let run =
            sgtab(&["export", file.to_str().unwrap(), "--lang", lang, "-o", out.to_str().unwrap()]);
        assert!(run.status.success(), "{}", text(&run.stderr));
        fs::read_to_string(&out).unwrap()
    };
    let path = |p: &Path| p.to_str().unwrap().to_string();
    let args = |f: &dyn Fn(usize) -> String| (0..k).map(f).collect::<Vec<_>>().join(", ");
    let mut out = vec![];
    let main_c = format!(
        "#include <stdio.h>\n#include <stdint.h>\nuint32_t sg({});\nint main(void) {{ unsigned \
            long long a[{k}]; while (scanf(\"{}\", {}) == {k}) printf(\"%u\\n\", sg({})); return \
            0; }}\n",
        args(&|_| "uint64_t".into()),
        vec!["%llu"; k].join(" "),
        args(&|i| format!("&a[{i}]")),
        args(&|i| format!("a[{i}]"))
    );
    for (lang, compiler, ext, std) in
        [("c", "gcc", "c", "-std=c11"), ("cpp", "g++", "cpp", "-std=c++17")]
    {
        if !have(compiler) {
            continue;
        }
        let source = export(lang, &format!("sg.{ext}"));
        assert!(
            source
                .contains(&format!("uint32_t sg({})", args(&|i| format!("uint64_t {}", names[i])))),
            "{source}"
        );
        let main = dir.join(format!("main.{ext}"));
        fs::write(&main, &main_c).unwrap();
        let bin = dir.join(format!("sg-{lang}"));
        run_ok(
            Command::new(compiler)
                .args([std, "-O1", "-Wall", "-Wextra", "-Werror", "-o"])
                .arg(&bin)
                .arg(dir.join(format!("sg.{ext}")))
                .arg(&main),
        );
        out.push((lang.to_string(), vec![path(&bin)]));
    }
    if have("rustc") {
        export("rust", "sg.rs");
        let main = dir.join("main.rs");
        fs::write(
            &main,
            format!(
                "include!(\"sg.rs\");\nfn main() {{\n    let mut s = String::new();\n    \
                    std::io::Read::read_to_string(&mut std::io::stdin(), &mut s).unwrap();\n    \
                    let v: Vec<u64> = s.split_whitespace().map(|t| \
                    t.parse().unwrap()).collect();\n    for a in v.chunks({k}) {{\n        \
                    println!(\"{{}}\", sg({}));\n    }}\n}}\n",
                args(&|i| format!("a[{i}]"))
            ),
        )
        .unwrap();
        let bin = dir.join("sg-rust");
        run_ok(
            Command::new("rustc")
                .args(["--edition", "2021", "-O", "-D", "warnings", "-o"])
                .arg(&bin)
                .arg(&main),
        );
        out.push(("rust".to_string(), vec![path(&bin)]));
    }
    if have("python3") {
        export("python", "sg.py");
        let script = format!(
            "import sys\nsys.path.insert(0, sys.argv[1])\nfrom sg import sg\nv = [int(t) for t in \
                sys.stdin.read().split()]\nfor i in range(0, len(v), {k}):\n    \
                sys.stdout.write('%d\\n' % sg(*v[i:i + {k}]))\n"
        );
        out.push(("python".to_string(), vec!["python3".into(), "-c".into(), script, path(dir)]));
    }
    out
}

#[test]
fn boards_and_k_d_tables_take_their_coordinates_and_stop_outside_them() {
    // A board (sg(x, y)), a 2-D and a 3-D imported table (sg(p1, p2) and sg(p1, p2, p3)): every
    // position answered in every language; a coordinate at its size (each axis in turn) or far
    // past it stops the program with status 1 and a line naming the point, after the answers
    // printed before it.
    let dir = scratch("points");
    let run = sgtab(&["build", "queen:12", "--out", dir.to_str().unwrap()]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let mut tables = vec![(dir.join("queen-12.sgt"), vec![12u64, 12], true)];
    for (name, shape) in [("two", vec![5u64, 7]), ("three", vec![3u64, 4, 5])] {
        let len: u64 = shape.iter().product();
        let values: String = (0..len).map(|i| format!("{}\n", i * 7919 % 13)).collect();
        fs::write(dir.join("v.txt"), values).unwrap();
        let text_shape = shape.iter().map(u64::to_string).collect::<Vec<_>>().join("x");
        let run = sgtab(&[
            "import",
            dir.join("v.txt").to_str().unwrap(),
            "--name",
            name,
            "--shape",
            &text_shape,
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert!(run.status.success(), "{}", text(&run.stderr));
        tables.push((dir.join(format!("{name}.sgt")), shape, false));
    }
    for (file, sizes, board) in tables {
        let k = sizes.len();
        let names: Vec<String> = if board {
            vec!["x".into(), "y".into()]
        } else {
            (1..=k).map(|i| format!("p{i}")).collect()
        };
        let values = table(&file).values;
        let progs_dir = dir.join(file.file_stem().unwrap());
        fs::create_dir_all(&progs_dir).unwrap();
        let progs = point_programs(
            &file,
            &progs_dir,
            &names.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        assert!(progs.len() >= 2 || std::env::var_os("CI").is_none());
        // Every position, row-major: its coordinates in, the table's value out.
        let mut input = String::new();
        let mut point = vec![0u64; k];
        for n in 0..values.len() {
            let mut rest = n;
            for i in (0..k).rev() {
                point[i] = rest % sizes[i];
                rest /= sizes[i];
            }
            input +=
                &format!("{}\n", point.iter().map(u64::to_string).collect::<Vec<_>>().join(" "));
        }
        let want: String = values.iter().map(|v| format!("{v}\n")).collect();
        // Outside: each coordinate at its size, and one far past (no index wraps around).
        let mut outside: Vec<Vec<u64>> =
            (0..k).map(|a| (0..k).map(|i| if i == a { sizes[i] } else { 0 }).collect()).collect();
        outside.push((0..k).map(|i| if i == k - 1 { u64::MAX } else { 1 }).collect());
        for (lang, argv) in &progs {
            let out = ask(argv, &input);
            assert!(
                out.status.success() && text(&out.stdout) == want,
                "{}, {lang}: {}",
                file.display(),
                text(&out.stderr)
            );
            for p in &outside {
                let shown = p.iter().map(u64::to_string).collect::<Vec<_>>().join(" ");
                let out = ask(
                    argv,
                    &format!("{}\n{shown}\n{}\n", vec!["1"; k].join(" "), vec!["0"; k].join(" ")),
                );
                let err = text(&out.stderr);
                assert_eq!(
                    out.status.code(),
                    Some(1),
                    "{}, {lang}, ({shown}): {err}",
                    file.display()
                );
                assert_eq!(
                    text(&out.stdout),
                    format!("{}\n", values.get((0..k).fold(0, |n, i| n * sizes[i] + 1))),
                    "{}, {lang}: the answer before the stop",
                    file.display()
                );
                let words = if board { "off the board" } else { "outside the shape" };
                assert!(
                    err.contains(&format!("sg({}): {words}", shown.replace(' ', ", "))),
                    "{}, {lang}: {err}",
                    file.display()
                );
            }
        }
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_comment_names_the_argument_and_the_values_stored() {
    // A heap game, a game of stones, a script's bitmask game (Turning Turtles: coins, not a
    // heap) and a board: each comment says what its argument is in the game's own words, which
    // values are stored (g(0) to g(K - 1), K of them), and a rule without a saltus has no `+ 0`.
    let dir = scratch("comments");
    let run = sgtab(&[
        "build",
        "lua:examples/games/turtles.lua:W=8",
        "0.07:500",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let turtles = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_str().unwrap().contains("turtles"))
        .unwrap();
    for (file, argument) in [
        (tables_dir().join("sub-1_3_9-1024.sgt"), "The argument n is the heap size."),
        (dir.join("0.07-500.sgt"), "The argument n is the heap size."),
        (tables_dir().join("funny-32.sgt"), "The argument n is a stone with n piles to its right."),
        (
            turtles,
            "The argument n is position n of the script turtles.lua (its positions are 0 to 255).",
        ),
    ] {
        for lang in ["c", "cpp", "rust", "python"] {
            let run = sgtab(&["export", file.to_str().unwrap(), "--lang", lang]);
            assert!(run.status.success(), "{}", text(&run.stderr));
            let source = text(&run.stdout);
            assert!(source.contains(argument), "{lang}: {source}");
            assert!(!source.contains("+ 0") && !source.contains("g(0.."), "{lang}: {source}");
            // "Stores the K values g(0) to g(K - 1)" or "Stores all K values, g(0) to g(K - 1)".
            let stores =
                source.lines().find(|l| l.contains("Stores")).unwrap_or_else(|| panic!("{source}"));
            let words: Vec<&str> =
                stores.split(|c: char| !c.is_ascii_digit()).filter(|w| !w.is_empty()).collect();
            let (count, last): (u64, u64) = (words[0].parse().unwrap(), words[2].parse().unwrap());
            assert!(words[1] == "0" && last + 1 == count, "{lang}: {stores}");
            if file.to_str().unwrap().contains("0.07") {
                assert!(
                    source.contains("the rule g(n+34) = g(n) for n >= 53."),
                    "{lang}: {source}"
                );
            }
        }
    }
    fs::remove_dir_all(&dir).unwrap();
}
