use super::*;
use crate::judge::input::is_space;

#[test]
fn swar_finds_the_first_non_digit() {
    for len in 1..=8usize {
        for v in [0u64, 1, 7, 42, 1234, 99_999_999, 10_000_000, 31_415_926, 2_147_483] {
            let text = format!("{:0len$}", v % 10u64.pow(len as u32));
            let mut bytes = [b'x'; 8];
            bytes[..len].copy_from_slice(text.as_bytes());
            let x = u64::from_le_bytes(bytes);
            assert_eq!(
                swar::non_digits(x).trailing_zeros() as usize / 8,
                if len == 8 { 8 } else { len }
            );
        }
    }
    for b in 0..=255u8 {
        let x = u64::from_le_bytes([b, b'1', b'2', b'3', b'4', b'5', b'6', b'7']);
        assert_eq!(swar::non_digits(x) & 0x80 != 0, !b.is_ascii_digit(), "byte {b}");
    }
}

#[test]
fn digits_before_converts_every_length() {
    for len in 1..=16usize {
        for v in [
            0u64,
            1,
            7,
            42,
            1234,
            99_999_999,
            100_000_000,
            2_147_483_647,
            9_999_999_999_999_999,
            1_234_567_890_123_456,
        ] {
            let v = v % 10u64.pow(len as u32);
            // Digits, and bytes of every kind before them: other digits, space, 0xFF.
            for fill in [b'9', b' ', b'0', 0xFF] {
                let mut bytes = [fill; 16];
                bytes[16 - len..].copy_from_slice(format!("{v:0len$}").as_bytes());
                assert_eq!(digits_before(&bytes, len), v, "{len} digits of {v}, fill {fill}");
            }
        }
    }
}

/// The kernels this CPU runs.
fn kernels() -> Vec<NumberKernel> {
    let all = [NumberKernel::Portable, NumberKernel::Avx2]
        .into_iter()
        .filter(|k| k.available())
        .collect::<Vec<_>>();
    if all.len() < 2 {
        eprintln!("note: this CPU has no AVX2: only the portable kernel is tested");
    }
    all
}

/// A plain reading of `text` from byte `pos`: each token is a number in `min..=max` (any
/// count of leading zeros) or the reading stops there. Returns the values and where it
/// stopped (the bad token's start, or the end).
fn plain(text: &[u8], mut pos: usize, count: u64, min: u64, max: u64) -> (Vec<u64>, usize) {
    let mut got = Vec::new();
    while (got.len() as u64) < count {
        while pos < text.len() && is_space(text[pos]) {
            pos += 1;
        }
        let start = pos;
        while pos < text.len() && !is_space(text[pos]) {
            pos += 1;
        }
        let token = &text[start..pos];
        let value = token.iter().try_fold(0u64, |v, &b| {
            b.is_ascii_digit().then(|| v.checked_mul(10)?.checked_add((b - b'0') as u64)).flatten()
        });
        match value {
            Some(v) if !token.is_empty() && (min..=max).contains(&v) => got.push(v),
            _ => return (got, start),
        }
    }
    (got, pos)
}

/// Reads as `plain` does, with `kernel` taking every run it can and `plain` one token
/// where the kernel stops; checks each kernel stop on the way (a prefix of the tokens, at
/// whitespace or a token's start).
fn driven(kernel: NumberKernel, text: &[u8], count: u64, min: u64, max: u64) -> (Vec<u64>, usize) {
    let (mut got, mut pos) = (Vec::new(), 16);
    let mut left = count;
    while left > 0 {
        let before = (pos, left, got.len());
        (got, left, pos) = blocks_on(
            kernel,
            Run { window: text, pos, left, min, max },
            got,
            &mut |mut v: Vec<u64>, x| {
                v.push(x);
                v
            },
        );
        assert_eq!(
            left,
            count - got.len() as u64,
            "{kernel:?}: the count left does not match the numbers folded"
        );
        assert!(pos >= before.0 && pos <= text.len(), "{kernel:?}: went back or past the end");
        let between = pos == text.len() || is_space(text[pos]) || is_space(text[pos - 1]);
        assert!(between, "{kernel:?}: stopped inside a token at byte {pos}");
        let (one, next) = plain(text, pos, left.min(1), min, max);
        if left == 0 || one.is_empty() {
            return (got, if left == 0 { pos } else { next });
        }
        got.extend(one);
        (left, pos) = (left - 1, next);
    }
    (got, pos)
}

fn random_text(seed: u64, tokens: usize, bad: bool) -> Vec<u8> {
    let mut x = seed | 1;
    let mut rng = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut text = " ".repeat(16).into_bytes();
    for _ in 0..tokens {
        let r = rng();
        let len = 1 + (r % 22) as usize; // 17 to 22 bytes: past the fast paths
        for i in 0..len {
            text.push(if i < (r >> 8) as usize % 4 && r % 3 == 0 {
                b'0'
            } else {
                b'0' + (rng() % 10) as u8
            });
        }
        if bad && rng() % 50 == 0 {
            let at = text.len() - 1 - (rng() as usize % len);
            text[at] = [b'x', b'-', 0x80, 0, b'+', b'/', b':'][rng() as usize % 7];
        }
        let sep: &[u8] = [&b" "[..], b"\n", b"\t", b"\r\n", b"\x0b\x0c", b"  "][rng() as usize % 6];
        text.extend_from_slice(sep);
        if rng() % 40 == 0 {
            text.extend(std::iter::repeat_n(b' ', (rng() % 150) as usize));
        }
    }
    text
}

#[test]
fn kernels_agree_with_a_plain_reading() {
    for seed in 1..60u64 {
        let bad = seed % 3 == 0;
        let text = random_text(seed * 0x9E37_79B9, 700, bad);
        for (min, max) in
            [(0, u64::MAX), (0, 999_999_999), (1, (1 << 31) - 1), (10, 10_000), (5, 4)]
        {
            for count in [64, 65, 100, 333, 699, 700, 5000] {
                let want = plain(&text, 16, count, min, max);
                for kernel in kernels() {
                    assert_eq!(
                        driven(kernel, &text, count, min, max),
                        want,
                        "seed {seed}, {kernel:?}, {min}..={max}, count {count}"
                    );
                }
            }
        }
    }
}

#[test]
fn two_at_a_time_converts_every_length() {
    #[cfg(target_arch = "x86_64")]
    if NumberKernel::Avx2.available() {
        let mut x = 0x1234_5678_9ABC_DEF1u64;
        for round in 0..400 {
            let mut bytes = [[0u8; 16]; 2];
            for b in bytes.iter_mut().flatten() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Digits mostly, and any byte before a token's digits (they are cleared).
                *b = if round % 5 == 0 { x as u8 } else { b'0' + (x % 10) as u8 };
            }
            for l0 in 1..=16 {
                for l1 in 1..=16 {
                    let (mut a, mut b) = (bytes[0], bytes[1]);
                    a[16 - l0..].iter_mut().for_each(|d| *d = b'0' + *d % 10);
                    b[16 - l1..].iter_mut().for_each(|d| *d = b'0' + *d % 10);
                    let want = |t: &[u8; 16], l: usize| {
                        t[16 - l..].iter().fold(0u64, |v, &d| v * 10 + (d - b'0') as u64)
                    };
                    // SAFETY: the CPU has AVX2 (checked above).
                    let got = unsafe { avx2::two_for_tests(&a, l0, &b, l1) };
                    assert_eq!(got, (want(&a, l0), want(&b, l1)), "lengths {l0} and {l1}");
                    assert_eq!(digits_before(&a, l0), want(&a, l0));
                }
            }
        }
    }
}
