use super::*;

/// Every number of `input`, read one at a time through a buffer of `cap` bytes.
fn all(input: &str, cap: usize) -> Result<Vec<u64>, String> {
    chunked(input.as_bytes(), cap, usize::MAX)
}

#[test]
fn separators_of_every_kind() {
    for cap in [16, 17, 23, 1024] {
        assert_eq!(all("1 22\t333\r\n4444\n\n 5", cap).unwrap(), vec![1, 22, 333, 4444, 5]);
        assert_eq!(all("", cap).unwrap(), Vec::<u64>::new());
        assert_eq!(all(" \r\n", cap).unwrap(), Vec::<u64>::new());
        assert_eq!(all("7", cap).unwrap(), vec![7]);
    }
}

#[test]
fn numbers_split_across_refills() {
    let text: String = (0..2000u64)
        .map(|i| format!("{}{}", i * 7919, if i % 3 == 0 { "\r\n" } else { " " }))
        .collect();
    let want: Vec<u64> = (0..2000u64).map(|i| i * 7919).collect();
    for cap in 16..40 {
        assert_eq!(all(&text, cap).unwrap(), want, "capacity {cap}");
    }
}

#[test]
fn a_token_is_skipped_within_a_bound() {
    // In a slice and in a stream whose buffer is refilled inside the token.
    let text = format!("{} 7", "x".repeat(5000));
    for capacity in [None, Some(64)] {
        let scan = |most: usize| {
            let mut s = match capacity {
                None => Scanner::new(text.as_bytes()),
                Some(c) => Scanner::with_capacity(text.as_bytes(), c),
            };
            let ended = s.skip_token_within(most).unwrap();
            (ended, s.offset())
        };
        assert_eq!(scan(5000), (true, 5000), "{capacity:?}");
        assert_eq!(scan(1 << 20), (true, 5000), "{capacity:?}");
        assert_eq!(scan(4999), (false, 4999), "{capacity:?}");
        assert_eq!(scan(100), (false, 100), "{capacity:?}");
    }
    let mut s = Scanner::new("abc".as_bytes());
    assert!(s.skip_token_within(10).unwrap(), "the input's end ends a token");
}

#[test]
fn ranges_are_exact() {
    let mut s = Scanner::new("2147483647 2147483648 0 00000000000000000000000000001".as_bytes());
    let max = (1u64 << 31) - 1;
    assert_eq!(s.next(1, max, &"heap").unwrap(), max);
    let e = s.next(1, max, &"heap").unwrap_err().to_string();
    assert_eq!(e, "line 1, column 12 (byte 11): heap `2147483648` is out of range 1 to 2147483647");
    assert!(s.next(1, max, &"heap").unwrap_err().to_string().contains("`0` is out of range"));
    assert_eq!(s.next(1, max, &"heap").unwrap(), 1);
    let mut s =
        Scanner::new("99999999999999999999 18446744073709551615 18446744073709551616".as_bytes());
    assert!(s.next(0, u64::MAX, &"n").unwrap_err().to_string().contains("out of range"));
    assert_eq!(s.next(0, u64::MAX, &"n").unwrap(), u64::MAX);
    // 20 digits that wrap around u64 must not pass as a small number.
    assert!(s.next(0, u64::MAX, &"n").unwrap_err().to_string().contains("out of range"));
}

#[test]
fn bad_tokens_are_named_with_their_position() {
    let mut s = Scanner::with_capacity("1\n 2 -3".as_bytes(), 16);
    s.next(0, 9, &"k").unwrap();
    s.next(0, 9, &"k").unwrap();
    let e = s.next(0, 9, &"a heap size").unwrap_err().to_string();
    assert_eq!(
        e,
        "line 2, column 4 (byte 5): expected a heap size (a whole number 0 to 9), found `-3`"
    );
    for (input, found) in [("+5", "`+5`"), ("12a", "`12a`"), ("x", "`x`"), ("1.5", "`1.5`")] {
        let e = Scanner::new(input.as_bytes()).next(0, 99, &"n").unwrap_err().to_string();
        assert!(e.contains(found), "{input}: {e}");
    }
    let mut s = Scanner::new("5".as_bytes());
    s.next(0, 9, &"k").unwrap();
    let e = s.next(0, 9, &"the heap count").unwrap_err().to_string();
    assert_eq!(e, "line 1, column 2 (byte 1): input ends where the heap count was expected");
}

#[test]
fn fast_and_slow_paths_agree() {
    // Long enough that most numbers take the fast path; every length 1..=20 and boundary.
    let mut text = String::new();
    let mut want = Vec::new();
    for len in 1..=20u32 {
        for v in [
            10u64.pow(len - 1),
            10u64.saturating_pow(len).saturating_sub(1),
            10u64.pow(len - 1).wrapping_mul(3).wrapping_add(7),
        ] {
            text += &format!("{v}{}", [" ", "\n", "\t", "\r\n"][(v % 4) as usize]);
            want.push(v);
        }
    }
    text += &"0".repeat(30);
    text += " 000000000000000000000000000000000000012 ";
    want.extend([0, 12]);
    for cap in [64, 65, 97, 1 << 16] {
        assert_eq!(all(&text, cap).unwrap(), want, "capacity {cap}");
    }
    let long = format!("1 {} 2", "9".repeat(40));
    assert!(all(&long, 16).unwrap_err().contains("`999999999999999999999999…` is out of range"));
    assert!(all(&"9".repeat(5000), 1 << 16).unwrap_err().contains("is out of range"));
}

#[test]
fn fold_agrees_with_one_at_a_time() {
    // Numbers of every length 1..=20 with separators from one byte to runs longer than a
    // block, so tokens straddle blocks and buffer refills in every way.
    let mut text = String::new();
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    for i in 0..3000u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let digits = 1 + (x % 20) as usize;
        let v = if digits >= 20 { x } else { x % 10u64.pow(digits as u32) };
        let sep = match i % 7 {
            0 => "\r\n".to_string(),
            1 => " ".repeat(1 + (x >> 40) as usize % 90),
            2 => "\t".to_string(),
            _ => " ".to_string(),
        };
        text += &format!("{v}{sep}");
    }
    let want = all(&text, 1 << 16).unwrap();
    for cap in [96, 97, 200, 4096, 1 << 18] {
        for split in [0usize, 1, 5, 1000, 2999, 3000] {
            let mut s = Scanner::with_capacity(text.as_bytes(), cap);
            let mut got = Vec::new();
            got = s
                .fold(split as u64, 0, u64::MAX, &"n", got, |mut v, x| {
                    v.push(x);
                    v
                })
                .unwrap();
            while let Some(v) = s.next_in(0, u64::MAX, &"n").unwrap() {
                got.push(v);
            }
            let first = got.iter().zip(&want).position(|(a, b)| a != b);
            assert!(
                got.len() == want.len() && first.is_none(),
                "capacity {cap}, fold of {split}: first difference at {first:?}"
            );
        }
    }
}

#[test]
fn fold_reports_errors_like_next() {
    let text = format!("{}7 12x 3", "1 ".repeat(100));
    let mut s = Scanner::new(text.as_bytes());
    let e = s.fold(103, 0, 99, &"heap", 0, |a, b| a + b).unwrap_err().to_string();
    assert_eq!(
        e,
        "line 1, column 203 (byte 202): expected heap (a whole number 0 to 99), found `12x`"
    );
    let text = format!("{}100 3", "1 ".repeat(100));
    let e = Scanner::new(text.as_bytes())
        .fold(102, 0, 99, &"heap", 0, |a, b| a + b)
        .unwrap_err()
        .to_string();
    assert_eq!(e, "line 1, column 201 (byte 200): heap `100` is out of range 0 to 99");
    let e = Scanner::new("1 2".as_bytes())
        .fold(3, 0, 99, &"heap", 0, |a, b| a + b)
        .unwrap_err()
        .to_string();
    assert_eq!(e, "line 1, column 4 (byte 3): input ends where heap was expected");
}

/// A reader that hands out at most `chunk` bytes a read, like a pipe fed in small writes.
struct Chunked<'a> {
    data: &'a [u8],
    chunk: usize,
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(self.chunk).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// Every number of `input`, read one at a time through a buffer of `cap` bytes from a source
/// that gives `chunk` bytes a read.
fn chunked(input: &[u8], cap: usize, chunk: usize) -> Result<Vec<u64>, String> {
    let mut s = Scanner::with_capacity(Chunked { data: input, chunk }, cap);
    let mut out = Vec::new();
    while let Some(v) = s.next_in(0, u64::MAX, &"number").map_err(|e| e.to_string())? {
        out.push(v);
    }
    Ok(out)
}

#[test]
fn long_tokens_get_one_verdict_wherever_they_fall() {
    let zeros = |n: usize| "0".repeat(n);
    let tokens = [
        zeros(5000) + "7",
        zeros(5000) + "x",
        zeros(300) + "18446744073709551615",
        zeros(300) + "18446744073709551616",
        "1".to_string() + &zeros(30),
        zeros(17),
        "12345678901234567\u{ff}".to_string(),
    ];
    for token in &tokens {
        let mut verdicts = Vec::new();
        for lead in [0usize, 1, 15, 16, 17, 63, 64, 65, 4095, 4097] {
            let input = format!("{}{token} 5\n", " ".repeat(lead));
            let want = chunked(input.as_bytes(), BUFFER, usize::MAX);
            for cap in [16, 17, 31, 64, 100, 4096, 4097, 1 << 13] {
                for chunk in [1, 3, 1000, usize::MAX] {
                    let got = chunked(input.as_bytes(), cap, chunk);
                    assert_eq!(
                        got,
                        want,
                        "token {:?}…, {lead} spaces before, capacity {cap}, reads of {chunk}",
                        &token[..token.len().min(12)]
                    );
                }
            }
            // Across offsets only the position may differ.
            verdicts.push(want.map_err(|e| {
                e.replace(&format!("line 1, column {} (byte {lead})", lead + 1), "AT")
            }));
        }
        assert!(verdicts.windows(2).all(|w| w[0] == w[1]), "{verdicts:?}");
    }
    assert_eq!(chunked(format!("{}7 5", zeros(5000)).as_bytes(), 16, 1), Ok(vec![7, 5]));
    let e = chunked(format!("1\n{}x", zeros(100)).as_bytes(), 16, 1).unwrap_err();
    assert_eq!(
        e,
        "line 2, column 1 (byte 2): expected number (a whole number 0 to 18446744073709551615), \
            found `000000000000000000000000…`"
    );
    let e = chunked(b"1 \xff\xfeab", 16, 1).unwrap_err();
    assert_eq!(
        e,
        "line 1, column 3 (byte 2): expected number (a whole number 0 to 18446744073709551615), \
            found `\\xff\\xfeab`"
    );
}

#[test]
fn positions_survive_refills() {
    let text = "1\n".repeat(100) + "  x";
    let mut s = Scanner::with_capacity(text.as_bytes(), 16);
    for _ in 0..100 {
        s.next(0, 9, &"n").unwrap();
    }
    let e = s.next(0, 9, &"n").unwrap_err().to_string();
    assert!(e.starts_with("line 101, column 3 (byte 202)"), "{e}");
}
