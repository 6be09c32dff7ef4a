//! A script's table is what the script says, every time, or one line of refusal, through the
//! `sgtab` binary: option lists read whole, sums no integer can forge, the same bytes on every
//! run and thread count (string keys' order, no addresses, read-only globals, a sample asked
//! again of a fresh interpreter), parameters the script reads, and the messages (escaped,
//! truthful, in words).

#![cfg(feature = "lua")]

mod common;

use common::{run, scratch, text};
use std::fs;
use std::path::Path;

const SGTAB: &str = env!("CARGO_BIN_EXE_sgtab");

fn script(dir: &Path, name: &str, body: &str) -> String {
    let path = dir.join(format!("{name}.lua"));
    fs::write(&path, body).unwrap();
    format!("lua:{}", path.display())
}

/// Builds `spec` into `dir/out` with `extra` options: the table's bytes, or the error line.
fn build(dir: &Path, spec: &str, extra: &[&str]) -> Result<Vec<u8>, String> {
    let out_dir = dir.join("out");
    let _ = fs::remove_dir_all(&out_dir);
    let mut args = vec!["build", spec, "--dir", out_dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = run(SGTAB, &args, b"");
    let err = text(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    if !out.status.success() {
        assert_eq!(out.status.code(), Some(1), "{err}");
        let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("sgtab: error:")).collect();
        assert_eq!(lines.len(), 1, "{err}");
        return Err(lines[0].to_string());
    }
    let file = fs::read_dir(&out_dir).unwrap().next().unwrap().unwrap().path();
    Ok(fs::read(file).unwrap())
}

fn refused(dir: &Path, spec: &str, extra: &[&str], want: &[&str]) -> String {
    let err = build(dir, spec, extra).expect_err(spec);
    for w in want {
        assert!(err.contains(w), "`{err}` lacks `{w}`");
    }
    err
}

#[test]
fn option_lists_are_read_whole() {
    let dir = scratch("lua_tables", "lists");
    // Options 1 and 3 of 3 (option 2 skipped): a hole at 2 that `#` may or may not see.
    let holes = "shape = 40\nfunction moves(n)\n  local o = {}\n  for i, d in ipairs({3, 1, 2}) \
        do\n    if i ~= 2 and d <= n then o[i] = n - d end\n  end\n  return o\nend\n";
    refused(
        &dir,
        &script(&dir, "holes", holes),
        &[],
        &["holes.lua at position 2", "the list of options has the key 3", "its length (#) is 0"],
    );
    let zero = "shape = 40\nfunction moves(n)\n  local o = {}\n  if n > 0 then o[0] = n - 1 \
        end\n  return o\nend\n";
    refused(&dir, &script(&dir, "zero", zero), &[], &["zero.lua at position 1", "the key 0"]);
    let named = "shape = 4\nfunction moves(n) return {n = 1} end\n";
    refused(&dir, &script(&dir, "named", named), &[], &["named.lua at position 0", "key \"n\""]);
    // A hole below the length: {1, nil, 3} has length 3 here.
    let gap = "shape = 4\nfunction moves(n) if n == 3 then return {0, nil, 2} end return {} end\n";
    refused(&dir, &script(&dir, "gap", gap), &[], &["gap.lua at position 3", "no key 2"]);
    // The parts of a sum and the coordinates of a position are read whole too.
    let coords = "shape = {4, 4}\nfunction moves(x, y) if x + y > 0 then return {{[0] = 0, 0, 0}} \
        end return {} end\n";
    refused(
        &dir,
        &script(&dir, "coords", coords),
        &[],
        &["coords.lua at position (0, 1)", "option 1", "the key 0"],
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn no_integer_is_taken_for_a_sum() {
    let dir = scratch("lua_tables", "forge");
    // The integer that once read as sum(1, 2).
    let forged = "shape = 40\nfunction moves(n) return {-(1 << 61) - 1 - ((1 << 30) | 2)} end\n";
    refused(
        &dir,
        &script(&dir, "forged", forged),
        &[],
        &[
            "forged.lua at position 0",
            "option 1 is position -2305843010287435779, outside the shape",
        ],
    );
    // A sum stays a sum wherever it is kept: one made for another position is as good.
    let kept = "shape = 30\nlocal memo = {}\nfunction moves(n)\n  local out = {}\n  for a = 1, n \
        - 1 do\n    memo[a] = memo[a] or {}\n    memo[a][n - a] = memo[a][n - a] or sum(a, n - \
        a)\n    out[#out + 1] = memo[a][n - a]\n    out[#out + 1] = sum(a, n - a, 0)\n  end\n  \
        return out\nend\n";
    let plain = "shape = 30\nfunction moves(n)\n  local out = {}\n  for a = 1, n - 1 do\n    \
        out[#out + 1] = sum(a, n - a)\n    out[#out + 1] = sum(a, n - a, 0)\n  end\n  return \
        out\nend\n";
    // Same values (the files differ by their script text only).
    let dump = |name: &str, body: &str| {
        let dir2 = dir.join(name);
        fs::create_dir_all(&dir2).unwrap();
        let spec = script(&dir2, "g", body);
        build(&dir2, &spec, &[]).unwrap();
        let file = fs::read_dir(dir2.join("out")).unwrap().next().unwrap().unwrap().path();
        text(&run(SGTAB, &["dump", file.to_str().unwrap()], b"").stdout)
    };
    assert_eq!(dump("a", kept), dump("b", plain));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_same_script_gives_the_same_bytes_on_every_run() {
    let dir = scratch("lua_tables", "same");
    // The order of `pairs` over string keys (Lua seeded its string hash at random).
    let order = "local t = {}\nfor i, k in ipairs({'alpha', 'beta', 'gamma', 'delta', 'epsilon', \
        'zeta', 'eta', 'theta', 'iota', 'kappa', 'lambda', 'mu'}) do t[k] = i end\nlocal order = \
        {}\nfor _, v in pairs(t) do order[#order + 1] = v end\nshape = 200\nfunction moves(n)\n  \
        local out = {}\n  for i = 1, n do if order[(n + i) % 12 + 1] % 3 ~= 0 then out[#out + 1] \
        = i - 1 end end\n  return out\nend\n";
    let spec = script(&dir, "order", order);
    let first = build(&dir, &spec, &[]).unwrap();
    for threads in ["1", "2", "1", "2"] {
        assert_eq!(
            build(&dir, &spec, &["--threads", threads]).unwrap(),
            first,
            "a build on {threads} threads differs"
        );
    }
    // Sorting equal keys: Lua's random pivot left them in another order on each run.
    let sort = "local t = {}\nfor i = 1, 3000 do t[i] = {k = i % 7, v = i} end\ntable.sort(t, \
        function(a, b) return a.k < b.k end)\nshape = 200\nfunction moves(n)\n  local out = {}\n  \
        for i = 1, n do if t[n * 13 + i].v % 3 ~= 0 then out[#out + 1] = i - 1 end end\n  return \
        out\nend\n";
    let spec = script(&dir, "sort", sort);
    let first = build(&dir, &spec, &[]).unwrap();
    for _ in 0..4 {
        assert_eq!(build(&dir, &spec, &[]).unwrap(), first, "a sort differs between runs");
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn no_address_is_reachable() {
    let dir = scratch("lua_tables", "address");
    let tail = "shape = 1\nfunction moves() return {} end\n";
    for (name, line, want) in [
        ("tostring", "local k = tostring({})", "tostring of a table is refused"),
        ("tostringf", "local k = tostring(print)", "tostring of a function is refused"),
        (
            "format_s",
            "local k = string.format('%s', {})",
            "string.format('%s') of a table is refused",
        ),
        ("format_p", "local k = ('%p'):format('x')", "string.format('%p') is refused"),
    ] {
        refused(
            &dir,
            &script(&dir, name, &format!("{line}\n{tail}")),
            &[],
            &[&format!("{name}.lua:1:"), want],
        );
    }
    // print shows such a value by its type; a value with __tostring as it says; a sum in words.
    let shown = "print({}, print, setmetatable({}, {__tostring = function() return 'mine' end}), \
        sum(1, 2), sum(1, 2, 3), tostring(sum(4, 5)))\n";
    let spec = script(&dir, "print", &format!("{shown}{tail}"));
    let out = run(SGTAB, &["build", &spec, "--dir", dir.join("out").to_str().unwrap()], b"");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr)
            .contains("print.lua: table\tfunction\tmine\tsum(1, 2)\tsum(1, 2, 3)\tsum(4, 5)"),
        "{}",
        text(&out.stderr)
    );
    assert!(!text(&out.stderr).contains("0x"), "{}", text(&out.stderr));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn globals_are_read_only_once_the_top_level_has_run() {
    let dir = scratch("lua_tables", "globals");
    // A global counter made the table depend on --threads; so does one assigned at one
    // position only.
    let counter =
        "count = 0\nshape = 100\nfunction moves(n)\n  count = count + 1\n  return {}\nend\n";
    refused(
        &dir,
        &script(&dir, "counter", counter),
        &[],
        &["counter.lua at position 0", "the global `count` was assigned"],
    );
    let late = "seen = false\nshape = 100\nfunction moves(n)\n  if n == 70 then seen = true \
        end\n  return {}\nend\n";
    refused(
        &dir,
        &script(&dir, "late", late),
        &["--threads", "1"],
        &["late.lua at one of the", "positions from", "the global `seen` was assigned"],
    );
    // A new global, and every other way to write one, where it is written.
    for (name, line) in [
        ("new", "fresh = 1"),
        ("g", "_G.x = 1"),
        ("raw", "rawset(_G, 'x', 1)"),
        ("env", "_ENV.x = 1"),
        ("mt", "setmetatable(_G, nil)"),
    ] {
        let body = format!("shape = 4\nfunction moves(n)\n  {line}\n  return {{}}\nend\n");
        refused(&dir, &script(&dir, name, &body), &[], &[&format!("{name}.lua:3:")]);
    }
    // Reading them every way still works.
    let reads = "N = 3\nshape = 4\nfunction moves(n)\n  assert(N == 3 and _G.N == 3 and \
        rawget(_G, 'N') == 3 and _ENV.N == 3)\n  local seen = 0\n  for k in pairs(_G) do if k == \
        'N' then seen = seen + 1 end end\n  assert(seen == 1 and next(_G) ~= nil)\n  return \
        {}\nend\n";
    build(&dir, &script(&dir, "reads", reads), &[]).unwrap();
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn moves_that_keep_state_between_calls_are_refused() {
    let dir = scratch("lua_tables", "state");
    let upvalue = "shape = 300\nlocal calls = 0\nfunction moves(n)\n  calls = calls + 1\n  local \
        out = {}\n  for i = 1, n do if (calls + i) % 3 ~= 0 then out[#out + 1] = n - i end end\n  \
        return out\nend\n";
    refused(
        &dir,
        &script(&dir, "upvalue", upvalue),
        &[],
        &["lua:upvalue@", "depend on something besides the position", "nothing was written"],
    );
    assert!(!dir.join("out").exists() || fs::read_dir(dir.join("out")).unwrap().count() == 0);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_parameter_the_script_never_reads_is_refused() {
    let dir = scratch("lua_tables", "params");
    let body = "A = A or 3\nshape = A\nfunction moves(n) return {} end\n";
    refused(
        &dir,
        &format!("{}:a=2", script(&dir, "upper", body)),
        &[],
        &["parameter a is never read by upper.lua", "A"],
    );
    // Read at the top level, or only inside moves: both fine.
    assert!(build(&dir, &format!("{}:A=2", script(&dir, "upper", body)), &[]).is_ok());
    let later = "shape = 10\nfunction moves(n) if n < K then return {} end return {n - 1} end\n";
    assert!(build(&dir, &format!("{}:K=2", script(&dir, "later", later)), &[]).is_ok());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn messages_are_escaped_truthful_and_in_words() {
    let dir = scratch("lua_tables", "messages");
    // Control bytes of the script's message reach the terminal escaped.
    let err = refused(
        &dir,
        &script(&dir, "ctrl", "shape = 4\nfunction moves(n) error('\\27[31mred\\rX') end\n"),
        &[],
        &["ctrl.lua:2:", "\\u{1b}[31mred\\rX"],
    );
    assert!(!err.contains('\u{1b}') && !err.contains('\r'), "{err:?}");
    let out = run(
        SGTAB,
        &[
            "build",
            &script(
                &dir,
                "noisy",
                "print('a\\27[2Jb')\nshape = 1\nfunction moves() return {} end\n",
            ),
            "--dir",
            dir.join("out").to_str().unwrap(),
        ],
        b"",
    );
    assert!(
        !text(&out.stderr).contains('\u{1b}')
            && text(&out.stderr).contains("noisy.lua: a\\u{1b}[2Jb"),
        "{:?}",
        text(&out.stderr)
    );
    // A long cycle: each arrow is a move.
    let cycle = "shape = 100\nfunction moves(n) return {(n + 1) % 100} end\n";
    refused(
        &dir,
        &script(&dir, "cycle", cycle),
        &[],
        &["0 → 1 → 2 → 3 → (93 more) → 97 → 98 → 99 → 0 (a cycle of 100 positions)"],
    );
    refused(
        &dir,
        &script(&dir, "pow", "shape = 2^10\nfunction moves(n) return {} end\n"),
        &[],
        &["the float 1024.0", "1 << 10"],
    );
    refused(
        &dir,
        &script(&dir, "half", "shape = 7 / 2\nfunction moves(n) return {} end\n"),
        &[],
        &["the float 3.5"],
    );
    let err = refused(
        &dir,
        &script(
            &dir,
            "rank",
            "shape = 4\nfunction rank(n) return 'x' end\nfunction moves(n) return {} end\n",
        ),
        &[],
        &["rank returned a string, not an integer"],
    );
    assert!(!err.contains("a integer"), "{err}");
    fs::remove_dir_all(&dir).unwrap();
}
