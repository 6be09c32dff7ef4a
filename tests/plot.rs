//! `sgtab plot`: every committed table (and Kayles, with its rule) drawn as SVG and PNG; each
//! picture decodes, has the size asked for, and is not blank.

mod common;

use common::{run, sgtab, tables_dir, text};
use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    common::scratch("plot", name)
}

fn plot(table: &Path, out: &Path, size: &str) {
    let run =
        sgtab(&["plot", table.to_str().unwrap(), "-o", out.to_str().unwrap(), "--size", size]);
    assert!(run.status.success(), "{}", text(&run.stderr));
}

/// The PNG decodes to `w`×`h` RGB pixels with many colours (axes, text, data), not one.
fn check_png(file: &Path, w: u32, h: u32) {
    let decoder = png::Decoder::new(fs::File::open(file).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (w, h), "{}", file.display());
    let pixels = &buf[..info.buffer_size()];
    let colours: HashSet<&[u8]> = pixels.chunks(3).collect();
    assert!(colours.len() > 20, "{}: only {} colours", file.display(), colours.len());
    let white = pixels.chunks(3).filter(|p| *p == [255, 255, 255]).count();
    assert!(white < pixels.len() / 3 * 99 / 100, "{}: nearly all white", file.display());
}

/// The SVG parses as XML, says `w`×`h`, and draws data: filled shapes that are not white, and text.
fn check_svg(file: &Path, w: u32, h: u32) {
    let source = fs::read_to_string(file).unwrap();
    let doc = roxmltree::Document::parse(&source).unwrap();
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(root.attribute("width"), Some(w.to_string().as_str()));
    assert_eq!(root.attribute("height"), Some(h.to_string().as_str()));
    let shapes = root
        .descendants()
        .filter(|n| ["rect", "circle", "polyline"].contains(&n.tag_name().name()))
        .filter(|n| n.attribute("fill").is_some_and(|f| f != "#FFFFFF" && f != "none"))
        .count();
    assert!(shapes > 20, "{}: {shapes} data shapes", file.display());
    assert!(
        root.descendants().any(|n| n.tag_name().name() == "text"),
        "{}: no text",
        file.display()
    );
}

fn both(table: &Path, dir: &Path) {
    let stem = table.file_stem().unwrap().to_str().unwrap();
    let (svg, png) = (dir.join(format!("{stem}.svg")), dir.join(format!("{stem}.png")));
    plot(table, &svg, "900x500");
    check_svg(&svg, 900, 500);
    plot(table, &png, "640x480");
    check_png(&png, 640, 480);
}

#[test]
fn every_committed_table() {
    let dir = scratch("committed");
    let mut n = 0;
    for entry in fs::read_dir(tables_dir()).unwrap() {
        both(&entry.unwrap().path(), &dir);
        n += 1;
    }
    assert!(n >= 4);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_code_with_its_rule() {
    let dir = scratch("kayles");
    let run = sgtab(&["build", "0.77:300", "--out", dir.to_str().unwrap()]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    both(&dir.join("0.77-300.sgt"), &dir);
    let svg = fs::read_to_string(dir.join("0.77-300.svg")).unwrap();
    assert!(
        svg.contains("g(n+12) = g(n) for n &gt;= 71") || svg.contains("g(n+12) = g(n) for n >= 71"),
        "the title states the rule"
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_requests_get_one_line() {
    let dir = scratch("bad");
    let table = tables_dir().join("funny-32.sgt");
    let t = table.to_str().unwrap();
    let gif = dir.join("x.gif");
    for (args, needle) in [
        (vec!["plot", t, "-o", gif.to_str().unwrap()], "must end in .svg or .png"),
        (vec!["plot", t, "-o", "/nonexistent-dir/x.svg"], "cannot write /nonexistent-dir/x.svg"),
        (
            vec!["plot", t, "-o", "x.svg", "--size", "10x10"],
            "the width must be 300 to 16384 pixels and the height 200 to 16384",
        ),
        (vec!["plot", t, "-o", "x.svg", "--size", "299x200"], "the width must be 300"),
        (vec!["plot", t, "-o", "x.svg", "--range", "5..2"], "--range"),
        (vec!["plot", t, "-o", "x.svg", "--range", "0..99999"], "--range"),
        (vec!["plot", t, "-o", "x.svg", "--detrend"], "has none"),
        (
            vec!["plot", t, "-o", "x.svg", "--font", "/nonexistent.ttf"],
            "cannot read font /nonexistent.ttf",
        ),
        (vec!["plot", t, "-o", "x.svg", "--font", t], "is not a TrueType/OpenType font"),
    ] {
        let out = run(env!("CARGO_BIN_EXE_sgtab"), &args, b"");
        let err = text(&out.stderr);
        assert!(
            !out.status.success() && err.lines().count() == 1 && err.contains(needle),
            "{args:?}: {err}"
        );
    }
    assert!(!Path::new("x.svg").exists());
    fs::remove_dir_all(&dir).unwrap();
}

/// The SVG's text elements, in order.
fn svg_texts(file: &Path) -> Vec<String> {
    let source = fs::read_to_string(file).unwrap();
    let doc = roxmltree::Document::parse(&source).unwrap();
    doc.descendants()
        .filter(|n| n.tag_name().name() == "text")
        .map(|n| n.text().unwrap_or("").trim().to_string())
        .collect()
}

#[test]
fn detrend_and_range_show_in_the_title() {
    let dir = scratch("detrend");
    let run = sgtab(&["build", "4.[3]:2000", "--out", dir.to_str().unwrap()]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let table = dir.join("4._3_-2000.sgt");
    let svg = dir.join("d.svg");
    let args = |size: &str| {
        sgtab(&[
            "plot",
            table.to_str().unwrap(),
            "-o",
            svg.to_str().unwrap(),
            "--size",
            size,
            "--detrend",
            "--range",
            "0..200",
        ])
    };
    for size in ["1000x600", "300x200"] {
        let out = args(size);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let (w, h) = size.split_once('x').unwrap();
        check_svg(&svg, w.parse().unwrap(), h.parse().unwrap());
        let texts = svg_texts(&svg);
        assert!(
            texts[0].starts_with("4.[3]:2000") && texts[0].contains("detrended"),
            "{size}: title {:?}",
            texts[0]
        );
        // Detrended, every value lies in 0..=4: no y label past the headroom above it.
        let ys: Vec<f64> = texts.iter().filter_map(|t| t.parse().ok()).collect();
        assert!(ys.iter().all(|&y| y <= 200.0), "{ys:?}");
    }
    // The whole table's diagonal reaches 2000; the detrended one stays below 10.
    let out = sgtab(&["plot", table.to_str().unwrap(), "-o", svg.to_str().unwrap(), "--detrend"]);
    assert!(out.status.success());
    let source = fs::read_to_string(&svg).unwrap();
    assert!(
        source.contains("(detrended: g(n) - s*floor((n - pre)/p)"),
        "the long title states the formula"
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_heat_map_has_its_colour_bar() {
    let dir = scratch("colourbar");
    let svg = dir.join("q.svg");
    let table = tables_dir().join("chess-20.sgt");
    for size in ["1000x600", "300x200"] {
        let out =
            sgtab(&["plot", table.to_str().unwrap(), "-o", svg.to_str().unwrap(), "--size", size]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let source = fs::read_to_string(&svg).unwrap();
        let doc = roxmltree::Document::parse(&source).unwrap();
        // The bar: 128 thin cells at the right of the picture, one above the other, coloured
        // from blue at the bottom to red at the top.
        let width: f64 = size.split_once('x').unwrap().0.parse().unwrap();
        let bar: Vec<(f64, String)> = doc
            .descendants()
            .filter(|n| n.tag_name().name() == "rect")
            .filter(|n| {
                n.attribute("x")
                    .and_then(|x| x.parse::<f64>().ok())
                    .is_some_and(|x| x > width * 0.6)
            })
            .filter_map(|n| {
                Some((n.attribute("y")?.parse().ok()?, n.attribute("fill")?.to_string()))
            })
            .collect();
        assert!(bar.len() >= 128, "{size}: {} cells at the right", bar.len());
        // Its labels are readable: a real font size, and they start at 0.
        let labels: Vec<_> = doc
            .descendants()
            .filter(|n| n.tag_name().name() == "text")
            .filter(|n| {
                n.attribute("x")
                    .and_then(|x| x.parse::<f64>().ok())
                    .is_some_and(|x| x > width * 0.6)
            })
            .collect();
        assert!(
            labels.iter().any(|n| n.text().map(str::trim) == Some("0")),
            "{size}: no 0 on the colour bar"
        );
        assert!(
            labels.iter().all(|n| n
                .attribute("font-size")
                .and_then(|f| f.parse::<f64>().ok())
                .is_some_and(|f| f >= 9.0)),
            "{size}: colour-bar labels too small"
        );
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_short_axis_repeats_no_label() {
    let dir = scratch("labels");
    let svg = dir.join("r.svg");
    for table in ["chess-20.sgt", "lasker-1024.sgt"] {
        let t = tables_dir().join(table);
        let out =
            sgtab(&["plot", t.to_str().unwrap(), "-o", svg.to_str().unwrap(), "--range", "0..3"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let source = fs::read_to_string(&svg).unwrap();
        let doc = roxmltree::Document::parse(&source).unwrap();
        // The y labels (right-aligned at the left axis) and the x labels (centred below it).
        for anchor in ["end", "middle"] {
            let labels: Vec<&str> = doc
                .descendants()
                .filter(|n| {
                    n.tag_name().name() == "text" && n.attribute("text-anchor") == Some(anchor)
                })
                .filter_map(|n| n.text().map(str::trim))
                .filter(|t| t.parse::<f64>().is_ok())
                .collect();
            let unique: HashSet<&&str> = labels.iter().collect();
            assert_eq!(unique.len(), labels.len(), "{table}, {anchor}: {labels:?}");
        }
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// A decoded PNG: width, height and RGB bytes.
fn decode(file: &Path) -> (usize, usize, Vec<u8>) {
    let mut reader = png::Decoder::new(fs::File::open(file).unwrap()).read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    buf.truncate(info.buffer_size());
    (info.width as usize, info.height as usize, buf)
}

/// Whether an RGB pixel is a heat-map colour (saturated: text, axes and the page are grey).
fn vivid(p: &[u8]) -> bool {
    p.iter().max().unwrap() - p.iter().min().unwrap() > 100
}

/// The longest run of `true` in `flags`: (start, length).
fn longest_run(flags: &[bool]) -> (usize, usize) {
    let (mut best, mut start) = ((0, 0), None);
    for (i, &f) in flags.iter().chain([&false]).enumerate() {
        match (f, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                if i - s > best.1 {
                    best = (s, i - s);
                }
                start = None;
            }
            _ => {}
        }
    }
    best
}

/// The heat map of a PNG: its box of vivid pixels (left, top, width, height), the widest run of
/// vivid columns (the colour bar is narrower) and the longest run of vivid rows under it.
fn map_box(w: usize, h: usize, rgb: &[u8]) -> (usize, usize, usize, usize) {
    let px = |x: usize, y: usize| &rgb[3 * (y * w + x)..3 * (y * w + x) + 3];
    let cols: Vec<bool> =
        (0..w).map(|x| (0..h).filter(|&y| vivid(px(x, y))).count() >= 8).collect();
    let (left, width) = longest_run(&cols);
    let rows: Vec<bool> = (0..h)
        .map(|y| (left..left + width).filter(|&x| vivid(px(x, y))).count() * 2 >= width)
        .collect();
    let (top, height) = longest_run(&rows);
    (left, top, width, height)
}

/// The smallest q ≥ 1 with line(i) == line(i + q) for every i + q < n.
fn least_period(n: usize, same: impl Fn(usize, usize) -> bool) -> usize {
    (1..n).find(|&q| (0..n - q).all(|i| same(i, i + q))).unwrap_or(n)
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The scale of one axis of `n` entries drawn over `m` pixels: (pixels an entry, entries a
/// pixel), one of them 1. k entries a pixel make ⌈n/k⌉ pixels; the smallest such k is taken.
fn axis_scale(n: usize, m: usize) -> (usize, usize) {
    if m.is_multiple_of(n) {
        return (m / n, 1);
    }
    let k = (2..=n)
        .find(|&k| n.div_ceil(k) == m)
        .unwrap_or_else(|| panic!("{m} pixels are no whole scale of {n} entries"));
    (1, k)
}

#[test]
fn a_heat_map_shows_the_period_of_its_board_and_no_other() {
    // A 300×400 board whose values repeat every 4 rows and every 4 columns, all 16 values of
    // a 4×4 tile different: the picture's rows and columns of pixels must repeat with that
    // period (4 entries: 4·s pixels at s pixels an entry, 4/gcd(4, k) pixels at k entries a
    // pixel) and with no shorter one, at every size.
    let dir = scratch("period");
    let values: String =
        (0..300 * 400).map(|i| format!("{}\n", (i / 400 % 4) * 4 + i % 400 % 4)).collect();
    fs::write(dir.join("v.txt"), values).unwrap();
    let run = sgtab(&[
        "import",
        dir.join("v.txt").to_str().unwrap(),
        "--name",
        "tile4",
        "--shape",
        "300x400",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let table = dir.join("tile4.sgt");
    let (png, svg) = (dir.join("m.png"), dir.join("m.svg"));
    let mut scales = HashSet::new();
    for size in ["700x450", "300x200", "500x300", "1000x600", "1600x1000", "1234x777"] {
        plot(&table, &png, size);
        let (w, h, rgb) = decode(&png);
        let (left, top, mw, mh) = map_box(w, h, &rgb);
        let ((sr, kr), (sc, kc)) = (axis_scale(300, mh), axis_scale(400, mw));
        // Square blocks on a board this close to square.
        assert!(sr == sc && kr == kc, "{size}: a {mw}x{mh} map");
        scales.insert((sr, kr));
        let px = |x: usize, y: usize| &rgb[3 * (y * w + x)..3 * (y * w + x) + 3];
        let row_same =
            |a: usize, b: usize| (left..left + mw).all(|x| px(x, top + a) == px(x, top + b));
        let col_same =
            |a: usize, b: usize| (top..top + mh).all(|y| px(left + a, y) == px(left + b, y));
        // A last row or column of pixels holding fewer entries is left out.
        let (rows, cols) = (
            least_period(if kr > 1 { 300 / kr } else { mh }, row_same),
            least_period(if kc > 1 { 400 / kc } else { mw }, col_same),
        );
        let want = (4 * sr / gcd(4, kr), 4 * sc / gcd(4, kc));
        assert_eq!(
            (rows, cols),
            want,
            "{size}: pixel rows repeat every {rows}, columns every {cols} ({sr} px an entry, {kr} \
                entries a pixel)"
        );

        // The SVG (at most 256 blocks a side): its title says how many entries a block holds and
        // how they are combined, and its blocks are that many.
        plot(&table, &svg, size);
        let title = svg_texts(&svg)[0].clone();
        let said: Vec<usize> = title
            .split(|c: char| !c.is_ascii_digit() && c != '×')
            .find(|t| t.contains('×'))
            .unwrap_or_else(|| panic!("{size}: {title}"))
            .split('×')
            .map(|n| n.parse().unwrap())
            .collect();
        assert!(title.contains("mean"), "{size}: {title}");
        let source = fs::read_to_string(&svg).unwrap();
        let doc = roxmltree::Document::parse(&source).unwrap();
        let pixels = doc
            .descendants()
            .filter(|n| {
                n.tag_name().name() == "rect"
                    && n.attribute("width") == Some("1")
                    && n.attribute("height") == Some("1")
            })
            .count();
        assert_eq!(
            pixels,
            300usize.div_ceil(said[0]) * 400usize.div_ceil(said[1]),
            "{size}: {title}"
        );
    }
    // Whole pixels an entry, and several entries a pixel, were both drawn.
    assert!(
        scales.iter().any(|&(s, _)| s > 1)
            && scales.iter().any(|&(_, k)| k > 1)
            && scales.contains(&(1, 1)),
        "{scales:?}"
    );
    fs::remove_dir_all(&dir).unwrap();
}
