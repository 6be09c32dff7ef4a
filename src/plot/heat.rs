//! The heat map of a row or board game: entry r·cols + c at row r (down), column c (across).
//!
//! A heat map must not show a pattern its table lacks, so every entry, or every block of
//! entries, is a whole number of pixels. Each axis is scaled by a whole number: an entry drawn
//! s pixels wide when the axis fits the picture, or k entries to a pixel when it does not, and
//! then the title says how many entries a pixel holds and that it shows their mean. A board
//! whose values repeat every p rows then shows rows of pixels that repeat every s·p pixels (or
//! every p / gcd(p, k)), never a beat between the table's rows and a grid of pixels that does
//! not divide them. The picture is sized to the table: what the chosen scale leaves of the
//! asked size is margin.

use super::{LABELS, Plan, err, fit_title, group, label_room, text_width, titles, whole_labels};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// How one axis of the table maps to pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scale {
    /// Each entry `s` pixels.
    Up(u64),
    /// `k` entries (k ≥ 2) to a pixel.
    Down(u64),
}

impl Scale {
    /// The largest scale that fits `n` entries into `room` pixels and `cap` blocks.
    fn fit(n: u64, room: u64, cap: u64) -> Scale {
        match (room / n, n.div_ceil(room).max(n.div_ceil(cap))) {
            (s, 1) if s >= 1 => Scale::Up(s),
            (_, k) => Scale::Down(k.max(2)),
        }
    }

    /// Entries a block holds (a block: one entry, or the entries of one pixel).
    fn entries(self) -> u64 {
        match self {
            Scale::Up(_) => 1,
            Scale::Down(k) => k,
        }
    }

    /// Pixels a block spans.
    fn pixels(self) -> u64 {
        match self {
            Scale::Up(s) => s,
            Scale::Down(_) => 1,
        }
    }

    /// Blocks that `n` entries make (the last may hold fewer entries).
    fn blocks(self, n: u64) -> u64 {
        n.div_ceil(self.entries())
    }
}

/// The scales of the rows (`rows` entries into `room_h` pixels) and columns (`cols` into
/// `room_w`), at most `cap` blocks a side. A table within 4:1 of square keeps square blocks,
/// so that a board looks like one (the finer scale the picture allows for both); a longer one
/// scales each axis on its own. Whole-numbered either way.
fn scales(rows: u64, cols: u64, (room_w, room_h): (u64, u64), cap: u64) -> (Scale, Scale) {
    let (down, across) = (Scale::fit(rows, room_h, cap), Scale::fit(cols, room_w, cap));
    if rows > 4 * cols || cols > 4 * rows {
        return (down, across);
    }
    let both = match (down, across) {
        (Scale::Up(a), Scale::Up(b)) => Scale::Up(a.min(b)),
        (a, b) => Scale::Down(a.entries().max(b.entries())),
    };
    (both, both)
}

/// The mean value of each block, row by row: one pass over the rows in order.
fn block_means(plan: &Plan, cols: u64, (down, across): (Scale, Scale)) -> Vec<f64> {
    let values = &plan.table.values;
    let (first, rows) = (plan.first, plan.last - plan.first + 1);
    let (br, bc) = (down.blocks(rows), across.blocks(cols));
    let (kr, kc) = (down.entries(), across.entries());
    let mut means = Vec::with_capacity((br * bc) as usize);
    let mut sums = vec![0u64; bc as usize];
    for i in 0..br {
        sums.fill(0);
        let (r0, r1) = (first + i * kr, (first + (i + 1) * kr).min(first + rows));
        for r in r0..r1 {
            for c in 0..cols {
                sums[(c / kc) as usize] += values.get(r * cols + c) as u64;
            }
        }
        means.extend(sums.iter().enumerate().map(|(j, &s)| {
            let width = ((j as u64 + 1) * kc).min(cols) - j as u64 * kc;
            s as f64 / ((r1 - r0) * width) as f64
        }));
    }
    means
}

/// The colour of a value `v` of 0..=max: blue (hue 2/3) for 0 through green to red for the largest.
fn heat(v: f64, max: f64) -> HSLColor {
    HSLColor(2.0 / 3.0 * (1.0 - v / max.max(f64::MIN_POSITIVE)), 0.85, 0.5)
}

/// Pixels around the map: the margin at the picture's edges, the label areas below and at the
/// left, and the gap before the colour bar and its own width (bar and labels).
const EDGE: u32 = 8;
const BELOW: u32 = 36;
const GAP: u32 = 16;
const BAR: u32 = 24;

/// A heat map: rows `plan.first..=plan.last` of `cols` entries each, at most `cap` blocks a
/// side (an SVG holds one element a block), and a colour bar at the right that says which
/// colour is which value. The axes are described in long words (down, across), or short where
/// the long do not fit beside a small map.
pub(super) fn heat_map<DB: DrawingBackend>(
    plan: &Plan,
    area: DrawingArea<DB, Shift>,
    cols: u64,
    [down, across]: [[String; 2]; 2],
    cap: u64,
) -> Result<(), String> {
    let (w, h) = area.dim_in_pixel();
    let (first, rows) = (plan.first, plan.last - plan.first + 1);
    // The labels' room, from the largest label each may hold.
    let max_value = plan.table.values.max() as f64;
    let left = 28 + label_room((first + rows) as f64);
    let right = EDGE + label_room(cols as f64) / 2;
    let bar_labels = label_room(max_value) + 24;
    // Room for the title at its largest size.
    let top = EDGE + 18 + 12;
    let room_w = w.saturating_sub(EDGE + left + right + GAP + BAR + bar_labels + EDGE).max(16);
    let room_h = h.saturating_sub(top + BELOW + EDGE).max(16);
    let (sr, sc) = scales(rows, cols, (room_w as u64, room_h as u64), cap);
    let (br, bc) = (sr.blocks(rows), sc.blocks(cols));
    let (map_w, map_h) = ((bc * sc.pixels()) as u32, (br * sr.pixels()) as u32);
    let means = block_means(plan, cols, (sr, sc));
    let max = means.iter().copied().fold(0.0, f64::max);

    // A pixel of several entries is said in every title, the shortest too.
    let (what, brief) = match (sr.entries(), sc.entries()) {
        (1, 1) => (String::new(), String::new()),
        (kr, kc) => (
            format!(" (a pixel: the mean of {}×{} entries)", group(kr), group(kc)),
            format!(", {}×{} a pixel (mean)", group(kr), group(kc)),
        ),
    };
    let (title, size) = fit_title(&titles(plan, &what, &brief), w);
    // The title, the map and its bar, centred in the picture.
    let bar_h = map_h.max(120);
    let (whole_w, whole_h) =
        (left + map_w + right + GAP + BAR + bar_labels, top + (map_h + BELOW).max(bar_h) + EDGE);
    let (x0, y0) = (w.saturating_sub(whole_w) / 2, h.saturating_sub(whole_h) / 2);
    let title_style =
        TextStyle::from(("sans-serif", size).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
    area.draw_text(&title, &title_style, (w as i32 / 2, (y0 + EDGE) as i32)).map_err(err)?;
    let chart_area = area.clone().shrink((x0, y0 + top), (left + map_w + right, map_h + BELOW));
    // The axes span whole blocks: a last block holding fewer entries still spans its pixels.
    let (x_end, y_end) = ((bc * sc.entries()) as f64, (first + br * sr.entries()) as f64);
    let mut chart = ChartBuilder::on(&chart_area)
        .margin_right(right)
        .x_label_area_size(BELOW)
        .y_label_area_size(left)
        .build_cartesian_2d(0f64..x_end, y_end..first as f64)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc(fitting(across, map_w + 40))
        .y_desc(fitting(down, map_h + 30))
        .x_labels(whole_labels(cols as f64, (map_w / 50).clamp(3, 10)))
        .y_labels(whole_labels(rows as f64, (map_h / 30).clamp(3, 10)))
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .label_style(LABELS)
        .axis_desc_style(LABELS)
        .draw()
        .map_err(err)?;
    // The blocks, in the plotting area's own pixels: each exactly its scale's pixels.
    let pixels = chart.plotting_area().strip_coord_spec();
    if pixels.dim_in_pixel() != (map_w, map_h) {
        return Err(err(format!(
            "the map's area is {:?} pixels, not {map_w}x{map_h}",
            pixels.dim_in_pixel()
        )));
    }
    let (ph, pw) = (sr.pixels() as i32, sc.pixels() as i32);
    for (b, &mean) in means.iter().enumerate() {
        let (i, j) = ((b as u64 / bc) as i32, (b as u64 % bc) as i32);
        pixels
            .draw(&Rectangle::new(
                [(j * pw, i * ph), ((j + 1) * pw, (i + 1) * ph)],
                heat(mean, max).filled(),
            ))
            .map_err(err)?;
    }
    let bar =
        area.clone().shrink((x0 + left + map_w + right + GAP, y0 + top), (BAR + bar_labels, bar_h));
    colour_bar(bar, max, bar_labels)?;
    area.present().map_err(err)
}

/// The long words of an axis where they fit `room` pixels, else the short.
fn fitting([long, short]: [String; 2], room: u32) -> String {
    if text_width(&long, LABELS.1) <= room { long } else { short }
}

/// The colour bar: the scale from 0 (bottom) to `max` (top), its labels at its right in
/// `labels` pixels.
fn colour_bar<DB: DrawingBackend>(
    bar: DrawingArea<DB, Shift>,
    max: f64,
    labels: u32,
) -> Result<(), String> {
    let mut scale = ChartBuilder::on(&bar)
        // The labels at the right of the bar (left-aligned text is placed exactly by every
        // backend), with room for the tick marks and the gap.
        .set_label_area_size(LabelAreaPosition::Right, labels)
        .build_cartesian_2d(0f64..1f64, 0f64..max.max(1.0))
        .map_err(err)?;
    scale
        .configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .set_tick_mark_size(LabelAreaPosition::Right, 5)
        .y_labels(whole_labels(max, 6))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .label_style(LABELS)
        .draw()
        .map_err(err)?;
    let steps = 128;
    let m = max.max(1.0);
    scale
        .draw_series((0..steps).map(|i| {
            let (a, b) = (m * i as f64 / steps as f64, m * (i + 1) as f64 / steps as f64);
            Rectangle::new([(0.0, a), (1.0, b)], heat((a + b) / 2.0, max).filled())
        }))
        .map_err(err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_are_whole_and_fit() {
        // Fits at 1 pixel an entry, at 3, or needs 2 entries a pixel.
        assert_eq!(Scale::fit(300, 370, 1 << 20), Scale::Up(1));
        assert_eq!(Scale::fit(100, 370, 1 << 20), Scale::Up(3));
        assert_eq!(Scale::fit(400, 370, 1 << 20), Scale::Down(2));
        assert_eq!(Scale::fit(400, 1000, 256), Scale::Down(2));
        for n in [1u64, 2, 7, 255, 256, 257, 1000, 4096, 1 << 20] {
            for room in [16u64, 100, 333, 555, 1000] {
                let s = Scale::fit(n, room, 256);
                assert!(
                    s.blocks(n) * s.pixels() <= room && s.blocks(n) <= 256,
                    "{n} into {room}: {s:?}"
                );
                // The finest that fits: one pixel more an entry, or one entry fewer a pixel, would
                // not.
                let too_fine = match s {
                    Scale::Up(s) => n * (s + 1) > room,
                    Scale::Down(k) => n.div_ceil(k - 1) > room.min(256),
                };
                assert!(too_fine, "{n} into {room}: {s:?}");
            }
        }
    }

    #[test]
    fn boards_keep_square_blocks_and_long_tables_do_not() {
        assert_eq!(scales(300, 400, (560, 370), 1 << 20), (Scale::Up(1), Scale::Up(1)));
        assert_eq!(scales(12, 12, (850, 500), 1 << 20), (Scale::Up(41), Scale::Up(41)));
        assert_eq!(scales(1024, 1024, (850, 500), 1 << 20), (Scale::Down(3), Scale::Down(3)));
        assert_eq!(scales(300, 400, (560, 370), 256), (Scale::Down(2), Scale::Down(2)));
        assert_eq!(scales(6, 100_000, (850, 500), 1 << 20), (Scale::Up(83), Scale::Down(118)));
    }
}
