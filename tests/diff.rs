//! `sgtab diff`: equal tables (exit 0), different values with the first difference and the count
//! (exit 1), tables of different lengths and boards of different sides compared over what both
//! hold (exit 1, said), and unreadable or incomparable tables (exit 2).

mod common;

use common::{run, sgtab, tables_dir, text};
use std::path::Path;

fn diff(a: &Path, b: &Path) -> (Option<i32>, String, String) {
    let out = sgtab(&["diff", a.to_str().unwrap(), b.to_str().unwrap()]);
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

#[test]
fn equal_different_and_differently_long_tables() {
    let dir = common::scratch("diff", "tables");
    let d = dir.to_str().unwrap();
    for spec in ["lasker:512", "queen:8", "queen:12", "sub:1,2:1024"] {
        let built = sgtab(&["build", spec, "--dir", d]);
        assert!(built.status.success(), "{}", text(&built.stderr));
    }
    let lasker = tables_dir().join("lasker-1024.sgt");

    // The same table twice, and a committed table against its rebuild.
    let (code, out, _) = diff(&lasker, &lasker);
    assert_eq!(
        (code, out.as_str()),
        (Some(0), "same game: lasker:1024\nequal: all 1024 values compared\n")
    );
    let rebuilt = sgtab(&["build", "lasker", "--dir", d]);
    assert!(rebuilt.status.success());
    assert_eq!(diff(&lasker, &dir.join("lasker-1024.sgt")).0, Some(0));

    // Different lengths: the common 512 entries, equal, said, exit 1.
    let (code, out, _) = diff(&lasker, &dir.join("lasker-512.sgt"));
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("different games: lasker:1024 and lasker:512"), "{out}");
    assert!(
        out.contains("compared over the first 512 entries (the tables have 1024 and 512)")
            && out.contains("equal: all 512 values compared"),
        "{out}"
    );

    // Different values: sub:1,3,9 against sub:1,2.
    let stones = tables_dir().join("sub-1_3_9-1024.sgt");
    let (code, out, _) = diff(&stones, &dir.join("sub-1_2-1024.sgt"));
    let want_first = (0..1024u64).find(|&n| {
        let t = |f: &Path| sgtab::table::format::read(f).unwrap().values.get(n);
        t(&stones) != t(&dir.join("sub-1_2-1024.sgt"))
    });
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(&format!("differ: first at n = {}", want_first.unwrap()))
            && out.contains("of 1024 values differ"),
        "{out}"
    );

    // One value changed in an imported copy: found, counted once.
    let values: Vec<String> = text(&sgtab(&["dump", lasker.to_str().unwrap()]).stdout)
        .lines()
        .map(str::to_string)
        .collect();
    let mut changed = values.clone();
    changed[700] = "9999".into();
    let imported = run(
        env!("CARGO_BIN_EXE_sgtab"),
        &["import", "-", "--name", "changed", "--dir", d],
        (changed.join("\n") + "\n").as_bytes(),
    );
    assert!(imported.status.success(), "{}", text(&imported.stderr));
    let (code, out, _) = diff(&lasker, &dir.join("changed.sgt"));
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(&format!(
            "differ: first at n = 700 ({} has {}, ",
            lasker.display(),
            values[700]
        )) && out.contains("has 9999); 1 of 1024 values differ"),
        "{out}"
    );

    // Boards of different sides: by position over the common square.
    let (code, out, _) = diff(&dir.join("queen-12.sgt"), &dir.join("queen-8.sgt"));
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("compared over the common 8×8 square (the boards are 12×12 and 8×8)")
            && out.contains("equal: all 64 values compared"),
        "{out}"
    );

    // Unreadable, or not comparable: exit 2, one line.
    let (code, out, err) = diff(&lasker, &dir.join("missing.sgt"));
    assert!(code == Some(2) && out.is_empty() && err.lines().count() == 1, "{err}");
    let (code, _, err) = diff(&lasker, &dir.join("queen-8.sgt"));
    assert!(
        code == Some(2)
            && err.contains("cannot compare lasker:1024 (1 axis) with queen:8 (2 axes)")
            && err.lines().count() == 1,
        "{err}"
    );

    // One value against two: singular words.
    for (name, values) in [("one", "5\n"), ("two", "5\n6\n")] {
        let imported = run(
            env!("CARGO_BIN_EXE_sgtab"),
            &["import", "-", "--name", name, "--dir", d],
            values.as_bytes(),
        );
        assert!(imported.status.success(), "{}", text(&imported.stderr));
    }
    let (code, out, _) = diff(&dir.join("one.sgt"), &dir.join("two.sgt"));
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(
            "compared over the first entry (the tables have 1 and 2)\nequal: the 1 value compared\n"
        ),
        "{out}"
    );
    let (code, out, _) = diff(&dir.join("one.sgt"), &dir.join("changed.sgt"));
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("one.sgt has 5, ") && out.contains("1 of 1 value differs"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}
