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
    let run = sgtab(&["plot", table.to_str().unwrap(), "-o", out.to_str().unwrap(), "--size", size]);
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
    assert!(root.descendants().any(|n| n.tag_name().name() == "text"), "{}: no text", file.display());
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
    assert!(svg.contains("g(n+12) = g(n) for n &gt;= 71") || svg.contains("g(n+12) = g(n) for n >= 71"), "the title states the rule");
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
        (vec!["plot", t, "-o", "x.svg", "--size", "10x10"], "each side must be 64 to 16384"),
        (vec!["plot", t, "-o", "x.svg", "--font", "/nonexistent.ttf"], "cannot read font /nonexistent.ttf"),
        (vec!["plot", t, "-o", "x.svg", "--font", t], "is not a TrueType/OpenType font"),
    ] {
        let out = run(env!("CARGO_BIN_EXE_sgtab"), &args, b"");
        let err = text(&out.stderr);
        assert!(!out.status.success() && err.lines().count() == 1 && err.contains(needle), "{args:?}: {err}");
    }
    assert!(!Path::new("x.svg").exists());
    fs::remove_dir_all(&dir).unwrap();
}
