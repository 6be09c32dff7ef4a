//! Rules as the `sgtab` command line reports them: `build --prove`, tables filled from a proven
//! rule, what `show` says about a rule that is not proven (and why), and the rare values.

mod common;

use common::{sgtab, text};
use std::fs;
use std::path::{Path, PathBuf};

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    common::scratch("rules", name)
}

/// Builds `spec` into `out` (extra arguments after it) and returns stdout; fails the test if
/// the build fails.
fn build(out: &Path, spec: &str, extra: &[&str]) -> String {
    let mut args = vec!["build", spec, "--dir", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let run = sgtab(&args);
    assert!(run.status.success(), "sgtab build {spec}: {}", text(&run.stderr));
    text(&run.stdout)
}

/// `sgtab show FILE` (no values), as lines.
fn show(file: &Path) -> String {
    let run = sgtab(&["show", file.to_str().unwrap(), "--values", "0"]);
    assert!(run.status.success(), "show {}: {}", file.display(), text(&run.stderr));
    text(&run.stdout)
}

fn line<'a>(shown: &'a str, key: &str) -> Option<&'a str> {
    shown.lines().find(|l| l.starts_with(key))
}

fn dump(file: &Path) -> Vec<u32> {
    let run = sgtab(&["dump", file.to_str().unwrap()]);
    assert!(run.status.success());
    text(&run.stdout).lines().map(|l| l.parse().unwrap()).collect()
}

#[test]
fn prove_names_the_theorem_and_show_repeats_it() {
    let out = scratch("prove");
    let said = build(&out, "0.77:100", &["--prove"]);
    assert!(
        said.contains(
            "0.77:200: rule proven by the Guy-Smith periodicity theorem with 200 entries"
        ),
        "{said}"
    );
    let file = out.join("0.77-200.sgt");
    let shown = show(&file);
    assert_eq!(
        line(&shown, "rule:"),
        Some("rule:     g(n+12) = g(n) for n >= 71 (proven by the Guy-Smith periodicity theorem)")
    );
    assert!(line(&shown, "proof:").is_none(), "{shown}");
    assert!(shown.contains("largest value 8"), "{shown}");
    assert!(sgtab(&["verify", file.to_str().unwrap()]).status.success());
    fs::remove_dir_all(&out).unwrap();
}

#[test]
fn one_value_short_of_the_theorem_is_checked_not_proven() {
    // Dawson's Kayles: pre-period 53, period 34, last digit 2, so Guy-Smith needs the rule
    // checked for n + 34 < 2·53 + 2·34 + 2 = 176: a table of 176 entries.
    let out = scratch("short");
    build(&out, "0.07:175", &[]);
    build(&out, "0.07:176", &[]);
    let short = show(&out.join("0.07-175.sgt"));
    assert_eq!(
        line(&short, "rule:"),
        Some("rule:     g(n+34) = g(n) for n >= 53 (checked up to n = 174, not proven beyond)")
    );
    let why = line(&short, "proof:").unwrap_or_else(|| panic!("{short}"));
    assert!(
        why.contains(
            "Guy-Smith periodicity theorem proves this rule once it is checked to n = 175"
        ),
        "{why}"
    );
    assert!(why.contains("`sgtab build 0.07:175 --prove`"), "{why}");
    let enough = show(&out.join("0.07-176.sgt"));
    assert!(
        line(&enough, "rule:").unwrap().ends_with("(proven by the Guy-Smith periodicity theorem)"),
        "{enough}"
    );
    fs::remove_dir_all(&out).unwrap();
}

#[test]
fn tails_and_saltus_are_checked_only_and_show_says_why() {
    let out = scratch("hex");
    for (spec, file, rule, why, prove) in [
        // Lasker's Nim: period 4, saltus 4, from a code with a tail: --prove is refused.
        (
            "4.[3]:600",
            "4._3_-600.sgt",
            "g(n+4) = g(n) + 4 for n >= 1",
            "a code with a repeating tail",
            false,
        ),
        // Hexadecimal codes with a saltus: a theorem covers the code, not the saltus.
        (
            "0.0F:300",
            "0.0F-300.sgt",
            "g(n+2) = g(n) + 1 for n >= 0",
            "plain periods only, not a saltus",
            true,
        ),
        (
            "0.48:300",
            "0.48-300.sgt",
            "g(n+2) = g(n) + 1 for n >= 1",
            "plain periods only, not a saltus",
            true,
        ),
    ] {
        let file = if prove {
            let said = build(&out, spec, &["--prove", "--max", "600"]);
            assert!(said.contains("rule not proven by 600 entries (--max)"), "{spec}: {said}");
            file.replace("300", "600")
        } else {
            build(&out, &spec.replace("300", "600"), &[]);
            file.to_string()
        };
        let shown = show(&out.join(file));
        let r = line(&shown, "rule:").unwrap();
        assert!(
            r.contains(rule) && r.ends_with("(checked up to n = 599, not proven beyond)"),
            "{spec}: {r}"
        );
        let p = line(&shown, "proof:").unwrap_or_else(|| panic!("{spec}: {shown}"));
        assert!(p.starts_with("proof:    not proven: ") && p.contains(why), "{spec}: {p}");
    }
    fs::remove_dir_all(&out).unwrap();
}

#[test]
fn splits_without_removal_and_three_heap_codes_are_proven_in_a_few_entries() {
    let out = scratch("extended");
    // 0.F: period 2 from 0, proven from n0 = 1 by 3·1 + 3·2 + 1 = 10 entries; the rule itself
    // needs 18 values of margin, so --prove from 10 stops at 20.
    let said = build(&out, "0.F:10", &["--prove"]);
    assert!(
        said.contains(
            "0.F:20: rule proven by the Guy-Smith periodicity theorem, extended to every finite \
                code with 20 entries (the theorem needs 10)"
        ),
        "{said}"
    );
    // d0 = 4 with octal digits: m = 2.
    let said = build(&out, "4.7:300", &[]);
    assert!(
        said.contains(
            "g(n+2) = g(n) for n >= 1 (proven by the Guy-Smith periodicity theorem, extended to \
                every finite code)"
        ),
        "{said}"
    );
    // Take 1 to 50 beans or split a heap in two: period 52 from 1, proven, not the period 4
    // that closes a 2000-entry table.
    let code = format!("4.{}", "3".repeat(50));
    let said = build(&out, &format!("{code}:2000"), &[]);
    assert!(
        said.contains(
            "g(n+52) = g(n) for n >= 1 (proven by the Guy-Smith periodicity theorem, extended to \
                every finite code)"
        ),
        "{said}"
    );
    fs::remove_dir_all(&out).unwrap();
}

#[test]
fn show_states_the_margin_the_rule_rests_on() {
    let out = scratch("margin");
    build(&out, "0.77:300", &[]);
    let shown = show(&out.join("0.77-300.sgt"));
    assert_eq!(
        line(&shown, "margin:"),
        Some(
            "margin:   checked over the 229 values from n = 71 to the table's end, 19.1 periods \
                of 12 values; a rule must hold over at least 36 values here (three periods)"
        ),
        "{shown}"
    );
    // No rule, no margin line.
    build(&out, "grundy:40", &[]);
    assert!(line(&show(&out.join("grundy-40.sgt")), "margin:").is_none());
    fs::remove_dir_all(&out).unwrap();
}

#[test]
fn prove_is_refused_at_once_where_no_theorem_can_prove_a_rule() {
    for (spec, why) in [
        ("4.[3]", "a code with a repeating tail"),
        ("grundy", "no theorem proves the rules of grundy games"),
        ("lasker", "no theorem proves the rules of lasker games"),
        ("funny", "no theorem proves the rules of funny games"),
        ("chess:4", "a chess table has no rule along its index"),
        ("queen:8", "a queen table has no rule along its index"),
    ] {
        let start = std::time::Instant::now();
        let run = sgtab(&["build", spec, "--prove", "--dir", "/nonexistent-never"]);
        let err = text(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{spec}: {err}");
        assert_eq!(err.lines().count(), 1, "{spec}: {err}");
        assert!(
            err.contains("--prove cannot prove a rule of")
                && err.contains(why)
                && err.contains("without --prove"),
            "{spec}: {err}"
        );
        assert!(start.elapsed().as_secs() < 5, "{spec}: refused only after work");
    }
    // Over the table limit: refused by the option's own range.
    let run =
        sgtab(&["build", "0.07", "--prove", "--max", "1100000000", "--dir", "/nonexistent-never"]);
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(
        err.contains("1100000000 is not in 1..=1073741824") && err.lines().count() == 1,
        "{err}"
    );
    assert!(!Path::new("/nonexistent-never").exists());
}

#[test]
fn a_long_table_of_a_proven_game_is_filled_from_its_rule() {
    let out = scratch("fill");
    let said = build(&out, "0.07:1000000", &[]);
    assert!(
        said.contains("the first 256 values proved the rule; the rest were filled from it"),
        "{said}"
    );
    let values = dump(&out.join("0.07-1000000.sgt"));
    assert_eq!(values.len(), 1_000_000);
    // Computed in full to 4096 with the reference, the rest is the period: compare both ends.
    build(&out, "0.07:4096", &["--backend", "scalar"]);
    let head = dump(&out.join("0.07-4096.sgt"));
    assert_eq!(&values[..4096], &head[..]);
    assert!((53..1_000_000 - 34).all(|n| values[n + 34] == values[n]));
    fs::remove_dir_all(&out).unwrap();
}

#[test]
fn show_lists_the_rare_values_of_the_mask_with_fewest_rare_entries() {
    let out = scratch("rare");
    build(&out, "grundy:20000", &[]);
    let file = out.join("grundy-20000.sgt");
    let values = dump(&file);
    // Every mask over the bits of the largest value, straight from the definition.
    let max = *values.iter().max().unwrap();
    let rare = |m: u32, v: u32| (v & m).count_ones().is_multiple_of(2);
    let (entries, mask) = (1..(max + 1).next_power_of_two())
        .map(|m| (values.iter().filter(|&&v| rare(m, v)).count(), m))
        .min()
        .unwrap();
    let mut kinds: Vec<u32> = values.iter().copied().filter(|&v| rare(mask, v)).collect();
    kinds.sort_unstable();
    kinds.dedup();
    let shown = show(&file);
    let r = line(&shown, "rare:").unwrap_or_else(|| panic!("{shown}"));
    let mut distinct = values.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert!(
        r.starts_with(&format!(
            "rare:     {} of the {} values are rare, held by {entries} of 20000 entries",
            kinds.len(),
            distinct.len()
        )),
        "{r}"
    );
    assert!(r.contains(&format!("the mask {mask:#x}")), "{r}");
    // The first rare values, each with the last entry that holds it.
    let last = |k: u32| values.iter().rposition(|&v| v == k).unwrap();
    let first: Vec<String> =
        kinds.iter().take(16).map(|&k| format!("{k} (last at {})", last(k))).collect();
    assert!(r.contains(&format!("): {}, ...", first.join(", "))), "{r}");
    // How often each value occurs: the counts line adds up the table.
    let counts = line(&shown, "counts:").unwrap_or_else(|| panic!("{shown}"));
    assert!(
        counts.starts_with(&format!(
            "counts:   {} distinct values; the most frequent: ",
            distinct.len()
        )),
        "{counts}"
    );
    let zeros = values.iter().filter(|&&v| v == 0).count();
    assert!(shown.contains(&format!("0 ×{zeros} (last at {})", last(0))), "{shown}");
    // Grundy's game is famous for few rare values: about 6% here.
    assert!(entries * 16 < values.len(), "{r}");
    assert!(shown.contains(&format!("largest value {max}")), "{shown}");

    // A table of zeros has nothing to split.
    build(&out, "0.0:50", &[]);
    let shown = show(&out.join("0.0-50.sgt"));
    assert_eq!(line(&shown, "rare:"), Some("rare:     none (every value is 0)"), "{shown}");
    fs::remove_dir_all(&out).unwrap();
}

#[test]
fn max_without_prove_is_refused() {
    let run = sgtab(&["build", "0.07", "--max", "100", "--dir", "/nonexistent-never"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(text(&run.stderr).contains("--prove"), "{}", text(&run.stderr));
}

#[test]
fn a_max_below_the_table_or_zero_is_refused_before_any_work() {
    let run = sgtab(&["build", "0.07", "--prove", "--max", "0", "--dir", "/nonexistent-never"]);
    assert_eq!(run.status.code(), Some(2), "{}", text(&run.stderr));
    let run =
        sgtab(&["build", "0.07:1024", "--prove", "--max", "100", "--dir", "/nonexistent-never"]);
    assert_eq!(run.status.code(), Some(1));
    let err = text(&run.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("--max 100 is below the 1024 entries of 0.07:1024")
            && err.contains("--max 1024 or more"),
        "{err}"
    );
    assert!(!Path::new("/nonexistent-never").exists());
}
