//! Games in C++ (`cpp:PATH`) and shared libraries (`native:PATH`), end to end through the
//! binaries: every example equals its Lua script's table and the built-in family's where there
//! is one; a library is compiled once and found in the cache; every failure of the user's code
//! (a compile error, no compiler, a crash, an endless loop, an option off the shape, a bad sum)
//! is one line naming what and where, exit 1, nothing written; a table never runs its source
//! unasked.

#![cfg(all(unix, feature = "lua"))]

mod common;

use common::{scratch, text};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const SGTAB: &str = env!("CARGO_BIN_EXE_sgtab");
const SGQ: &str = env!("CARGO_BIN_EXE_sgq");

fn example(name: &str) -> String {
    format!("{}/examples/games/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The compile cache the tests share (one per test process), named so that no `scratch`
/// directory (`sgtab-native-NAME-PID`, which `scratch` empties) can be it, as the cache test's
/// own scratch directory would, while other tests compile into it.
fn cache() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sgtab-native-{}-compiled", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `bin` with `args`, the shared cache and `env`.
fn run_env(bin: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(bin);
    cmd.args(args)
        .env("XDG_CACHE_HOME", cache())
        .env_remove("CXX")
        .env_remove("SGTAB_TABLES")
        .env_remove("SGTAB_NATIVE_UNROLL")
        .stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("spawn")
}

/// Builds `spec` into `dir` and returns the table's path.
fn build(dir: &Path, spec: &str, extra: &[&str]) -> PathBuf {
    build_env(dir, spec, extra, &[])
}

/// [`build`] with `env`.
fn build_env(dir: &Path, spec: &str, extra: &[&str], env: &[(&str, &str)]) -> PathBuf {
    let mut args = vec!["build", spec, "--dir", dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = run_env(SGTAB, &args, env);
    assert!(out.status.success(), "{spec}: {}", text(&out.stderr));
    let report = text(&out.stdout);
    let line = report.lines().find(|l| l.starts_with("wrote ")).expect("wrote PATH");
    line.split_whitespace().nth(1).map(PathBuf::from).expect("wrote PATH")
}

fn dump(path: &Path) -> String {
    let out = run_env(SGTAB, &["dump", path.to_str().unwrap()], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

/// A refusal: exit 1, nothing on stdout, a last stderr line `sgtab: error: ...` holding each of
/// `want`, no panic, and no table written into `dir`.
fn refused(out: &Output, dir: &Path, want: &[&str]) -> String {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    assert!(!err.contains("panicked"), "{err}");
    let last = err.lines().last().unwrap_or("").to_string();
    assert!(last.starts_with("sgtab: error: "), "{err}");
    for w in want {
        assert!(last.contains(w), "`{w}` not in: {last}");
    }
    let written: Vec<_> = fs::read_dir(dir)
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(written.is_empty(), "{written:?}");
    last
}

#[test]
fn every_example_equals_its_script_and_its_family() {
    let dir = scratch("native", "examples");
    let family = [
        ("stones139", "N=3000", Some("sub:1,3,9:3000")),
        ("lasker", "N=700", Some("lasker:700")),
        ("chessrow", "W=12", Some("chess:12")),
        ("funny", "N=40", Some("funny:40")),
        ("grundy", "N=900", Some("grundy:900")),
        ("knight", "N=40", None),
        ("half", "N=2000", None),
        ("ed", "N=40", None),
        ("turtles", "W=10", None),
    ];
    for (name, params, builtin) in family {
        let cpp = build(
            &dir.join("cpp"),
            &format!("cpp:{}:{params}", example(&format!("{name}.cpp"))),
            &["--threads", "2"],
        );
        let lua = build(
            &dir.join("lua"),
            &format!("lua:{}:{params}", example(&format!("{name}.lua"))),
            &[],
        );
        let values = dump(&cpp);
        assert_eq!(values, dump(&lua), "{name}");
        if let Some(spec) = builtin {
            assert_eq!(
                values,
                dump(&build(&dir.join("family"), spec, &[])),
                "{name} against {spec}"
            );
        }
        // One thread gives the same bytes.
        let one = build(
            &dir.join("one"),
            &format!("cpp:{}:{params}", example(&format!("{name}.cpp"))),
            &["--threads", "1"],
        );
        assert_eq!(fs::read(&one).unwrap(), fs::read(&cpp).unwrap(), "{name}");
    }
}

#[test]
fn list_parameters_reach_cpp_and_lua() {
    let dir = scratch("native", "lists");
    let cpp = build(&dir, &format!("cpp:{}:S={{2,5,7}},N=500", example("subtraction.cpp")), &[]);
    assert!(cpp.to_str().unwrap().contains("S=~2_5_7~"), "{}", cpp.display());
    let lua_file = dir.join("sublist.lua");
    fs::write(
        &lua_file,
        "N = N or 10\nshape = N\nfunction moves(n)\n  local out = {}\n  for _, s in ipairs(S) do \
            if s <= n then out[#out + 1] = n - s end end\n  return out\nend\n",
    )
    .unwrap();
    let lua = build(&dir, &format!("lua:{}:S={{2,5,7}},N=500", lua_file.display()), &[]);
    let family = build(&dir, "sub:2,5,7:500", &[]);
    assert_eq!(dump(&cpp), dump(&family));
    assert_eq!(dump(&lua), dump(&family));
}

/// A compiler: the shell script `body`, written to `dir`/cxx.sh and made executable.
fn compiler_script(dir: &Path, body: &str) -> PathBuf {
    let cxx = dir.join("cxx.sh");
    fs::write(&cxx, format!("#!/bin/sh\n{body}")).unwrap();
    let mut perm = fs::metadata(&cxx).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    fs::set_permissions(&cxx, perm).unwrap();
    cxx
}

/// A compiler that logs each run into `log`, then runs g++.
fn logging_compiler(dir: &Path) -> (PathBuf, PathBuf) {
    let log = dir.join("cxx.log");
    let cxx = compiler_script(dir, &format!("echo \"$@\" >> {}\nexec c++ \"$@\"\n", log.display()));
    (cxx, log)
}

#[test]
fn a_game_is_compiled_once_and_found_in_the_cache() {
    let dir = scratch("native", "cache");
    let (cxx, log) = logging_compiler(&dir);
    let own_cache = dir.join("cache");
    let env = [("CXX", cxx.to_str().unwrap()), ("XDG_CACHE_HOME", own_cache.to_str().unwrap())];
    let spec = format!("cpp:{}:N=300", example("lasker.cpp"));
    // A game is compiled twice, its loops unrolled and not (the faster is kept as it runs).
    let compiles = || {
        fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains("-shared"))
            .count()
    };
    let out_dir = dir.join("t");
    for round in 0..2 {
        let out = run_env(SGTAB, &["build", &spec, "--dir", out_dir.to_str().unwrap()], &env);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(compiles(), 2, "round {round}");
    }
    let lines = fs::read_to_string(&log).unwrap();
    assert!(
        lines.lines().all(|l| l.contains("-O2 -std=c++17 -shared -fPIC") && l.contains("-DN=300"))
            && lines.lines().filter(|l| l.contains("-funroll-loops")).count() == 1,
        "{lines}"
    );
    // Another parameter, another library; a cached one is a complete file (renamed into place).
    let out = run_env(
        SGTAB,
        &[
            "build",
            &format!("cpp:{}:N=301", example("lasker.cpp")),
            "--dir",
            out_dir.to_str().unwrap(),
        ],
        &env,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(compiles(), 4);
    let libs: Vec<_> = fs::read_dir(own_cache.join("sgtab/native"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .collect();
    assert_eq!(libs.len(), 4, "{libs:?}: no compile directory left behind");
    // The compiler is part of the key, though it is not started to tell: another compiler at
    // the same path (an upgrade: another size and time) compiles again.
    let script = fs::read_to_string(&cxx).unwrap();
    fs::write(&cxx, format!("{script}# upgraded\n")).unwrap();
    let out = run_env(SGTAB, &["build", &spec, "--dir", out_dir.to_str().unwrap()], &env);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(compiles(), 6, "an upgraded compiler compiles again");
}

#[test]
fn a_failing_second_compile_leaves_the_first_to_run_alone() {
    // A compiler that fails every compile without -funroll-loops: the game runs unrolled
    // alone, and a second build (the unrolled library cached, the rolled one compiled again,
    // and failing again) runs too, with nothing on stderr.
    let dir = scratch("native", "rolled");
    let cxx =
        compiler_script(&dir, "case \"$*\" in *-funroll-loops*) exec c++ \"$@\";; esac\nexit 1\n");
    let own_cache = dir.join("cache");
    let env = [("CXX", cxx.to_str().unwrap()), ("XDG_CACHE_HOME", own_cache.to_str().unwrap())];
    let spec = format!("cpp:{}:N=300", example("lasker.cpp"));
    let family = build(&dir.join("family"), "lasker:300", &[]);
    for round in 0..2 {
        let out_dir = dir.join(format!("t{round}"));
        let out = run_env(SGTAB, &["build", &spec, "--dir", out_dir.to_str().unwrap()], &env);
        assert!(out.status.success() && out.stderr.is_empty(), "{}", text(&out.stderr));
        let table = fs::read_dir(&out_dir).unwrap().next().unwrap().unwrap().path();
        assert_eq!(dump(&table), dump(&family), "round {round}");
    }
}

#[test]
fn the_marks_start_over_past_their_stamps_and_the_tables_agree() {
    // A position's marks hold a 16-bit stamp, which starts over every 65,535 positions; the
    // marks are cleared then, or a mark left 65,535 positions before would count. In this game
    // the first 1,000 positions move to the one before (worth 0, 1, 0, ...: each marks 0 or 1)
    // and the others have no move (worth 0): uncleared, the positions whose stamps come round
    // again would find a mark. One thread and one compile (while sgtab chooses between the two
    // compiles they share the positions), so that one set of marks sees every position.
    let dir = scratch("native", "stamps");
    let src = dir.join("stamps.cpp");
    let cpp = "#include <sgtab.h>\nsgtab::Shape shape() { return 70000; }\nvoid \
        moves(sgtab::Pos p, sgtab::Options &o) {\n  long long n = p;\n  if (n > 0 && n < \
        1000) o.add(n - 1);\n}\n";
    fs::write(&src, cpp).unwrap();
    let spec = format!("cpp:{}", src.display());
    let table =
        build_env(&dir.join("t"), &spec, &["--threads", "1"], &[("SGTAB_NATIVE_UNROLL", "1")]);
    let values: Vec<u64> = dump(&table)
        .lines()
        .map(|l| l.split_whitespace().last().unwrap().parse().unwrap())
        .collect();
    let want: Vec<u64> = (0..70000u64).map(|n| if n < 1000 { n % 2 } else { 0 }).collect();
    assert!(
        values == want,
        "{} values differ",
        values.iter().zip(&want).filter(|(a, b)| a != b).count()
    );
}

#[test]
fn both_compiles_give_the_same_table_whichever_runs() {
    // A game is compiled with its loops unrolled and not; until the faster is chosen, runs of
    // positions are cut in quarters computed by each in turn. The choosing, and each compile
    // alone (SGTAB_NATIVE_UNROLL), give the same bytes on one thread and two.
    let dir = scratch("native", "unroll");
    for (k, spec) in [
        format!("cpp:{}:N=6000", example("lasker.cpp")),
        format!("cpp:{}:W=14", example("chessrow.cpp")),
        format!("cpp:{}:N=4000", example("grundy.cpp")),
    ]
    .iter()
    .enumerate()
    {
        let mut tables = Vec::new();
        for unroll in [None, Some("0"), Some("1")] {
            for threads in ["1", "2"] {
                let out_dir = dir.join(format!("{k}-{}-{threads}", unroll.unwrap_or("auto")));
                let env: Vec<(&str, &str)> =
                    unroll.map(|u| ("SGTAB_NATIVE_UNROLL", u)).into_iter().collect();
                let table = build_env(&out_dir, spec, &["--threads", threads], &env);
                tables.push(fs::read(table).unwrap());
            }
        }
        assert!(tables.windows(2).all(|w| w[0] == w[1]), "{spec}");
    }
}

#[test]
fn games_past_the_loaders_room_for_thread_locals_are_compiled_again_and_agree() {
    // A game's fast paths read a thread-local of the initial-exec model, which a library loaded
    // at run time takes from a small room the loader keeps (glibc: its static TLS surplus,
    // shrunk here by its tunables). Games loaded past it are compiled again with their state
    // allocated on demand, and their tables are the same.
    let dir = scratch("native", "tls");
    let (cxx, log) = logging_compiler(&dir);
    let own_cache = dir.join("cache");
    let env = [
        ("CXX", cxx.to_str().unwrap()),
        ("XDG_CACHE_HOME", own_cache.to_str().unwrap()),
        ("GLIBC_TUNABLES", "glibc.rtld.nns=1:glibc.rtld.optional_static_tls=0"),
    ];
    let sizes: Vec<u32> = (0..8).map(|k| 200 + k).collect();
    let specs: Vec<String> =
        sizes.iter().map(|n| format!("cpp:{}:N={n}", example("lasker.cpp"))).collect();
    let out_dir = dir.join("t");
    let mut args = vec!["build"];
    args.extend(specs.iter().map(String::as_str));
    args.extend(["--dir", out_dir.to_str().unwrap()]);
    let out = run_env(SGTAB, &args, &env);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let compiles = fs::read_to_string(&log).unwrap();
    // Counted by the first of each game's two compiles (its loops unrolled).
    let again = compiles
        .lines()
        .filter(|l| l.contains("-DSGTAB_DYNAMIC_TLS") && l.contains("-funroll-loops"))
        .count();
    assert!(again >= 1 && again < sizes.len(), "{again} of {} compiled again", sizes.len());
    let report = text(&out.stdout);
    let tables: Vec<PathBuf> = report
        .lines()
        .filter(|l| l.starts_with("wrote "))
        .filter_map(|l| l.split_whitespace().nth(1).map(PathBuf::from))
        .collect();
    assert_eq!(tables.len(), sizes.len(), "{report}");
    for (table, n) in tables.iter().zip(&sizes) {
        let family = build(&dir.join("family"), &format!("lasker:{n}"), &[]);
        assert_eq!(dump(table), dump(&family), "N = {n}");
    }
}

#[test]
fn compile_errors_and_a_missing_compiler_are_one_line_after_the_diagnostics() {
    let dir = scratch("native", "compile");
    let src = dir.join("broken.cpp");
    fs::write(
        &src,
        "#include <sgtab.h>\nsgtab::Shape shape() { return 10; }\nvoid moves(sgtab::Pos p, \
            sgtab::Options &o) { o.add(p - 1) }\n",
    )
    .unwrap();
    let out_dir = dir.join("t");
    let spec = format!("cpp:{}", src.display());
    let out = run_env(SGTAB, &["build", &spec, "--dir", out_dir.to_str().unwrap()], &[]);
    let last =
        refused(&out, &out_dir, &["broken.cpp did not compile", "its diagnostics are above"]);
    let err = text(&out.stderr);
    assert!(err.contains("broken.cpp:3:") && err.contains("error: expected"), "{err}");
    assert!(last.starts_with("sgtab: error: cpp:broken@"), "{last}");
    let out = run_env(
        SGTAB,
        &["build", &spec, "--dir", out_dir.to_str().unwrap()],
        &[("CXX", "/nonexistent/c++")],
    );
    let last = refused(&out, &out_dir, &["no C++ compiler", "apt-get install g++", "set CXX"]);
    assert_eq!(text(&out.stderr).lines().count(), 1, "{last}");
    // No `moves` at all: a link error naming it.
    fs::write(&src, "#include <sgtab.h>\nsgtab::Shape shape() { return 10; }\n").unwrap();
    let out = run_env(SGTAB, &["build", &spec, "--dir", out_dir.to_str().unwrap()], &[]);
    refused(&out, &out_dir, &["did not compile"]);
    assert!(
        text(&out.stderr).contains("moves(sgtab::Pos, sgtab::Options&)"),
        "{}",
        text(&out.stderr)
    );
}

/// Builds a C++ game of `body` (after the include) and expects a refusal holding `want`.
fn fails(name: &str, body: &str, params: &str, extra: &[&str], want: &[&str]) -> String {
    let dir = scratch("native", name);
    let src = dir.join(format!("{name}.cpp"));
    fs::write(&src, format!("#include <sgtab.h>\n{body}")).unwrap();
    let out_dir = dir.join("t");
    let spec = if params.is_empty() {
        format!("cpp:{}", src.display())
    } else {
        format!("cpp:{}:{params}", src.display())
    };
    let mut args = vec!["build", spec.as_str(), "--dir", out_dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = run_env(SGTAB, &args, &[]);
    let last = refused(&out, &out_dir, want);
    assert_eq!(text(&out.stderr).lines().count(), 1, "{}", text(&out.stderr));
    last
}

#[test]
fn a_crash_is_one_line_naming_the_position() {
    let segv = "sgtab::Shape shape() { return 100; }\nvoid moves(sgtab::Pos p, sgtab::Options &o) \
        {\n  if (p == 57) { volatile int *x = nullptr; *x = 1; }\n  if (p > 0) o.add(p - 1);\n}\n";
    for threads in ["1", "2"] {
        let last = fails(
            "segv",
            segv,
            "",
            &["--threads", threads],
            &["segv.cpp at position 57", "SIGSEGV", "nothing was written"],
        );
        assert!(last.starts_with("sgtab: error: cpp:segv@"), "{last}");
    }
    let fpe = "sgtab::Shape shape() { return {10, 10}; }\nvolatile long long zero = 0;\nvoid \
        moves(sgtab::Pos p, sgtab::Options &o) {\n  if (p[0] == 3 && p[1] == 4) o.add(p[0] / \
        zero, 0LL);\n}\n";
    fails("fpe", fpe, "", &[], &["fpe.cpp at position (3, 4)", "SIGFPE"]);
    let abort = "#include <cstdlib>\nsgtab::Shape shape() { return 50; }\nvoid moves(sgtab::Pos \
        p, sgtab::Options &o) { if (p == 9) abort(); }\n";
    fails("abort", abort, "", &[], &["abort.cpp at position 9", "SIGABRT"]);
    let deep = "sgtab::Shape shape() { return 50; }\nlong long f(long long x) { volatile char \
        pad[256]; pad[0] = (char)x; return f(x + 1) + pad[0]; }\nvoid moves(sgtab::Pos p, \
        sgtab::Options &o) { if (p == 20) o.add(f(0)); }\n";
    // On one thread the worker is sgtab's main thread, on two a thread of its own: a stack
    // overflow is reported on either.
    for threads in ["1", "2"] {
        fails("deep", deep, "", &["--threads", threads], &["deep.cpp at position 20", "SIGSEGV"]);
    }
    let throws = "#include <stdexcept>\nsgtab::Shape shape() { return 50; }\nvoid \
        moves(sgtab::Pos p, sgtab::Options &o) { if (p == 11) throw std::runtime_error(\"bad \
        move\"); }\n";
    fails(
        "throws",
        throws,
        "",
        &[],
        &["throws.cpp at position 11", "threw an exception: bad move"],
    );
}

#[test]
fn an_endless_loop_is_stopped_past_the_time_bound() {
    let body = "sgtab::Shape shape() { return 30; }\nvoid moves(sgtab::Pos p, sgtab::Options &o) \
        {\n  volatile long long n = p;\n  while (n == 13) {}\n  if (p > 0) o.add(p - 1);\n}\n";
    for threads in ["1", "2"] {
        fails(
            "endless",
            body,
            "",
            &["--lua-seconds", "1", "--threads", threads],
            &["endless.cpp at position 13", "ran longer than 1 s", "--lua-seconds"],
        );
    }
}

#[test]
fn options_off_the_shape_and_bad_sums_are_one_line() {
    let outside = "sgtab::Shape shape() { return {8, 8}; }\nvoid moves(sgtab::Pos p, \
        sgtab::Options &o) { if (p[0] == 2) o.add(p[0] + 7, p[1]); }\n";
    fails(
        "outside",
        outside,
        "",
        &[],
        &[
            "outside.cpp at position (2, 0)",
            "an option is the position (9, 0), outside the shape 8x8",
        ],
    );
    let arity = "sgtab::Shape shape() { return {8, 8}; }\nvoid moves(sgtab::Pos p, sgtab::Options \
        &o) { if (p[0] == 1) o.add(p[0] - 1); }\n";
    fails("arity", arity, "", &[], &["at position (1, 0)", "1 coordinate where the shape has 2"]);
    let sum = "sgtab::Shape shape() { return 20; }\nvoid moves(sgtab::Pos p, sgtab::Options &o) { \
        if (p == 5) o.sum(2, 25); }\n";
    fails(
        "badsum",
        sum,
        "",
        &[],
        &["badsum.cpp at position 5", "has a part (25), outside the shape 20"],
    );
    let open = "sgtab::Shape shape() { return 20; }\nvoid moves(sgtab::Pos p, sgtab::Options &o) \
        { if (p == 6) { o.begin_sum(); o.part(1); } }\n";
    fails("opensum", open, "", &[], &["at position 6", "not ended"]);
    let rank = "sgtab::Shape shape() { return 20; }\nlong long rank(sgtab::Pos p) { return 0; \
        }\nvoid moves(sgtab::Pos p, sgtab::Options &o) { if (p > 0) o.add(p - 1); }\n";
    fails("rank", rank, "", &[], &["not below the position's rank"]);
    let unread =
        "sgtab::Shape shape() { return 20; }\nvoid moves(sgtab::Pos p, sgtab::Options &o) {}\n";
    fails("unread", unread, "N=3", &[], &["parameter N is never named in unread.cpp"]);
}

#[test]
fn a_table_carries_its_source_and_runs_it_only_when_allowed() {
    let dir = scratch("native", "stored");
    let src = dir.join("knight.cpp");
    fs::copy(example("knight.cpp"), &src).unwrap();
    let tables = dir.join("t");
    let spec = format!("cpp:{}:N=24", src.display());
    let table = build(&tables, &spec, &[]);
    fs::remove_file(&src).unwrap();
    let path = table.to_str().unwrap();
    let show = run_env(SGTAB, &["show", path], &[]);
    let shown = text(&show.stdout);
    assert!(
        shown.contains("source:   knight.cpp, C++, hash")
            && shown.contains("sgtab.h version 1")
            && shown.contains("parameters: N=24"),
        "{shown}"
    );
    // No compiler is needed to read it.
    let none = [("CXX", "/nonexistent/c++")];
    for args in [vec!["dump", path], vec!["export", path, "--lang", "cpp"], vec!["show", path]] {
        let out = run_env(SGTAB, &args, &none);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    }
    let verify = run_env(SGTAB, &["verify", path], &[]);
    assert_eq!(verify.status.code(), Some(1));
    let err = text(&verify.stderr);
    assert!(
        err.contains("--allow-native") && err.contains("unsandboxed") && err.lines().count() == 1,
        "{err}"
    );
    let rebuilt = dir.join("again");
    let out = run_env(SGTAB, &["build", "--from", path, "--dir", rebuilt.to_str().unwrap()], &[]);
    refused(&out, &rebuilt, &["--allow-native"]);
    let verify = run_env(SGTAB, &["verify", path, "--allow-native"], &[]);
    assert!(verify.status.success(), "{}", text(&verify.stderr));
    let out = run_env(
        SGTAB,
        &["build", "--from", path, "--dir", rebuilt.to_str().unwrap(), "--allow-native"],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        fs::read(rebuilt.join(table.file_name().unwrap())).unwrap(),
        fs::read(&table).unwrap()
    );
    // sgq finds the table from the source's text, and runs nothing.
    fs::copy(example("knight.cpp"), &src).unwrap();
    let mut child = Command::new(SGQ)
        .args(["value", &spec, "--tables", tables.to_str().unwrap()])
        .env("CXX", "/nonexistent/c++")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), b"0 0\n2 1\n23 17\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let values: Vec<String> = dump(&table).lines().map(str::to_string).collect();
    let want: Vec<&str> =
        [0, 2 * 24 + 1, 23 * 24 + 17].iter().map(|&i| values[i].as_str()).collect();
    assert_eq!(text(&out.stdout), format!("{}\n", want.join("\n")));
}

#[test]
fn a_shared_library_built_against_the_c_interface_is_a_game() {
    let dir = scratch("native", "library");
    // A C library: Nim heaps 0..N-1, every option kept (nothing folded): the C interface at
    // its plainest.
    let src = dir.join("nim.c");
    fs::write(
        &src,
        r#"#include "sgtab.h"
#include <stdlib.h>
static __thread uint64_t *words; static __thread uint64_t cap;
static void put(uint64_t *n, uint64_t w) {
  if (*n == cap) { cap = cap ? 2 * cap : 1024; words = realloc(words, cap * 8); }
  words[(*n)++] = w;
}
int sgtab_call(struct sgtab_call *c) {
  if (c->what == SGTAB_SHAPE) { c->axes = 1; c->sizes[0] = 300; c->ranked = 0; return 0; }
  if (c->what != SGTAB_SUMMARIES) { c->error = "no ranks"; return 1; }
  uint64_t n = 0;
  for (uint64_t i = 0; i < c->count; i++) {
    uint64_t p = c->positions[i];
    *c->current = p;
    put(&n, p);
    for (uint64_t q = 0; q < p; q++) { put(&n, 1); put(&n, q); }
    for (uint64_t g = 0; g <= p; g++) put(&n, g);
  }
  c->words = words; c->nwords = n; c->options = n;
  return 0;
}
"#,
    )
    .unwrap();
    let header = run_env(SGTAB, &["header"], &[]);
    assert!(header.status.success());
    fs::write(dir.join("sgtab.h"), &header.stdout).unwrap();
    let lib = dir.join("libnim.so");
    let cc = Command::new("cc")
        .args(["-O2", "-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(&src)
        .arg("-I")
        .arg(&dir)
        .status()
        .unwrap();
    assert!(cc.success());
    let tables = dir.join("t");
    let table = build(&tables, &format!("native:{}", lib.display()), &["--threads", "2"]);
    let values: Vec<u64> = dump(&table)
        .lines()
        .map(|l| l.split_whitespace().last().unwrap().parse().unwrap())
        .collect();
    assert_eq!(values, (0..300).collect::<Vec<u64>>());
    assert!(
        table.file_name().unwrap().to_str().unwrap().starts_with("native-libnim@"),
        "{}",
        table.display()
    );
    let verify = run_env(SGTAB, &["verify", table.to_str().unwrap()], &[]);
    assert!(verify.status.success(), "{}", text(&verify.stderr));
}

#[test]
fn options_above_their_position_take_the_move_graph_and_state_is_refused() {
    let dir = scratch("native", "graph");
    // Without a rank, an option above its position: by the move graph, as the script is.
    let body = "N = N or 10\nshape = N\nfunction moves(p)\n  local out = {}\n  if p + 1 < N and p \
        % 3 ~= 2 then out[#out + 1] = p + 1 end\n  if p >= 3 then out[#out + 1] = p - 3 end\n  \
        return out\nend\n";
    fs::write(dir.join("up.lua"), body).unwrap();
    let cpp = "#include <sgtab.h>\n#ifndef N\n#define N 10\n#endif\nsgtab::Shape shape() { return \
        N; }\nvoid moves(sgtab::Pos p, sgtab::Options &o) {\n  long long n = p;\n  if (n + 1 < N \
        && n % 3 != 2) o.add(n + 1);\n  if (n >= 3) o.add(n - 3);\n}\n";
    fs::write(dir.join("up.cpp"), cpp).unwrap();
    for threads in ["1", "2"] {
        let a = build(
            &dir.join("c"),
            &format!("cpp:{}:N=3000", dir.join("up.cpp").display()),
            &["--threads", threads],
        );
        let b = build(&dir.join("l"), &format!("lua:{}:N=3000", dir.join("up.lua").display()), &[]);
        assert_eq!(dump(&a), dump(&b), "{threads} threads");
    }
    let state = "sgtab::Shape shape() { return 5000; }\nstatic long long calls;\nvoid \
        moves(sgtab::Pos p, sgtab::Options &o) {\n  long long n = p;\n  if (n > 0 && ++calls % 3 \
        == 0) o.add(n - 1);\n}\n";
    fails("state", state, "", &[], &["the moves depend on something besides the position"]);
}

#[test]
fn the_rust_library_example_is_a_game() {
    // examples/native_game.rs, built as the shared library it is (std only, so rustc alone
    // builds it; `cargo build --release --example native_game` gives the same library).
    let dir = scratch("native", "rust-example");
    let lib = dir.join("libnative_game.so");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let built = Command::new(rustc)
        .args(["--edition", "2024", "--crate-type", "cdylib", "-C", "opt-level=2", "-o"])
        .arg(&lib)
        .arg(format!("{}/examples/native_game.rs", env!("CARGO_MANIFEST_DIR")))
        .status()
        .expect("rustc");
    assert!(built.success());
    let spec = format!("native:{}", lib.display());
    let family = dump(&build(&dir.join("family"), "sub:1,3,9:1000000", &[]));
    for threads in ["1", "2"] {
        let table = build(&dir.join(threads), &spec, &["--threads", threads]);
        let name = table.file_name().unwrap().to_str().unwrap().to_string();
        assert!(name.starts_with("native-libnative_game@"), "{name}");
        assert_eq!(dump(&table), family, "{threads} threads");
    }
}

#[test]
fn a_position_with_more_options_than_the_buffer_holds_is_asked_again() {
    // Lasker's Nim with a rank: every option is buffered as given and folded once moves
    // returns, so a heap of n gives about 2.5 n words, past the first buffer (4096 words) from
    // n = 1700 on; and with two threads in index order, without a rank.
    let dir = scratch("native", "overflow");
    let src = dir.join("ranked.cpp");
    let body = "#include <sgtab.h>\nsgtab::Shape shape() { return N; }\nlong long rank(sgtab::Pos \
        p) { return p; }\nvoid moves(sgtab::Pos p, sgtab::Options &o) {\n  long long n = p;\n  \
        for (long long r = 0; r < n; r++) o.add(r);\n  for (long long a = 1; a <= n / 2; a++) \
        o.sum(a, n - a);\n}\n";
    fs::write(&src, body).unwrap();
    let family = dump(&build(&dir.join("family"), "lasker:3000", &[]));
    for threads in ["1", "2"] {
        let table = build(
            &dir.join(threads),
            &format!("cpp:{}:N=3000", src.display()),
            &["--threads", threads],
        );
        assert_eq!(dump(&table), family, "{threads} threads");
    }
}
