//! `sgtab plot`: a table as a picture (SVG or PNG), drawn with `plotters`.
//!
//! A heap game is g(n) against n: points, the pre-period ended by a line and its first period
//! shaded. A table wider than the plot is reduced per pixel column to the column's minimum and
//! maximum (a bar between them), so the drawing costs one pass over the values and one element
//! a pixel column whatever the table's length. A row or board game is a heat map: index
//! r·cols + c at row r (down), column c (across); a chess row's high bits go down, its low bits
//! across, each cell of the picture the mean value of the block of rows it covers.
//!
//! Text needs a TrueType font, read from a file: `--font`, `$SGTAB_FONT`, the usual places of
//! DejaVu Sans or Liberation Sans, or what `fc-match sans-serif` names. Only `sgtab` calls this
//! module, so `sgq` links none of it.

use crate::games::Positions;
use crate::table::Table;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::register_font;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Picture formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Svg,
    Png,
}

impl Format {
    /// The format a file name asks for, by its extension.
    pub fn from_path(path: &Path) -> Result<Format, String> {
        match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("svg") => Ok(Format::Svg),
            Some("png") => Ok(Format::Png),
            _ => Err(format!("{}: the picture's name must end in .svg or .png", path.display())),
        }
    }
}

/// Largest heat map grid side (cells), so that an SVG stays a few MB.
const MAX_CELLS: u64 = 256;

/// Where fonts usually are (Debian/Ubuntu, Fedora, Arch, macOS, Windows).
const FONT_PLACES: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation-sans/LiberationSans-Regular.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
    "/Library/Fonts/Arial.ttf",
    "C:\\Windows\\Fonts\\arial.ttf",
];

static FONT: OnceLock<Result<PathBuf, String>> = OnceLock::new();

/// Finds a TrueType font and registers it as the plots' sans-serif (once per process): `flag`,
/// else `$SGTAB_FONT`, else the usual places, else `fc-match sans-serif`.
pub fn use_font(flag: Option<&Path>) -> Result<PathBuf, String> {
    FONT.get_or_init(|| {
        let env = std::env::var_os("SGTAB_FONT").filter(|v| !v.is_empty()).map(PathBuf::from);
        let path = match flag.map(Path::to_path_buf).or(env) {
            Some(p) => p,
            None => FONT_PLACES.iter().map(PathBuf::from).find(|p| p.is_file()).or_else(fc_match).ok_or_else(|| {
                "no TrueType font found for the plot's text (looked for DejaVu Sans and Liberation Sans, and asked \
                 fc-match); install one (apt-get install fonts-dejavu-core) or pass --font FILE.ttf"
                    .to_string()
            })?,
        };
        let bytes = read_font(&path).map_err(|e| format!("cannot read font {}: {e}", path.display()))?;
        // plotters keeps fonts for the life of the process; this happens once.
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        register_font("sans-serif", FontStyle::Normal, bytes)
            .map_err(|_| format!("{} is not a TrueType/OpenType font; pass --font FILE.ttf", path.display()))?;
        Ok(path)
    })
    .clone()
}

/// The largest font file read: the fonts sgtab looks for are under 1 MiB, and the largest
/// common ones (CJK) under 32 MiB.
pub const MAX_FONT_BYTES: u64 = 64 << 20;

/// Reads a font file, refusing what is not a regular file (a device such as /dev/zero would
/// grow without end, a FIFO would hang) or is larger than [`MAX_FONT_BYTES`]. The open never
/// blocks (`O_NONBLOCK`: a FIFO with no writer would otherwise hang it).
fn read_font(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::{Error, ErrorKind, Read};
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        let kind = if meta.is_dir() { "a directory" } else { "not a regular file (a FIFO, socket or device)" };
        return Err(Error::new(ErrorKind::InvalidInput, format!("it is {kind}, not a font file")));
    }
    let too_big = || Error::new(ErrorKind::InvalidInput, format!("it is larger than the {} MiB a font may be", MAX_FONT_BYTES >> 20));
    if meta.len() > MAX_FONT_BYTES {
        return Err(too_big());
    }
    // The bound holds even for a file that grows while it is read.
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_FONT_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FONT_BYTES {
        return Err(too_big());
    }
    Ok(bytes)
}

/// The file `fc-match sans-serif` names, if fontconfig is there and names a TrueType file.
fn fc_match() -> Option<PathBuf> {
    let out = std::process::Command::new("fc-match").args(["-f", "%{file}", "sans-serif"]).output().ok()?;
    let path = PathBuf::from(String::from_utf8(out.stdout).ok()?);
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    (out.status.success() && (ext == "ttf" || ext == "otf") && path.is_file()).then_some(path)
}

/// Draws `table` as a picture of `size` pixels; returns the file's bytes. Call [`use_font`]
/// first.
pub fn plot(table: &Table, format: Format, size: (u32, u32)) -> Result<Vec<u8>, String> {
    let (w, h) = size;
    if !(64..=16384).contains(&w) || !(64..=16384).contains(&h) {
        return Err(format!("picture size {w}x{h}: each side must be 64 to 16384 pixels"));
    }
    match format {
        Format::Svg => {
            let mut text = String::new();
            draw(table, SVGBackend::with_string(&mut text, size).into_drawing_area())?;
            Ok(text.into_bytes())
        }
        Format::Png => {
            let mut rgb = vec![0u8; w as usize * h as usize * 3];
            draw(table, BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area())?;
            let mut file = Vec::new();
            let mut encoder = png::Encoder::new(&mut file, w, h);
            encoder.set_color(png::ColorType::Rgb);
            encoder.set_depth(png::BitDepth::Eight);
            encoder.write_header().and_then(|mut writer| writer.write_image_data(&rgb)).map_err(|e| format!("cannot encode the PNG: {e}"))?;
            Ok(file)
        }
    }
}

fn draw<DB: DrawingBackend>(table: &Table, area: DrawingArea<DB, Shift>) -> Result<(), String> {
    match table.spec.positions() {
        Positions::Heap => heap(table, area),
        Positions::Row { width } => {
            let lo = width / 2;
            let labels = (format!("high {} bits of the row", width - lo), format!("low {lo} bits (bit 0: the rightmost cell)"));
            grid(table, area, 1 << (width - lo), 1 << lo, labels)
        }
        Positions::Board { n } => grid(table, area, n, n, ("x".into(), "y".into())),
        // The last axis across, the others (row-major) down.
        Positions::Grid(dims) => {
            let k = dims.axes();
            let across = dims.sizes()[k - 1];
            let down = if k == 2 { "p1".to_string() } else { format!("(p1..p{}) row-major", k - 1) };
            grid(table, area, dims.len() / across, across, (down, format!("p{k}")))
        }
    }
}

/// The title: the canonical spec and the rule.
fn title(table: &Table) -> String {
    match table.rule {
        Some(rule) => format!("{}: {rule}", table.spec),
        None => format!("{}: no rule", table.spec),
    }
}

fn err(e: impl std::fmt::Display) -> String {
    format!("cannot draw the plot: {e}")
}

/// g(n) against n.
fn heap<DB: DrawingBackend>(table: &Table, area: DrawingArea<DB, Shift>) -> Result<(), String> {
    let values = &table.values;
    let len = values.len();
    // Headroom above the data for the legend.
    let top = (values.max() as f64 + 1.0) * 1.3;
    area.fill(&WHITE).map_err(err)?;
    let mut chart = ChartBuilder::on(&area)
        .caption(title(table), ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(0f64..len as f64, 0f64..top)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("n")
        .y_desc("g(n)")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(err)?;

    if let Some(rule) = table.rule {
        let (pre, end) = (rule.pre as f64, (rule.pre + rule.period) as f64);
        chart
            .draw_series(std::iter::once(Rectangle::new([(pre, 0.0), (end, top)], RGBColor(255, 214, 160).mix(0.6).filled())))
            .map_err(err)?
            .label(format!("one period (p = {}, saltus {})", rule.period, rule.saltus))
            .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], RGBColor(255, 214, 160).filled()));
        chart
            .draw_series(std::iter::once(PathElement::new(vec![(pre, 0.0), (pre, top)], RED.stroke_width(1))))
            .map_err(err)?
            .label(format!("end of the pre-period (n = {})", rule.pre))
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], RED));
    }

    let (px, _) = chart.plotting_area().dim_in_pixel();
    let columns = px.max(1) as u64;
    let colour = RGBColor(31, 90, 180);
    if len <= 2 * columns {
        let radius = if len * 4 <= columns { 3 } else { 2 };
        chart
            .draw_series((0..len).map(|n| Circle::new((n as f64, values.get(n) as f64), radius, colour.filled())))
            .map_err(err)?
            .label("g(n)")
            .legend(move |(x, y)| Circle::new((x + 7, y), 3, colour.filled()));
    } else {
        // One bar a pixel column, from the least to the largest value in it.
        let bars = (0..columns).filter_map(|c| {
            let (a, b) = (c * len / columns, (c + 1) * len / columns);
            let (lo, hi) = (a..b).map(|n| values.get(n)).fold((u32::MAX, 0), |(lo, hi), v| (lo.min(v), hi.max(v)));
            (a < b).then(|| Rectangle::new([(a as f64, lo as f64), (b as f64, hi as f64 + top / 400.0)], colour.filled()))
        });
        chart
            .draw_series(bars)
            .map_err(err)?
            .label(format!("g(n): least to largest of {:.1} values a pixel", len as f64 / columns as f64))
            .legend(move |(x, y)| Rectangle::new([(x + 5, y - 5), (x + 9, y + 5)], colour.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .draw()
        .map_err(err)?;
    area.present().map_err(err)
}

/// A heat map of `rows` × `cols` entries, index r·cols + c, reduced to at most MAX_CELLS a side.
fn grid<DB: DrawingBackend>(table: &Table, area: DrawingArea<DB, Shift>, rows: u64, cols: u64, (down, across): (String, String)) -> Result<(), String> {
    let values = &table.values;
    let (gr, gc) = (rows.min(MAX_CELLS), cols.min(MAX_CELLS));
    // The mean value of each cell, row by row.
    let means: Vec<f64> = (0..gr * gc)
        .map(|k| {
            let (i, j) = (k / gc, k % gc);
            let (r0, r1) = (i * rows / gr, (i + 1) * rows / gr);
            let (c0, c1) = (j * cols / gc, (j + 1) * cols / gc);
            let sum: u64 = (r0..r1).flat_map(|r| (c0..c1).map(move |c| r * cols + c)).map(|n| values.get(n) as u64).sum();
            sum as f64 / ((r1 - r0) * (c1 - c0)).max(1) as f64
        })
        .collect();
    let max = means.iter().copied().fold(0.0, f64::max);
    area.fill(&WHITE).map_err(err)?;
    let per_cell = (rows / gr) * (cols / gc);
    let caption = format!("{} (colour: mean g of {per_cell} rows a cell, 0 blue to {max:.1} red)", title(table));
    let mut chart = ChartBuilder::on(&area)
        .caption(caption, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(64)
        .build_cartesian_2d(0f64..cols as f64, rows as f64..0f64)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc(across)
        .y_desc(down)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .draw()
        .map_err(err)?;
    let cells = means.iter().enumerate().map(|(k, &mean)| {
        let (i, j) = (k as u64 / gc, k as u64 % gc);
        let (r0, r1) = (i * rows / gr, (i + 1) * rows / gr);
        let (c0, c1) = (j * cols / gc, (j + 1) * cols / gc);
        // Blue (hue 2/3) for 0 through green to red (hue 0) for the largest mean.
        let colour = HSLColor(2.0 / 3.0 * (1.0 - mean / max.max(f64::MIN_POSITIVE)), 0.85, 0.5);
        Rectangle::new([(c0 as f64, r0 as f64), (c1 as f64, r1 as f64)], colour.filled())
    });
    chart.draw_series(cells).map_err(err)?;
    area.present().map_err(err)
}
