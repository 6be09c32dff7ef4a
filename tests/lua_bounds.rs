//! A script cannot outlive its bounds, through the `sgtab` binary: each case ran forever, took
//! the machine's memory or aborted before, and is now one line of error within its bound (or a
//! table). Time: `pcall` and `xpcall` handlers that catch the stop, `__gc` finalizers, Lua's
//! long C functions, and the same scripts stored in table files (`verify`, `build --from`).
//! Memory: the options sgtab holds, allocations the system refuses, interpreters that together
//! pass what the process may take, threads that cannot start.

#![cfg(feature = "lua")]

mod common;

use common::{scratch, text};
use sgtab::games::Dims;
use sgtab::games::stored::{Origin, Script, Stored};
use sgtab::spec::GameSpec;
use sgtab::table::{Table, format};
use sgtab::values::Packed;
use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const SGTAB: &str = env!("CARGO_BIN_EXE_sgtab");

/// Runs sgtab with `args` (under `ulimit -v KIB` where given), killing it and failing the test
/// if it runs past `limit`: a hang is a failure, not a stuck test.
fn sgtab_within(args: &[&str], limit: Duration, ulimit_kib: Option<u64>) -> Output {
    let mut cmd = match ulimit_kib {
        Some(kib) => {
            let mut c = Command::new("sh");
            c.arg("-c").arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\"")).arg(SGTAB).args(args);
            c
        }
        None => {
            let mut c = Command::new(SGTAB);
            c.args(args);
            c
        }
    };
    let mut child =
        cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("sgtab {args:?} still running after {limit:?}: it hangs");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().unwrap()
}

/// A refusal: exit 1, one line on stderr holding each of `want`, no panic or abort.
fn assert_refused(out: &Output, want: &[&str]) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "not one line: {err}");
    assert!(!err.contains("panicked") && !err.contains("memory allocation of"), "{err}");
    for w in want {
        assert!(err.contains(w), "`{err}` lacks `{w}`");
    }
}

/// Writes `body` as `dir/NAME.lua` and returns its spec.
fn script(dir: &Path, name: &str, body: &str) -> String {
    let path = dir.join(format!("{name}.lua"));
    fs::write(&path, body).unwrap();
    format!("lua:{}", path.display())
}

/// Builds `spec` with `extra` options within `limit` seconds.
fn build(dir: &Path, spec: &str, extra: &[&str], limit: u64) -> Output {
    let out = dir.join("out");
    let mut args = vec!["build", spec, "--dir", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    sgtab_within(&args, Duration::from_secs(limit), None)
}

const MOVES: &str = "shape = 10\nfunction moves(n)\n";

#[test]
fn a_caught_stop_is_raised_again_until_the_call_returns() {
    let dir = scratch("lua_bounds", "pcall");
    let one = ["--lua-seconds", "1"];
    let cases = [
        (
            "pcall_top",
            "while true do pcall(function() while true do end end) end\nshape = 1\n".to_string(),
            "at its top level",
        ),
        (
            "pcall_moves",
            format!(
                "{MOVES}  if n == 3 then while true do pcall(function() while true do end end) \
                    end end\n  return {{}}\nend\n"
            ),
            "at position 3",
        ),
        // The stop is an error raised by a hook, with Lua's hooks off until it is caught: a
        // message handler that loops would run unbounded there.
        (
            "xpcall",
            format!(
                "{MOVES}  while true do xpcall(function() while true do end end, function() while \
                    true do end end) end\nend\n"
            ),
            "at position 0",
        ),
        (
            "xpcall_error",
            "while true do xpcall(error, function() while true do end end) end\nshape = 1\n"
                .to_string(),
            "at its top level",
        ),
        (
            "close",
            format!(
                "{MOVES}  while true do pcall(function() local x <close> = setmetatable({{}}, \
                    {{__close = function() while true do end end}}) while true do end end) \
                    end\nend\n"
            ),
            "at position 0",
        ),
        (
            "error_loop",
            "while true do pcall(error, setmetatable({}, {__tostring = function() while true do \
                end end})) end\nshape = 1\n"
                .to_string(),
            "at its top level",
        ),
    ];
    for (name, body, place) in cases {
        let out = build(&dir, &script(&dir, name, &body), &one, 15);
        assert_refused(&out, &[&format!("{name}.lua {place}"), "ran longer than 1 s"]);
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn finalizers_are_refused_so_none_runs_unbounded_when_lua_closes() {
    let dir = scratch("lua_bounds", "gc");
    let tail = "shape = 1\nfunction moves() return {} end\n";
    // A looping finalizer, and one that prints (which reached a destroyed interpreter).
    for (name, body) in [
        ("gc_loop", "setmetatable({}, {__gc = function() while true do end end})\n"),
        ("gc_print", "local keep = setmetatable({}, {__gc = function() print('bye') end})\n"),
        (
            "gc_later",
            "local mt = {__gc = true}\nlocal keep = setmetatable({}, mt)\nmt.__gc = function() \
                while true do end end\n",
        ),
    ] {
        let out =
            build(&dir, &script(&dir, name, &format!("{body}{tail}")), &["--lua-seconds", "1"], 15);
        assert_refused(&out, &[&format!("{name}.lua:"), "__gc"]);
    }
    // A __gc set after the metatable is a plain field: Lua marks no finalizer, the build ends.
    let out = build(
        &dir,
        &script(
            &dir,
            "gc_field",
            &format!(
                "local mt = {{}}\nlocal keep = setmetatable({{}}, mt)\nmt.__gc = function() while \
                    true do end end\n{tail}"
            ),
        ),
        &[],
        15,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn lua_c_functions_are_bounded_or_linear() {
    let dir = scratch("lua_bounds", "clib");
    let tail = "shape = 1\nfunction moves() return {} end\n";
    let a3000 = "local s = ('a'):rep(3000)\n";
    let long = [
        ("find", format!("{a3000}string.find(s, '.-.-.-.-.-.-b')\n")),
        ("match", format!("{a3000}s:match('(.-)(.-)(.-)(.-)(.-)b')\n")),
        ("gmatch", format!("{a3000}for x in s:gmatch('.-.-.-.-.-b') do end\n")),
        ("gsub", format!("{a3000}s:gsub('.-.-.-.-.-b', 'x')\n")),
        ("backref", "local s = ('a'):rep(200000)\ns:find('(a*)%1%1b')\n".to_string()),
        ("move", "table.move({}, 1, 1 << 40, 1, {})\n".to_string()),
        (
            "sort",
            "local t = {}\nfor i = 1, 4000000 do t[i] = (i * 7919) % 1000003 end\nwhile true do \
                table.sort(t) end\n"
                .to_string(),
        ),
    ];
    for (name, body) in long {
        let start = Instant::now();
        let out = build(
            &dir,
            &script(&dir, name, &format!("{body}{tail}")),
            &["--lua-seconds", "1", "--lua-memory", "512"],
            20,
        );
        assert_refused(&out, &[&format!("{name}.lua at its top level"), "ran longer than 1 s"]);
        assert!(start.elapsed() < Duration::from_secs(10), "{name}: {:?}", start.elapsed());
    }
    // An empty string repeated 2^50 times ran for ever in one C call; a pack format is short.
    let out = build(
        &dir,
        &script(
            &dir,
            "rep",
            &format!(
                "assert((''):rep(1 << 50) == '' and ('ab'):rep(3, ',') == 'ab,ab,ab')\n{tail}"
            ),
        ),
        &["--lua-seconds", "1"],
        20,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = build(
        &dir,
        &script(&dir, "pack", &format!("string.pack(('x'):rep(2 << 20))\n{tail}")),
        &[],
        20,
    );
    assert_refused(&out, &["pack.lua:1:", "pack format of 2097152 bytes is refused"]);
    // A plain find of a 64 KiB needle in 16 MiB is linear: it ends well within its second.
    let plain = "local s = ('a'):rep(1 << 24)\nlocal n = ('a'):rep(65535) .. \
        'b'\nassert(s:find(n, 1, true) == nil)\nassert(s:find('aab', 1) == nil)\n";
    let out = build(
        &dir,
        &script(&dir, "plain", &format!("{plain}{tail}")),
        &["--lua-seconds", "5", "--lua-memory", "512"],
        60,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    fs::remove_dir_all(&dir).unwrap();
}

/// A table file carrying `body` as its script (values made up: the script never built it).
fn stored_table(dir: &Path, name: &str, body: &str) -> String {
    let script = Script::new(name, body, vec![]).unwrap();
    let dims = Dims::new(&[4], 4).unwrap();
    let stored = Stored { origin: Origin::Script(script), dims };
    let table = Table::new(GameSpec::new(stored), Packed::from_values(&[0u32, 1, 0, 1]));
    let path = dir.join(format!("{name}.sgt"));
    fs::write(&path, format::encode(&table)).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn table_files_run_their_scripts_under_the_same_bounds() {
    let dir = scratch("lua_bounds", "stored");
    let out_dir = dir.join("rebuilt");
    let shape = "shape = 4\nfunction moves(n) if n > 0 then return {n - 1} end return {} end\n";
    for (name, body, want) in [
        (
            "pcall_loop",
            format!("while true do pcall(function() while true do end end) end\n{shape}"),
            "ran longer than 1 s",
        ),
        (
            "find_loop",
            format!("string.find(('a'):rep(3000), '.-.-.-.-.-.-b')\n{shape}"),
            "ran longer than 1 s",
        ),
        (
            "gc_loop",
            format!("setmetatable({{}}, {{__gc = function() while true do end end}})\n{shape}"),
            "__gc",
        ),
        ("hog", format!("local t = {{}}\nfor i = 1, 1e9 do t[i] = i end\n{shape}"), "memory"),
    ] {
        let file = stored_table(&dir, name, &body);
        for args in [
            vec!["verify", &file],
            vec!["build", "--from", &file, "--dir", out_dir.to_str().unwrap()],
        ] {
            let mut args = args.clone();
            args.extend_from_slice(&["--lua-seconds", "1", "--lua-memory", "16"]);
            let out = sgtab_within(&args, Duration::from_secs(15), None);
            assert_refused(&out, &[&format!("{name}.lua"), want]);
        }
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_options_sgtab_holds_stay_within_one_block() {
    // 60 positions each return the same list of a million options: holding a first block of
    // them took a gigabyte (16 GB for the 300 positions of 4 million entries measured once).
    let dir = scratch("lua_bounds", "options");
    let body = "local big = {}\nfor i = 1, 1 << 20 do big[i] = 0 end\nshape = 60\nfunction \
        moves(n) if n == 0 then return {} end return big end\n";
    let spec = script(&dir, "big", body);
    let out_dir = dir.join("out");
    let args = [
        "build",
        &spec,
        "--dir",
        out_dir.to_str().unwrap(),
        "--threads",
        "2",
        "--lua-memory",
        "64",
    ];
    let out = sgtab_within(&args, Duration::from_secs(120), Some(700_000));
    assert!(out.status.success(), "{}", text(&out.stderr));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn running_out_of_memory_is_one_line_never_an_abort() {
    let dir = scratch("lua_bounds", "oom");
    let d = dir.to_str().unwrap();
    // 200 MB held at the top level, within --lua-memory but past ulimit -v: the system's
    // refusal is an error in Lua (it aborted the process).
    let hold = script(
        &dir,
        "hold",
        "local t = {}\nfor i = 1, 12500000 do t[i] = i end\nshape = 1\nfunction moves() return {} \
            end\n",
    );
    let out = sgtab_within(
        &["build", &hold, "--dir", d, "--lua-memory", "1024", "--threads", "1"],
        Duration::from_secs(60),
        Some(300_000),
    );
    assert_refused(&out, &["hold.lua at its top level", "the system refused memory"]);
    // Interpreters that together could pass what the process may take are refused up front.
    let chain = script(
        &dir,
        "chain",
        "shape = 4096\nfunction moves(n) if n > 0 then return {n - 1} end return {} end\n",
    );
    let out = sgtab_within(
        &["build", &chain, "--dir", d, "--threads", "64", "--lua-memory", "256"],
        Duration::from_secs(60),
        Some(2_000_000),
    );
    assert_refused(&out, &["interpreters of up to 256 MiB", "use --threads"]);
    // A thread that cannot start is one line (it was a panic).
    let out = sgtab_within(
        &["build", &chain, "--dir", d, "--threads", "1024", "--lua-memory", "1"],
        Duration::from_secs(60),
        Some(2_000_000),
    );
    assert_refused(&out, &["cannot start thread", "of 1024", "fewer --threads"]);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sums_cost_their_parts_once_and_nothing_across_positions() {
    let dir = scratch("lua_bounds", "sums");
    // 100,000 parts in one sum: linear (it was quadratic, past a second).
    let many = script(
        &dir,
        "many",
        "shape = 2\nlocal parts = {}\nfor i = 1, 100000 do parts[i] = 0 end\nfunction moves(n) if \
            n == 0 then return {} end return {sum(table.unpack(parts))} end\n",
    );
    let out = build(&dir, &many, &["--lua-seconds", "1"], 30);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Position 1 makes 40,000 sums of 100 parts; position 2 then needs about 96 MB of its own
    // (a table of 3 million integers, growing). With --lua-memory 110 each builds alone, and
    // one after the other too (the table the sums were written to kept tens of MB from
    // position to position).
    let body = "shape = 3\nlocal p = {}\nfor i = 1, 100 do p[i] = 0 end\nfunction moves(n)\n  if \
        n == 1 then\n    local out = {}\n    for k = 1, 40000 do out[k] = sum(table.unpack(p)) \
        end\n    return out\n  end\n  if n == 2 then local t = {} for i = 1, 3000000 do t[i] = i \
        end end\n  return {}\nend\n";
    let out =
        build(&dir, &script(&dir, "across", body), &["--lua-memory", "110", "--threads", "1"], 60);
    assert!(out.status.success(), "{}", text(&out.stderr));
    fs::remove_dir_all(&dir).unwrap();
}
