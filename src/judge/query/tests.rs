use super::*;
use crate::games::{Family, Game};
use crate::progress::Progress;
use crate::spec::GameSpec;
use crate::table::Table;
use crate::values::{Packed, Rule};

fn run_value(table: &Table, input: &str) -> (Result<String, String>, Vec<String>) {
    let mut out = Vec::new();
    let mut notes = Vec::new();
    let r = value(table, Input::Stream(&mut input.as_bytes()), &mut out, &mut |s| {
        notes.push(s.to_string())
    });
    (r.map(|_| String::from_utf8(out).unwrap()).map_err(|e| e.to_string()), notes)
}

fn heap_table(spec: &str, values: &[u32], rule: Option<Rule>) -> Table {
    Table { spec: GameSpec::parse(spec).unwrap(), values: Packed::from_values(values), rule }
}

#[test]
fn rule_reach_stops_before_overflow() {
    // g(n) = n on 0..40, saltus 1 period 1: g(n) = n everywhere, fits u64 up to u64::MAX.
    let values: Vec<u32> = (0..40).collect();
    let rule = Rule { pre: 0, period: 1, saltus: 1, checked: 40, proven: true };
    let t = heap_table("sub:1:40", &values, Some(rule));
    let g = Lookup::new(&t).unwrap();
    assert_eq!(g.limit(), u64::MAX);
    assert_eq!(g.get(u64::MAX), u64::MAX);
    // Saltus 3, period 2: g(2k + r) = head[r] + 3k; head = [5, 7].
    let values: Vec<u32> = (0..40u32).map(|n| [5, 7][n as usize % 2] + 3 * (n / 2)).collect();
    let rule = Rule { pre: 0, period: 2, saltus: 3, checked: 40, proven: true };
    let t = heap_table("sub:1:40", &values, Some(rule));
    let g = Lookup::new(&t).unwrap();
    let kmax = (u64::MAX - 7) / 3;
    assert_eq!(g.limit(), 2 * kmax + 1);
    assert_eq!(g.get(g.limit()), 7 + 3 * kmax);
    let (r, _) = run_value(&t, &format!("{}\n", g.limit() + 1));
    let e = r.unwrap_err();
    assert!(e.contains("past the reach of the rule") && e.contains("line 1, column 1"), "{e}");
}

#[test]
fn a_rule_that_does_not_fit_is_refused() {
    let rule = Rule { pre: 30, period: 20, saltus: 0, checked: 40, proven: true };
    let t = heap_table("sub:1:40", &[0; 40], Some(rule));
    assert!(Lookup::new(&t).err().unwrap().to_string().contains("does not fit its 40 entries"));
}

/// A board game made up for the tests (no board family may exist yet): g(x, y) = x XOR y,
/// which is Nim on two heaps, on an n×n board.
#[derive(Debug)]
struct FakeBoard(u64);

static FAKE: Family = Family { name: "fakeboard", grammar: "fakeboard", parse: |_| None };

impl Game for FakeBoard {
    fn family(&self) -> &'static Family {
        &FAKE
    }
    fn canonical(&self) -> String {
        format!("fakeboard:{}", self.0)
    }
    fn len(&self) -> u64 {
        self.0 * self.0
    }
    fn positions(&self) -> Positions {
        Positions::Board { n: self.0 }
    }
    fn reference(&self, _: &Progress) -> Result<Packed, crate::games::GameError> {
        let n = self.0;
        Ok(Packed::from_values(&(0..n * n).map(|i| (i / n) ^ (i % n)).collect::<Vec<u64>>()))
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[test]
fn board_positions_are_pairs() {
    let spec = GameSpec::new(FakeBoard(8));
    let t = Table { values: spec.reference(&Progress::silent()).unwrap(), spec, rule: None };
    let (r, _) = run_value(&t, "0 0\n3 5\n7 7\n7 0\n");
    assert_eq!(r.unwrap(), "0\n6\n0\n7\n");
    let (r, _) = run_value(&t, "1 2\n8 0\n");
    let e = r.unwrap_err();
    assert_eq!(
        e,
        "bad input: line 2, column 1 (byte 4): the x of position 2 `8` is off the board: \
            fakeboard:8 is 8×8, coordinates 0..=7; no table that sgtab builds for this game \
            covers it"
    );
    let (r, _) = run_value(&t, "1 2\n3");
    assert!(r.unwrap_err().contains("input ends where the y of position 2 was expected"));
    let mut out = Vec::new();
    let words = Words { first: "A", second: "B" };
    sum(
        &t,
        &words,
        Input::Stream(&mut "3\n2\n1 2 3 0\n1\n0 0\n0\n".as_bytes()),
        &mut out,
        &mut |_| panic!("no note"),
    )
    .unwrap();
    // 1^2 = 3, 3^0 = 3: XOR 0 → B; (0,0) → 0 → B; nothing → B.
    assert_eq!(String::from_utf8(out).unwrap(), "B\nB\nB\n");
    let mut out = Vec::new();
    sum(&t, &words, Input::Stream(&mut "1\n2\n1 2 3 1\n".as_bytes()), &mut out, &mut |_| {
        panic!("no note")
    })
    .unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), "A\n");
    let mut out = Vec::new();
    let e = sum(&t, &words, Input::Stream(&mut "1\n1\n1 9\n".as_bytes()), &mut out, &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 3, column 3") && e.contains("`9` is off the board"), "{e}");
}
