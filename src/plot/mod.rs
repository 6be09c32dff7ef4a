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

mod heat;
mod text;

use crate::games::Positions;
use crate::table::Table;
use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
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

/// Most blocks a side of an SVG heat map (one element a block), so that an SVG stays a few MB.
const SVG_BLOCKS: u64 = 256;

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
            None => FONT_PLACES
                .iter()
                .map(PathBuf::from)
                .find(|p| p.is_file())
                .or_else(fc_match)
                .ok_or_else(|| {
                "no TrueType font found for the plot's text (looked for DejaVu Sans and \
                    Liberation Sans, and asked fc-match); install one (apt-get install \
                    fonts-dejavu-core) or pass --font FILE.ttf"
                    .to_string()
            })?,
        };
        let bytes =
            read_font(&path).map_err(|e| format!("cannot read font {}: {e}", path.display()))?;
        // plotters keeps fonts for the life of the process; this happens once.
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        let not_a_font =
            || format!("{} is not a TrueType/OpenType font; pass --font FILE.ttf", path.display());
        register_font("sans-serif", FontStyle::Normal, bytes).map_err(|_| not_a_font())?;
        // The same font for the text a PNG lays out itself (text.rs).
        let _ = text::FACE.set(ab_glyph::FontRef::try_from_slice(bytes).map_err(|_| not_a_font())?);
        Ok(path)
    })
    .clone()
}

/// The largest font file read: the fonts sgtab looks for are under 1 MiB, and the largest
/// common ones (CJK) under 32 MiB.
pub const MAX_FONT_BYTES: u64 = 64 << 20;

/// Reads a font file through [`crate::output::read_small`]: not a regular file (a device such
/// as /dev/zero would grow without end, a FIFO would hang) or larger than [`MAX_FONT_BYTES`] is
/// refused.
fn read_font(path: &Path) -> std::io::Result<Vec<u8>> {
    crate::output::read_small(path, MAX_FONT_BYTES).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidData => std::io::Error::new(
            e.kind(),
            format!("it is larger than the {} MiB a font may be", MAX_FONT_BYTES >> 20),
        ),
        _ => e,
    })
}

/// The file `fc-match sans-serif` names, if fontconfig is there and names a TrueType file.
fn fc_match() -> Option<PathBuf> {
    let out = std::process::Command::new("fc-match")
        .args(["-f", "%{file}", "sans-serif"])
        .output()
        .ok()?;
    let path = PathBuf::from(String::from_utf8(out.stdout).ok()?);
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    (out.status.success() && (ext == "ttf" || ext == "otf") && path.is_file()).then_some(path)
}

/// What to draw of a table, and how.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Only the indexes A..=B of a heap game, or the rows A..=B of a heat map (x on a board, the
    /// row's high bits on a chess table, (p1, ..., p(k-1)) row-major on a k-D game).
    pub range: Option<(u64, u64)>,
    /// Draw g(n) − s·⌊(n − pre)/p⌋ past the pre-period of a rule with saltus s and period p, so
    /// that an arithmetic-periodic table shows its repeating shape.
    pub detrend: bool,
}

/// Smallest picture drawn: below this the text does not fit.
pub const MIN_SIZE: (u32, u32) = (300, 200);

/// Draws `table` as a picture of `size` pixels; returns the file's bytes. Call [`use_font`]
/// first.
pub fn plot(
    table: &Table,
    format: Format,
    size: (u32, u32),
    options: Options,
) -> Result<Vec<u8>, String> {
    let (w, h) = size;
    if !(MIN_SIZE.0..=16384).contains(&w) || !(MIN_SIZE.1..=16384).contains(&h) {
        return Err(format!(
            "picture size {w}x{h}: the width must be {} to 16384 pixels and the height {} to 16384",
            MIN_SIZE.0, MIN_SIZE.1
        ));
    }
    let plan = Plan::new(table, options)?;
    match format {
        Format::Svg => {
            let mut text = String::new();
            draw(&plan, SVGBackend::with_string(&mut text, size).into_drawing_area(), SVG_BLOCKS)?;
            Ok(text.into_bytes())
        }
        Format::Png => {
            let mut rgb = vec![0u8; w as usize * h as usize * 3];
            draw(
                &plan,
                text::Glyphs(BitMapBackend::with_buffer(&mut rgb, size)).into_drawing_area(),
                u64::MAX,
            )?;
            let mut file = Vec::new();
            let mut encoder = png::Encoder::new(&mut file, w, h);
            encoder.set_color(png::ColorType::Rgb);
            encoder.set_depth(png::BitDepth::Eight);
            encoder
                .write_header()
                .and_then(|mut writer| writer.write_image_data(&rgb))
                .map_err(|e| format!("cannot encode the PNG: {e}"))?;
            Ok(file)
        }
    }
}

/// A table and what of it to draw: the range of rows checked, the detrending rule.
struct Plan<'a> {
    table: &'a Table,
    /// Rows first..=last of the heat map (a heap game: heaps).
    first: u64,
    last: u64,
    /// The number of rows (heaps): a range short of it is named in the title.
    rows: u64,
    /// (pre, period, saltus) to take out past the pre-period.
    detrend: Option<(u64, u64, u64)>,
}

impl<'a> Plan<'a> {
    fn new(table: &'a Table, options: Options) -> Result<Plan<'a>, String> {
        let rows = match table.spec.positions() {
            Positions::Heap => table.values.len(),
            Positions::Row { width } => 1 << (width - width / 2),
            Positions::Board { n } => n,
            Positions::Grid(dims) => dims.len() / dims.sizes()[dims.axes() - 1],
        };
        let (first, last) = options.range.unwrap_or((0, rows - 1));
        if first > last || last >= rows {
            return Err(format!(
                "--range {first}..{last} is past {}: its plotted rows run from 0 to {}",
                table.spec,
                rows - 1
            ));
        }
        let detrend = match (options.detrend, table.rule, table.spec.positions()) {
            (false, _, _) => None,
            (true, Some(r), Positions::Heap) if r.saltus > 0 => Some((r.pre, r.period, r.saltus)),
            (true, _, _) => {
                return Err(format!(
                    "--detrend takes out a rule's saltus, and {} has none ({}); plot it without \
                        --detrend",
                    table.spec,
                    rule_text(table)
                ));
            }
        };
        Ok(Plan { table, first, last, rows, detrend })
    }

    /// The value drawn for heap n.
    fn value(&self, n: u64) -> f64 {
        let g = self.table.values.get(n) as f64;
        match self.detrend {
            Some((pre, period, saltus)) if n >= pre => g - (saltus * ((n - pre) / period)) as f64,
            _ => g,
        }
    }
}

fn rule_text(table: &Table) -> String {
    table.rule.map_or("no rule".to_string(), |r| r.to_string())
}

/// Draws `plan` on `area`; a heat map takes at most `blocks` blocks a side.
fn draw<DB: DrawingBackend>(
    plan: &Plan,
    area: DrawingArea<DB, Shift>,
    blocks: u64,
) -> Result<(), String> {
    area.fill(&WHITE).map_err(err)?;
    match plan.table.spec.positions() {
        Positions::Heap => heap(plan, area),
        Positions::Row { width } => {
            let lo = width / 2;
            let hi = width - lo;
            let labels = [
                [format!("high {hi} bits of the row"), format!("high {hi} bits")],
                [format!("low {lo} bits (bit 0: the rightmost cell)"), format!("low {lo} bits")],
            ];
            heat::heat_map(plan, area, 1 << lo, labels, blocks)
        }
        Positions::Board { n } => heat::heat_map(
            plan,
            area,
            n,
            [["x".into(), "x".into()], ["y".into(), "y".into()]],
            blocks,
        ),
        // The last axis across, the others (row-major) down.
        Positions::Grid(dims) => {
            let k = dims.axes();
            let across = dims.sizes()[k - 1];
            let down = if k == 2 {
                ["p1".to_string(), "p1".to_string()]
            } else {
                [format!("(p1..p{}) row-major", k - 1), format!("p1..p{}", k - 1)]
            };
            heat::heat_map(plan, area, across, [down, [format!("p{k}"), format!("p{k}")]], blocks)
        }
    }
}

fn err(e: impl std::fmt::Display) -> String {
    format!("cannot draw the plot: {e}")
}

/// Width of `text` in pixels at `size` (sans-serif: about 0.56 of the size a character).
fn text_width(text: &str, size: u32) -> u32 {
    (text.chars().count() as f64 * size as f64 * 0.56).ceil() as u32
}

/// The title, the largest of these that fits `width` pixels (the spec and the rule, then the
/// spec with a shorter rule, then the spec), and its font size (18 down to 11).
fn fit_title(titles: &[String], width: u32) -> (String, u32) {
    for t in titles {
        for size in (11..=18).rev() {
            if text_width(t, size) + 24 <= width {
                return (t.clone(), size);
            }
        }
    }
    let t = titles.last().cloned().unwrap_or_default();
    let keep = (width.saturating_sub(24) as f64 / (11.0 * 0.56)) as usize;
    (t.chars().take(keep.max(4)).collect(), 11)
}

/// The titles of a plan, longest first: `what` follows the longer ones, `brief` the shortest.
fn titles(plan: &Plan, what: &str, brief: &str) -> Vec<String> {
    let t = plan.table;
    let range = match (plan.first > 0 || plan.last + 1 < plan.rows, t.spec.positions()) {
        (false, _) => String::new(),
        (true, Positions::Heap) => format!(", n = {}..{}", plan.first, plan.last),
        (true, _) => format!(", rows {}..{}", plan.first, plan.last),
    };
    let spec = t.spec.to_string();
    let mut out = vec![format!("{spec}{range}: {}{what}", rule_text(t))];
    if let Some(r) = t.rule {
        out.push(format!(
            "{spec}: period {} from {}{}{what}",
            r.period,
            r.pre,
            if r.saltus > 0 { format!(", saltus {}", r.saltus) } else { String::new() }
        ));
    }
    out.push(format!("{spec}{what}"));
    out.push(format!("{spec}{brief}"));
    out
}

/// The font of axis labels and descriptions. Given, not left to plotters, whose default scales
/// with the drawing area and so leaves a narrow colour bar's labels two pixels high.
const LABELS: (&str, u32) = ("sans-serif", 12);

/// How many labels an axis spanning `span` takes, at most `most`: the labels are whole numbers,
/// so a short axis gets fewer, one a unit, and none repeats (`0 0 1 1 2`).
fn whole_labels(span: f64, most: u32) -> usize {
    (span.max(1.0).floor() as usize + 1).clamp(2, most as usize)
}

/// Label texts of an axis from 0 to `max`: their width in pixels at the label size.
fn label_room(max: f64) -> u32 {
    text_width(&format!("{max:.0}"), LABELS.1)
}

/// g(n) against n.
fn heap<DB: DrawingBackend>(plan: &Plan, area: DrawingArea<DB, Shift>) -> Result<(), String> {
    let (first, last) = (plan.first, plan.last);
    let (w, _) = area.dim_in_pixel();
    let (lo, hi) = (first..=last)
        .map(|n| plan.value(n))
        .fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let lo = lo.min(0.0);
    // Headroom above the data for the legend.
    let top = hi + (hi - lo + 1.0) * 0.35 + 1.0;
    let detrended = if plan.detrend.is_some() {
        " (detrended: g(n) - s*floor((n - pre)/p) past the pre-period)"
    } else {
        ""
    };
    let (title, size) = fit_title(
        &titles(plan, detrended, if plan.detrend.is_some() { ", detrended" } else { "" }),
        w,
    );
    // Room for the last x label, half of it past the axis's end.
    let right = 12 + label_room(last as f64) / 2;
    let mut chart = ChartBuilder::on(&area)
        .caption(title, ("sans-serif", size))
        .margin_top(8)
        .margin_left(8)
        .margin_bottom(8)
        .margin_right(right)
        .x_label_area_size(36)
        .y_label_area_size(16 + label_room(top).max(label_room(lo)))
        .build_cartesian_2d(first as f64..(last + 1) as f64, lo..top)
        .map_err(err)?;
    let ydesc = match (plan.detrend, area.dim_in_pixel().1 < 400) {
        (None, _) => "g(n)",
        (Some(_), true) => "g(n), detrended",
        (Some(_), false) => "g(n) - s*floor((n-pre)/p)",
    };
    chart
        .configure_mesh()
        .x_desc("n")
        .y_desc(ydesc)
        .x_labels(whole_labels((last + 1 - first) as f64, (w / 90).clamp(3, 12)))
        .y_labels(whole_labels(top - lo, 10))
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .label_style(LABELS)
        .axis_desc_style(LABELS)
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(err)?;

    let frame = Frame { plan, narrow: w < 640, lo, top };
    rule_marks(&frame, &mut chart)?;
    values(&frame, &mut chart)?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font(("sans-serif", if w < 500 { 10 } else { 12 }))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .draw()
        .map_err(err)?;
    area.present().map_err(err)
}

/// The chart of a heap game: n across, g(n) up.
type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// What a heap chart's series are drawn from: the plan, whether the picture is narrow (each
/// legend line then takes its short words, so that none is cut) and the value axis' range.
struct Frame<'p> {
    plan: &'p Plan<'p>,
    narrow: bool,
    lo: f64,
    top: f64,
}

/// The rule on a heap chart: its first period shaded, a red line where it starts.
fn rule_marks<DB: DrawingBackend>(frame: &Frame, chart: &mut Chart<DB>) -> Result<(), String> {
    let &Frame { plan, narrow, lo, top } = frame;
    let (first, last) = (plan.first, plan.last);
    let t = plan.table;
    if let Some(rule) = t.rule.filter(|r| r.pre + r.period > first && r.pre <= last) {
        let (pre, end) =
            ((rule.pre.max(first)) as f64, ((rule.pre + rule.period).min(last + 1)) as f64);
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(pre, lo), (end, top)],
                RGBColor(255, 214, 160).mix(0.6).filled(),
            )))
            .map_err(err)?
            .label(format!(
                "{}: {} values{}",
                if narrow { "period" } else { "the first period" },
                rule.period,
                match (rule.saltus, narrow) {
                    (0, _) => String::new(),
                    (s, true) => format!(", +{s} each"),
                    (s, false) => format!(", then +{s} each period"),
                }
            ))
            .legend(|(x, y)| {
                Rectangle::new([(x, y - 5), (x + 14, y + 5)], RGBColor(255, 214, 160).filled())
            });
        if rule.pre >= first {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(rule.pre as f64, lo), (rule.pre as f64, top)],
                    RED.stroke_width(1),
                )))
                .map_err(err)?
                .label(format!(
                    "{} from n = {}",
                    if narrow { "rule" } else { "the rule holds" },
                    rule.pre
                ))
                .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], RED));
        }
    }
    Ok(())
}

/// The values on a heap chart: a point each, or when the table is longer than twice the
/// chart's width in pixels, a pale bar per pixel column from its least to its largest value and
/// a dark one over the middle half of its values (where most lie).
fn values<DB: DrawingBackend>(frame: &Frame, chart: &mut Chart<DB>) -> Result<(), String> {
    let &Frame { plan, narrow, lo, top } = frame;
    let (first, last) = (plan.first, plan.last);
    let len = last - first + 1;
    let (px, _) = chart.plotting_area().dim_in_pixel();
    let columns = px.max(1) as u64;
    let colour = RGBColor(31, 90, 180);
    if len <= 2 * columns {
        let radius = if len * 4 <= columns { 3 } else { 2 };
        chart
            .draw_series(
                (first..=last)
                    .map(|n| Circle::new((n as f64, plan.value(n)), radius, colour.filled())),
            )
            .map_err(err)?
            .label(if narrow { "g(n)" } else { "g(n), one point a position" })
            .legend(move |(x, y)| Circle::new((x + 7, y), 3, colour.filled()));
    } else {
        // A pixel column covers several positions: a pale bar from the least to the largest of
        // its values, a dark one over the middle half of them (where most lie).
        let spans: Vec<(u64, u64)> = (0..columns)
            .map(|c| (first + c * len / columns, first + (c + 1) * len / columns))
            .filter(|(a, b)| a < b)
            .collect();
        let tick = (top - lo) / 300.0;
        let mut column = Vec::new();
        let mut middles = Vec::with_capacity(spans.len());
        let pale = chart
            .draw_series(spans.iter().map(|&(a, b)| {
                column.clear();
                column.extend((a..b).map(|n| plan.value(n)));
                column.sort_unstable_by(f64::total_cmp);
                let k = column.len();
                middles.push((a, b, column[k / 4], column[(3 * k / 4).min(k - 1)]));
                Rectangle::new(
                    [(a as f64, column[0]), (b as f64, column[k - 1] + tick)],
                    colour.mix(0.3).filled(),
                )
            }))
            .map_err(err)?;
        let per = group(len.div_ceil(columns));
        pale.label(if narrow {
            format!("{per} a column: least to largest")
        } else {
            format!("each pixel column holds {per} positions: pale, least to largest value")
        })
        .legend(move |(x, y)| {
            Rectangle::new([(x + 5, y - 5), (x + 9, y + 5)], colour.mix(0.3).filled())
        });
        chart
            .draw_series(middles.iter().map(|&(a, b, q1, q3)| {
                Rectangle::new([(a as f64, q1), (b as f64, q3 + tick)], colour.filled())
            }))
            .map_err(err)?
            .label(if narrow {
                "the middle half"
            } else {
                "dark: the middle half of the column's values"
            })
            .legend(move |(x, y)| {
                Rectangle::new([(x + 5, y - 5), (x + 9, y + 5)], colour.filled())
            });
    }
    Ok(())
}

/// `n` with thousands separated by spaces (`1 087`), for legends.
fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}
