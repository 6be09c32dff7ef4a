//! Options returned as values (`return n - 1, sum(a, b), {x, y}`), through the `sgtab` binary:
//! the same table as the same game's list of options and as sgtab's built-in family, the same
//! bytes on 1 and 2 threads, and each bad value one line that names the position and the line
//! of the script's `return`.

#![cfg(feature = "lua")]

mod common;

use common::{run, scratch, text};
use sgtab::progress::Progress;
use sgtab::spec::GameSpec;
use sgtab::table::format;
use std::fs;
use std::path::Path;

const SGTAB: &str = env!("CARGO_BIN_EXE_sgtab");

fn example(name: &str) -> String {
    format!("{}/examples/games/{name}.lua", env!("CARGO_MANIFEST_DIR"))
}

fn script(dir: &Path, name: &str, body: &str) -> String {
    let path = dir.join(format!("{name}.lua"));
    fs::write(&path, body).unwrap();
    format!("lua:{}", path.display())
}

/// Builds `spec` into a directory of its own under `dir` with `extra` options: the table's
/// file bytes and its values, or the error line (exit 1, one line, no panic).
fn build(dir: &Path, spec: &str, extra: &[&str]) -> Result<(Vec<u8>, Vec<u32>), String> {
    let out_dir = dir.join("out");
    let _ = fs::remove_dir_all(&out_dir);
    let mut args = vec!["build", spec, "--dir", out_dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = run(SGTAB, &args, b"");
    let err = text(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    if !out.status.success() {
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert_eq!(err.lines().count(), 1, "not one line: {err}");
        assert!(
            !out_dir.exists() || fs::read_dir(&out_dir).unwrap().count() == 0,
            "{spec}: a refused build wrote a file"
        );
        return Err(err.trim_end().to_string());
    }
    let file = fs::read_dir(&out_dir).unwrap().next().unwrap().unwrap().path();
    let table = format::read(&file).unwrap();
    let values = table.values.iter().collect();
    Ok((fs::read(file).unwrap(), values))
}

/// The values of `spec` built on one thread and on two, which must give the same bytes.
fn values(dir: &Path, spec: &str) -> Vec<u32> {
    let (one, values) =
        build(dir, spec, &["--threads", "1"]).unwrap_or_else(|e| panic!("{spec}: {e}"));
    let (two, _) = build(dir, spec, &["--threads", "2"]).unwrap();
    assert!(one == two, "{spec}: the file depends on the thread count");
    values
}

fn built_in(spec: &str) -> Vec<u32> {
    GameSpec::parse(spec).unwrap().reference(&Progress::silent()).unwrap().iter().collect()
}

/// The 1-3-9 stones as a list, as they were written before options could be values.
const STONES_LIST: &str = "N = N or 1024\nshape = N\nfunction moves(n)\n  local out = {}\n  for \
    _, take in ipairs({1, 3, 9}) do\n    if take <= n then out[#out + 1] = n - take end\n  end\n  \
    return out\nend\n";

/// Lasker's Nim with its list handed back as values (hundreds of them: Lua's stack grows); no
/// value at all is refused (a forgotten `return`), so heap 0 returns an empty list.
const LASKER_VALUES: &str = "N = N or 1024\nshape = N\nfunction moves(n)\n  if n == 0 then return \
    {} end\n  local out = {}\n  for rest = 0, n - 1 do out[#out + 1] = rest end\n  for a = 1, n \
    // 2 do out[#out + 1] = sum(a, n - a) end\n  return table.unpack(out)\nend\n";

/// Take two stones (or the last one), or split one stone off as a heap of its own and take
/// another, or two heaps of two and take one (a sum of two and a sum of three, as values and as
/// a list); small heaps named one by one.
const SPLIT_VALUES: &str = "shape = 300\nfunction moves(n)\n  if n >= 5 then return n - 2, sum(1, \
    n - 2), sum(2, 2, n - 5) end\n  if n >= 3 then return n - 2, sum(1, n - 2) end\n  if n >= 1 \
    then return 0 end\n  return {}\nend\n";
const SPLIT_LIST: &str = "shape = 300\nfunction moves(n)\n  local out = {}\n  if n >= 1 then \
    out[#out + 1] = math.max(n - 2, 0) end\n  if n >= 3 then out[#out + 1] = sum(1, n - 2) end\n  \
    if n >= 5 then out[#out + 1] = sum(2, 2, n - 5) end\n  return out\nend\n";

/// A 2-D game: a step left or down, or a jump down to the bottom row beside a copy of row 0 (a
/// sum of two 2-D positions); a single table of numbers returned alone is one position.
const GRID_VALUES: &str = "shape = {12, 9}\nfunction moves(x, y)\n  if x > 0 and y > 0 then \
    return {x - 1, y}, {x, y - 1}, sum({x, 0}, {0, y - 1}) end\n  if x > 0 then return {x - 1, y} \
    end\n  if y > 0 then return {x, y - 1} end\n  return {}\nend\n";
const GRID_LIST: &str = "shape = {12, 9}\nfunction moves(x, y)\n  local out = {}\n  if x > 0 then \
    out[#out + 1] = {x - 1, y} end\n  if y > 0 then out[#out + 1] = {x, y - 1} end\n  if x > 0 \
    and y > 0 then out[#out + 1] = sum({x, 0}, {0, y - 1}) end\n  return out\nend\n";

#[test]
fn options_as_values_give_the_list_forms_table_and_the_built_in_one() {
    let dir = scratch("lua_values", "same");
    let stones = values(&dir, &format!("lua:{}:N=1024", example("stones139")));
    assert_eq!(stones, built_in("sub:1,3,9:1024"));
    assert_eq!(
        stones,
        values(&dir, &format!("{}:N=1024", script(&dir, "stones_list", STONES_LIST)))
    );
    let lasker = values(&dir, &format!("{}:N=600", script(&dir, "lasker_values", LASKER_VALUES)));
    assert_eq!(lasker, built_in("lasker:600"));
    assert_eq!(lasker, values(&dir, &format!("lua:{}:N=600", example("lasker"))));
    let split = values(&dir, &script(&dir, "split_values", SPLIT_VALUES));
    assert_eq!(split, values(&dir, &script(&dir, "split_list", SPLIT_LIST)));
    assert!(split.iter().any(|&v| v > 2), "a game whose sums matter");
    let grid = values(&dir, &script(&dir, "grid_values", GRID_VALUES));
    assert_eq!(grid, values(&dir, &script(&dir, "grid_list", GRID_LIST)));
    assert_eq!(grid.len(), 12 * 9);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn each_bad_value_is_one_line_naming_the_position_and_the_return() {
    let dir = scratch("lua_values", "bad");
    let refuse = |name: &str, body: &str, want: &[&str]| {
        let err = build(&dir, &script(&dir, name, body), &[]).expect_err(name);
        for w in want {
            assert!(err.contains(w), "`{err}` lacks `{w}`");
        }
    };
    let head = "shape = 10\nfunction moves(n)\n  if n < 4 then return {} end\n";
    refuse(
        "float",
        &format!("{head}  return n - 1, n / 2\nend\n"),
        &["float.lua at position 4", "option 2 is 2.0 (a float", "(returned at float.lua:4)"],
    );
    refuse(
        "string",
        &format!("{head}  return n - 1, 'n - 2'\nend\n"),
        &[
            "string.lua at position 4",
            "option 2 is a string, not a position or a sum",
            "string.lua:4",
        ],
    );
    refuse(
        "middle",
        &format!("{head}  return n - 1, nil, n - 3\nend\n"),
        &["middle.lua at position 4", "option 2 is nil", "middle.lua:4"],
    );
    refuse(
        "last",
        &format!("{head}  return n - 1, nil\nend\n"),
        &["last.lua at position 4", "option 2 is nil", "last.lua:4"],
    );
    refuse(
        "outside",
        &format!("{head}  return n - 1, n + 20\nend\n"),
        &[
            "outside.lua at position 4",
            "option 2 is position 24, outside the shape 0..9",
            "outside.lua:4",
        ],
    );
    refuse(
        "negative",
        &format!("{head}  return n - 5\nend\n"),
        &[
            "negative.lua at position 4",
            "option 1 is position -1, outside the shape",
            "negative.lua:4",
        ],
    );
    refuse(
        "part",
        &format!("{head}  return sum(1, n + 20)\nend\n"),
        &[
            "part.lua at position 4",
            "part 2 of the sum that is option 1 is position 24",
            "part.lua:4",
        ],
    );
    refuse(
        "nested",
        &format!("{head}  return 1, sum(1, 2, {{3}}, sum(1, 1))\nend\n"),
        &[
            "nested.lua at position 4",
            "part 4 of the sum that is option 2 is itself a sum",
            "nested.lua:4",
        ],
    );
    refuse(
        "flag",
        &format!("{head}  return true\nend\n"),
        &["flag.lua at position 4", "moves returned a boolean, not its options", "flag.lua:4"],
    );
    refuse(
        "nilonly",
        &format!("{head}  return nil\nend\n"),
        &["nilonly.lua at position 4", "moves returned nil, not its options"],
    );
    // No value at all: a forgotten `return`, refused at the `end` it fell off.
    refuse(
        "nothing",
        "shape = 10\nfunction moves(n)\n  local out = {}\n  out[1] = n - 1\nend\n",
        &[
            "nothing.lua at position 0",
            "moves returned nothing",
            "`return {}` for a position with none",
            "nothing.lua:5",
        ],
    );
    // 2-D: a position is a list of two coordinates, alone or among values.
    let grid = "shape = {4, 4}\nfunction moves(x, y)\n  if x + y == 0 then return {} end\n";
    refuse(
        "short",
        &format!("{grid}  return {{x}}, {{0, 0}}\nend\n"),
        &[
            "short.lua at position (0, 1)",
            "option 1 is a list of 1 numbers; a position of this game is 2",
            "short.lua:4",
        ],
    );
    refuse(
        "coord",
        &format!("{grid}  return {{x, y + 4}}\nend\n"),
        &[
            "coord.lua at position (0, 1)",
            "option 1 has coordinate 2 = 5, outside 0..3",
            "coord.lua:4",
        ],
    );
    refuse(
        "number",
        &format!("{grid}  return 0, {{0, 0}}\nend\n"),
        &[
            "number.lua at position (0, 1)",
            "option 1 is the number 0, but a position of this 2-axis game is a list of 2 integers",
        ],
    );
    // The line of the function that returned, where moves tail-calls a helper.
    refuse(
        "helper",
        "shape = 10\nlocal function steps(n)\n  return n - 1, n - 20\nend\nfunction moves(n)\n  \
            if n == 0 then return {} end\n  return steps(n)\nend\n",
        &["helper.lua at position 1", "option 2 is position -19", "helper.lua:3)"],
    );
    // A list is blamed on its return too, and rank's value likewise.
    refuse(
        "list",
        "shape = 10\nfunction moves(n)\n  local out = {n + 10}\n  return out\nend\n",
        &["list.lua at position 0", "option 1 is position 10", "list.lua:4"],
    );
    refuse(
        "rank",
        "shape = 10\nfunction rank(n)\n  return n / 2\nend\nfunction moves(n) return {} end\n",
        &["rank.lua at position 0", "rank returned 0.0", "rank.lua:3"],
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_return_is_named_only_where_calling_again_gives_the_same_bad_value() {
    let dir = scratch("lua_values", "blame");
    // The first call at position 3 returns a float, the second call there an empty list: its
    // line would name a return the failing call may not have run.
    let once = "shape = 10\nlocal calls = 0\nfunction moves(n)\n  if n == 3 then\n    calls = \
        calls + 1\n    if calls == 1 then return 0.5 end\n  end\n  return {}\nend\n";
    let err = build(&dir, &script(&dir, "once", once), &["--threads", "1"]).expect_err("once");
    assert!(err.contains("once.lua at position 3: option 1 is 0.5 (a float"), "{err}");
    assert!(!err.contains("returned at"), "{err}");
    fs::remove_dir_all(&dir).unwrap();
}
