//! Draws a [`Picture`] on any plotters backend, in layers (the frame, each episode's band, each
//! member's line, ...), so that the SVG can group each layer under a name a reader can find
//! (`<g class="series" data-member="...">`) while the PNG draws them all on one bitmap.

use plotters::prelude::DrawingBackend;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{FontDesc, FontFamily, FontStyle, RGBColor, ShapeStyle, TextStyle};
use plotters_backend::DrawingErrorKind;

use super::axis::{time_caption, time_ticks, value_ticks, Tick};
use super::picture::{Band, Picture, Point};
use crate::analyse::episodes::EpisodeKind;
use crate::analyse::finding::Severity;
use crate::output::palette;

/// Width of every picture, in pixels.
pub const WIDTH: u32 = 1280;

/// Text sizes (plotters' size: the SVG writes size / 1.24 as its font size; the PNG's bitmap
/// font draws one pixel per font pixel up to 21, two from 22).
pub const TEXT: f64 = 15.0;
pub const SMALL: f64 = 14.0;
pub const TITLE: f64 = 23.0;

const INK: RGBColor = RGBColor(0x22, 0x22, 0x22);
const GREY: RGBColor = RGBColor(0x70, 0x70, 0x70);
const GRID: RGBColor = RGBColor(0xe2, 0xe2, 0xe2);
const WHITE: RGBColor = RGBColor(0xff, 0xff, 0xff);
const ANSWERS: RGBColor = RGBColor(0xc4, 0xc4, 0xc4);

/// Severities in the order of the findings strip's rows, top first.
const SEVERITIES: [Severity; 3] = [Severity::Error, Severity::Warning, Severity::Info];

/// What one layer draws.
#[derive(Clone, Debug, PartialEq)]
pub enum Layer {
    /// Background, titles, axes, grid.
    Frame,
    /// Episode `i`'s band.
    Band(usize),
    /// Member `i`'s expected share (dashed).
    Expected(usize),
    /// Member `i`'s observed share.
    Series(usize),
    /// The answers per column.
    Answers,
    /// What happened to the subject (registrations, takeovers), marked at the panel's top.
    Events,
    /// The findings of a severity.
    Findings(Severity),
    /// Gauge line `i` of the failover panel.
    Gauge(usize),
    Legend,
}

/// Where things go, in pixels.
#[derive(Clone, Debug)]
pub struct Layout {
    pub height: u32,
    left: i32,
    right: i32,
    /// The shares panel (top, bottom), if any, and the answers' under it.
    shares: Option<(i32, i32)>,
    answers: Option<(i32, i32)>,
    answers_max: f64,
    /// The findings strip.
    strip: (i32, i32),
    /// The failover panel, if any.
    gauges: Option<(i32, i32)>,
    /// The bottom of the last panel: the time axis.
    axis: i32,
    legend: i32,
    /// The failover panel's value axis.
    gauge_ticks: Vec<Tick>,
    start: f64,
    end: f64,
    /// Each band's label, placed once for all bands ([`band_labels`]).
    band_labels: Vec<Option<(i32, i32, String)>>,
}

impl Layout {
    pub fn of(p: &Picture) -> Layout {
        let mut y = 92;
        let shares = (!p.members.is_empty()).then(|| {
            let r = (y, y + 320);
            y = r.1 + 14;
            r
        });
        let answers = (!p.answers.is_empty()).then(|| {
            let r = (y, y + 48);
            y = r.1 + 8;
            r
        });
        let answers_max = p.answers.iter().map(|a| a.value).fold(1.0, f64::max);
        let strip = (y, y + 3 * 14);
        y = strip.1 + 10;
        let gauges = (!p.gauges.is_empty()).then(|| {
            let r = (y, y + 170);
            y = r.1;
            r
        });
        let axis = y.max(strip.1);
        let legend_bottom = 92 + legend_height(p);
        let values = || {
            p.gauges
                .iter()
                .flat_map(|g| g.points.iter().map(|x| x.value))
        };
        let gauge_ticks = value_ticks(values().fold(0.0, f64::min), values().fold(0.0, f64::max));
        let mut lay = Layout {
            height: (axis + 56).max(legend_bottom + 16) as u32,
            left: 78,
            right: WIDTH as i32 - 330,
            shares,
            answers,
            answers_max,
            strip,
            gauges,
            axis,
            legend: WIDTH as i32 - 306,
            gauge_ticks,
            start: p.start,
            end: p.end,
            band_labels: Vec::new(),
        };
        lay.band_labels = band_labels(p, &lay);
        lay
    }

    fn x(&self, t: f64) -> i32 {
        let f = (t - self.start) / (self.end - self.start);
        self.left + (f.clamp(-0.01, 1.01) * f64::from(self.right - self.left)).round() as i32
    }

    fn top(&self) -> i32 {
        self.shares.map_or(self.strip.0, |s| s.0)
    }

    /// The failover panel's value range.
    fn gauge_range(&self) -> (f64, f64) {
        let lo = self.gauge_ticks.first().map_or(0.0, |t| t.at);
        let hi = self.gauge_ticks.last().map_or(1.0, |t| t.at);
        (lo, hi.max(lo + 1.0))
    }
}

/// The layers of a picture, back to front.
pub fn layers(p: &Picture) -> Vec<Layer> {
    let mut v = vec![Layer::Frame];
    v.extend((0..p.bands.len()).map(Layer::Band));
    // The expected shares over the observed ones: thin and dashed, they show through where the
    // two agree.
    v.extend((0..p.members.len()).map(Layer::Series));
    v.extend((0..p.members.len()).map(Layer::Expected));
    if !p.answers.is_empty() {
        v.push(Layer::Answers);
    }
    if !p.events.is_empty() && lay_has_shares(p) {
        v.push(Layer::Events);
    }
    for s in SEVERITIES {
        if p.marks.iter().any(|m| m.severity == s) {
            v.push(Layer::Findings(s));
        }
    }
    v.extend((0..p.gauges.len()).map(Layer::Gauge));
    v.push(Layer::Legend);
    v
}

/// The attributes that name a layer in the SVG: its class and data.
pub fn layer_attributes(p: &Picture, l: &Layer) -> Vec<(&'static str, String)> {
    match l {
        Layer::Frame => vec![("class", "frame".into())],
        Layer::Band(i) => {
            let b = &p.bands[*i];
            vec![
                ("class", "episode".into()),
                ("data-kind", b.kind.name().into()),
                ("data-start", format!("{:.3}", b.start)),
                ("data-end", format!("{:.3}", b.end)),
            ]
        }
        Layer::Expected(i) => vec![
            ("class", "expected".into()),
            ("data-member", p.members[*i].id.clone()),
        ],
        Layer::Series(i) => vec![
            ("class", "series".into()),
            ("data-member", p.members[*i].id.clone()),
        ],
        Layer::Answers => vec![("class", "answers".into())],
        Layer::Events => vec![("class", "events".into())],
        Layer::Findings(s) => vec![
            ("class", "findings".into()),
            ("data-severity", s.name().into()),
        ],
        Layer::Gauge(i) => vec![
            ("class", "gauge".into()),
            ("data-pool", p.gauges[*i].pool.clone()),
            ("data-gauge", p.gauges[*i].gauge.clone()),
        ],
        Layer::Legend => vec![("class", "legend".into())],
    }
}

fn rgb((r, g, b): (u8, u8, u8)) -> RGBColor {
    RGBColor(r, g, b)
}

/// Drawing calls over a backend, their errors as text.
struct Pen<'a, DB: DrawingBackend> {
    db: &'a mut DB,
}

type Drawn = Result<(), String>;

fn err<E: std::error::Error + Send + Sync>(e: DrawingErrorKind<E>) -> String {
    e.to_string()
}

impl<DB: DrawingBackend> Pen<'_, DB> {
    fn rect(&mut self, a: (i32, i32), b: (i32, i32), c: RGBColor, fill: bool) -> Drawn {
        let style = ShapeStyle {
            color: c.into(),
            filled: fill,
            stroke_width: 1,
        };
        self.db.draw_rect(a, b, &style, fill).map_err(err)
    }

    fn line(&mut self, a: (i32, i32), b: (i32, i32), c: RGBColor, width: u32) -> Drawn {
        self.path(&[a, b], c, width)
    }

    fn path(&mut self, pts: &[(i32, i32)], c: RGBColor, width: u32) -> Drawn {
        let style = ShapeStyle {
            color: c.into(),
            filled: false,
            stroke_width: width,
        };
        self.db.draw_path(pts.iter().copied(), &style).map_err(err)
    }

    /// A dashed line through `pts`: `on` pixels drawn, `off` left out.
    fn dashed(&mut self, pts: &[(i32, i32)], c: RGBColor, width: u32, on: f64, off: f64) -> Drawn {
        let mut drawing = true;
        let mut left = on;
        for w in pts.windows(2) {
            let (a, b) = (w[0], w[1]);
            let (dx, dy) = (f64::from(b.0 - a.0), f64::from(b.1 - a.1));
            let len = dx.hypot(dy);
            let mut done = 0.0;
            while done < len {
                let step = left.min(len - done);
                let at = |d: f64| {
                    (
                        a.0 + (dx * d / len).round() as i32,
                        a.1 + (dy * d / len).round() as i32,
                    )
                };
                if drawing {
                    self.line(at(done), at(done + step), c, width)?;
                }
                done += step;
                left -= step;
                if left <= 0.0 {
                    drawing = !drawing;
                    left = if drawing { on } else { off };
                }
            }
        }
        Ok(())
    }

    fn circle(&mut self, c: (i32, i32), r: u32, colour: RGBColor) -> Drawn {
        let style = ShapeStyle {
            color: colour.into(),
            filled: true,
            stroke_width: 1,
        };
        self.db.draw_circle(c, r, &style, true).map_err(err)
    }

    /// A triangle pointing down with its tip at `tip`.
    fn marker(&mut self, tip: (i32, i32), half: i32, c: RGBColor) -> Drawn {
        let style = ShapeStyle {
            color: c.into(),
            filled: true,
            stroke_width: 1,
        };
        let pts = [
            (tip.0 - half, tip.1 - 2 * half),
            (tip.0 + half, tip.1 - 2 * half),
            tip,
        ];
        self.db.fill_polygon(pts, &style).map_err(err)
    }

    fn text(
        &mut self,
        s: &str,
        at: (i32, i32),
        size: f64,
        c: RGBColor,
        h: HPos,
        bold: bool,
    ) -> Drawn {
        let style = if bold {
            FontStyle::Bold
        } else {
            FontStyle::Normal
        };
        let font = FontDesc::new(FontFamily::SansSerif, size, style);
        let ts = TextStyle::from(font).color(&c).pos(Pos::new(h, VPos::Top));
        self.db.draw_text(s, &ts, at).map_err(err)
    }
}

/// Width in pixels a text takes at `size`, the larger of the SVG's sans-serif (about 0.6 of
/// its font size a character) and the PNG's bitmap font.
pub fn text_width(s: &str, size: f64) -> i32 {
    let n = s.chars().count() as f64;
    let svg = n * size / 1.24 * 0.6;
    let png = f64::from(super::font::measure(s, bitmap_scale(size)).0);
    svg.max(png).ceil() as i32
}

/// The bitmap font's scale for a text size.
pub fn bitmap_scale(size: f64) -> u32 {
    ((size / 11.0).floor() as u32).max(1)
}

/// `s` cut to `width` pixels at `size`, with `…`.
fn cut(s: &str, width: i32, size: f64) -> String {
    if text_width(s, size) <= width {
        return s.to_string();
    }
    let mut out: String = s.to_string();
    while !out.is_empty() && text_width(&format!("{out}…"), size) > width {
        out.pop();
    }
    format!("{out}…")
}

/// Draws layer `l` of `p`.
pub fn draw<DB: DrawingBackend>(db: &mut DB, p: &Picture, lay: &Layout, l: &Layer) -> Drawn {
    let mut pen = Pen { db };
    match l {
        Layer::Frame => frame(&mut pen, p, lay),
        Layer::Band(i) => band(&mut pen, p, lay, *i),
        Layer::Expected(i) => {
            let m = &p.members[*i];
            let c = rgb(palette::series(m.colour).dark());
            for run in runs(&m.expected, p.column) {
                let pts = share_points(lay, &run);
                match pts.as_slice() {
                    // A window alone: a short bar across its point.
                    [(x, y)] => pen.line((x - 7, *y), (x + 7, *y), c, 1)?,
                    _ => pen.dashed(&pts, c, 1, 6.0, 4.0)?,
                }
            }
            Ok(())
        }
        Layer::Series(i) => {
            let m = &p.members[*i];
            let c = rgb(palette::series(m.colour).ink());
            // Members drawn later are drawn thinner, so that one at the same share as another
            // (two PEs of a round robin) still shows around it.
            let (width, radius) = thickness(*i, p.members.len());
            for run in runs(&m.observed, p.column) {
                let pts = share_points(lay, &run);
                if pts.len() > 1 {
                    pen.path(&pts, c, width)?;
                }
                for q in pts {
                    pen.circle(q, radius, c)?;
                }
            }
            Ok(())
        }
        Layer::Answers => {
            let (top, bottom) = lay.answers.unwrap_or((0, 0));
            for a in &p.answers {
                let h = (a.value / lay.answers_max * f64::from(bottom - top)).round() as i32;
                if h > 0 {
                    let (x0, x1) = (lay.x(a.start) + 1, lay.x(a.end) - 1);
                    pen.rect((x0, bottom - h), (x1.max(x0 + 1), bottom), ANSWERS, true)?;
                }
            }
            Ok(())
        }
        Layer::Events => {
            let top = lay.top();
            for (t, _) in &p.events {
                let x = lay.x(*t);
                pen.line((x, top), (x, top + 14), INK, 1)?;
                pen.circle((x, top + 14), 3, INK)?;
            }
            Ok(())
        }
        Layer::Findings(s) => {
            let row = SEVERITIES.iter().position(|x| x == s).unwrap_or(0) as i32;
            let c = rgb(palette::severity(*s).ink());
            let tip = lay.strip.0 + row * 14 + 12;
            for m in p.marks.iter().filter(|m| m.severity == *s) {
                pen.marker((lay.x(m.time), tip), 5, c)?;
            }
            Ok(())
        }
        Layer::Gauge(i) => {
            let (top, bottom) = lay.gauges.unwrap_or((0, 0));
            let g = &p.gauges[*i];
            let c = rgb(palette::series(g.colour).ink());
            let (lo, hi) = lay.gauge_range();
            let y =
                |v: f64| bottom - ((v - lo) / (hi - lo) * f64::from(bottom - top)).round() as i32;
            // A level holds until the next value: drawn as steps.
            let mut pts = Vec::new();
            for q in &g.points {
                pts.push((lay.x(q.start), y(q.value)));
                pts.push((lay.x(q.end), y(q.value)));
            }
            pen.path(&pts, c, 2)
        }
        Layer::Legend => legend(&mut pen, p, lay),
    }
}

/// Whether the picture has a shares panel (events are marked at its top).
fn lay_has_shares(p: &Picture) -> bool {
    !p.members.is_empty()
}

/// The line width and point radius of member `i` of `n`: the first the widest.
fn thickness(i: usize, n: usize) -> (u32, u32) {
    let later = n.saturating_sub(i + 1).min(3) as u32;
    (2 + later.min(2), 3 + later)
}

/// Points of a member's line: at the middle of each column, 0 to 100 %.
fn share_points(lay: &Layout, pts: &[Point]) -> Vec<(i32, i32)> {
    let (top, bottom) = lay.shares.unwrap_or((0, 0));
    pts.iter()
        .map(|q| {
            let y = bottom - (q.value.clamp(0.0, 1.0) * f64::from(bottom - top)).round() as i32;
            (lay.x(q.mid()), y)
        })
        .collect()
}

/// Points split where a column had no answers: a line is not drawn across a gap.
fn runs(pts: &[Point], column: f64) -> Vec<Vec<Point>> {
    let mut out: Vec<Vec<Point>> = Vec::new();
    for q in pts {
        match out.last_mut() {
            Some(run) if run.last().is_some_and(|l| q.start - l.end < column / 2.0) => run.push(*q),
            _ => out.push(vec![*q]),
        }
    }
    out
}

/// Grid lines and labels of a value axis from `lo` (at `bottom`) to `hi` (at `top`).
fn y_axis(
    pen: &mut Pen<'_, impl DrawingBackend>,
    lay: &Layout,
    (top, bottom): (i32, i32),
    ticks: &[Tick],
    (lo, hi): (f64, f64),
    unit: &str,
) -> Drawn {
    for t in ticks {
        let y = bottom - ((t.at - lo) / (hi - lo) * f64::from(bottom - top)).round() as i32;
        pen.line((lay.left, y), (lay.right, y), GRID, 1)?;
        pen.text(
            &format!("{}{unit}", t.label),
            (lay.left - 8, y - 5),
            SMALL,
            GREY,
            HPos::Right,
            false,
        )?;
    }
    Ok(())
}

fn frame(pen: &mut Pen<'_, impl DrawingBackend>, p: &Picture, lay: &Layout) -> Drawn {
    pen.rect((0, 0), (WIDTH as i32, lay.height as i32), WHITE, true)?;
    let title_room = WIDTH as i32 - 32;
    pen.text(
        &cut(&p.title, title_room, TITLE),
        (16, 14),
        TITLE,
        INK,
        HPos::Left,
        true,
    )?;
    pen.text(
        &cut(&p.subtitle, title_room, TEXT),
        (16, 46),
        TEXT,
        GREY,
        HPos::Left,
        false,
    )?;
    let ticks = time_ticks(p.start, p.end);
    for t in &ticks {
        let x = lay.x(t.at);
        pen.line((x, lay.top()), (x, lay.axis), GRID, 1)?;
        pen.line((x, lay.axis), (x, lay.axis + 5), GREY, 1)?;
        pen.text(&t.label, (x, lay.axis + 9), SMALL, INK, HPos::Center, false)?;
    }
    let caption = time_caption(p.start, p.end);
    let mid = (lay.left + lay.right) / 2;
    pen.text(
        &caption,
        (mid, lay.axis + 30),
        SMALL,
        GREY,
        HPos::Center,
        false,
    )?;
    if let Some((top, bottom)) = lay.shares {
        let ticks: Vec<Tick> = (0..=4)
            .map(|i| Tick {
                at: f64::from(i) * 25.0,
                label: format!("{}", i * 25),
            })
            .collect();
        y_axis(pen, lay, (top, bottom), &ticks, (0.0, 100.0), "%")?;
        pen.rect((lay.left, top), (lay.right, bottom), GREY, false)?;
    }
    if let Some((top, bottom)) = lay.answers {
        let max = lay.answers_max;
        let ticks = [
            Tick {
                at: 0.0,
                label: "0".into(),
            },
            Tick {
                at: max,
                label: format!("{max}"),
            },
        ];
        y_axis(pen, lay, (top, bottom), &ticks, (0.0, max), "")?;
        pen.rect((lay.left, top), (lay.right, bottom), GREY, false)?;
    }
    let (s0, s1) = lay.strip;
    for (row, s) in SEVERITIES.iter().enumerate() {
        let y = s0 + row as i32 * 14;
        pen.text(
            s.name(),
            (lay.left - 8, y + 3),
            SMALL,
            GREY,
            HPos::Right,
            false,
        )?;
        pen.line((lay.left, y + 13), (lay.right, y + 13), GRID, 1)?;
    }
    pen.rect((lay.left, s0), (lay.right, s1), GREY, false)?;
    if let Some((top, bottom)) = lay.gauges {
        y_axis(
            pen,
            lay,
            (top, bottom),
            &lay.gauge_ticks,
            lay.gauge_range(),
            "",
        )?;
        pen.rect((lay.left, top), (lay.right, bottom), GREY, false)?;
    }
    Ok(())
}

fn band(pen: &mut Pen<'_, impl DrawingBackend>, p: &Picture, lay: &Layout, i: usize) -> Drawn {
    let b = &p.bands[i];
    let Some(hue) = palette::episode(b.kind) else {
        return Ok(());
    };
    let (x0, x1) = (lay.x(b.start), lay.x(b.end).max(lay.x(b.start) + 2));
    let bottom = lay.gauges.map_or(lay.strip.1, |g| g.1);
    pen.rect((x0, lay.top() + 1), (x1, bottom - 1), rgb(hue.tint()), true)?;
    pen.line((x0, lay.top()), (x0, bottom), rgb(hue.ink()), 1)?;
    if let Some(Some((x, row, text))) = lay.band_labels.get(i) {
        let y = lay.top() - 30 + row * 14;
        pen.text(text, (*x, y), SMALL, rgb(hue.ink()), HPos::Left, true)?;
    }
    Ok(())
}

/// What an episode's label says: who was silent, who took over, who came back.
fn band_text(b: &Band) -> String {
    match (b.kind, b.server.as_str()) {
        (EpisodeKind::PeerSilent, s) if !s.is_empty() => format!("{s} silent"),
        (EpisodeKind::Takeover, s) if !s.is_empty() => format!("takeover by {s}"),
        (EpisodeKind::Recovery, s) if !s.is_empty() => format!("{s} back"),
        (k, _) => k.name().to_string(),
    }
}

/// The labels of the bands above the panel: `(x, row, text)` for those that find room in one
/// of two rows (the legend names the kinds of all).
fn band_labels(p: &Picture, lay: &Layout) -> Vec<Option<(i32, i32, String)>> {
    let mut ends = [i32::MIN; 2];
    p.bands
        .iter()
        .map(|b| {
            palette::episode(b.kind)?;
            let text = band_text(b);
            let x = lay.x(b.start);
            let w = text_width(&text, SMALL);
            let row = ends.iter().position(|e| *e + 8 < x)?;
            ends[row] = x + w;
            Some((x, row as i32, text))
        })
        .collect()
}

/// Lines of the legend, for the layout's height.
fn legend_height(p: &Picture) -> i32 {
    let members = p.members.len() as i32 * 58 + if p.members.is_empty() { 0 } else { 64 };
    let kinds = EpisodeKind::ALL
        .iter()
        .filter(|k| p.bands.iter().any(|b| b.kind == **k))
        .count() as i32;
    let episodes = if kinds > 0 { 26 + kinds * 20 } else { 0 };
    let sev = SEVERITIES
        .iter()
        .filter(|s| p.marks.iter().any(|m| m.severity == **s))
        .count() as i32;
    let findings = 26 + sev.max(1) * 20;
    let events = if p.events.is_empty() { 0 } else { 52 };
    let gauges = if p.gauges.is_empty() {
        0
    } else {
        26 + p.gauges.len() as i32 * 20
    };
    members + episodes + findings + events + gauges + 20
}

fn legend(pen: &mut Pen<'_, impl DrawingBackend>, p: &Picture, lay: &Layout) -> Drawn {
    let x = lay.legend;
    let room = WIDTH as i32 - x - 12;
    let mut y = lay.top() - 4;
    let heading = |pen: &mut Pen<'_, _>, y: &mut i32, s: &str| -> Drawn {
        pen.text(s, (x, *y), TEXT, INK, HPos::Left, true)?;
        *y += 24;
        Ok(())
    };
    // A line of an entry, beside its key, cut to the legend's width.
    let entry = |pen: &mut Pen<'_, _>, s: &str, y: i32, size: f64, c: RGBColor| -> Drawn {
        pen.text(
            &cut(s, room - 36, size),
            (x + 36, y),
            size,
            c,
            HPos::Left,
            false,
        )
    };
    if !p.members.is_empty() {
        heading(pen, &mut y, "Share of answers per window")?;
        for m in &p.members {
            let c = rgb(palette::series(m.colour).ink());
            let (width, radius) = thickness(m.colour, p.members.len());
            pen.line((x, y + 6), (x + 26, y + 6), c, width)?;
            pen.circle((x + 13, y + 6), radius, c)?;
            entry(pen, &m.label, y, TEXT, INK)?;
            y += 18;
            entry(pen, &m.description, y, SMALL, GREY)?;
            y += 17;
            let counts = format!("first in {} answers, {} findings", m.first, m.findings);
            entry(pen, &counts, y, SMALL, GREY)?;
            y += 23;
        }
        pen.dashed(&[(x, y + 6), (x + 26, y + 6)], INK, 1, 6.0, 4.0)?;
        pen.text(
            "expected share (the reference's)",
            (x + 36, y),
            SMALL,
            GREY,
            HPos::Left,
            false,
        )?;
        y += 20;
        pen.rect((x + 4, y), (x + 22, y + 12), ANSWERS, true)?;
        pen.text(
            "answers per window",
            (x + 36, y),
            SMALL,
            GREY,
            HPos::Left,
            false,
        )?;
        y += 30;
    }
    if EpisodeKind::ALL
        .iter()
        .any(|k| p.bands.iter().any(|b| b.kind == *k))
    {
        heading(pen, &mut y, "Episodes")?;
        for k in EpisodeKind::ALL {
            let of_kind: Vec<_> = p.bands.iter().filter(|b| b.kind == k).collect();
            if of_kind.is_empty() {
                continue;
            }
            match palette::episode(k) {
                Some(h) => pen.rect((x, y), (x + 26, y + 12), rgb(h.tint()), true)?,
                None => pen.rect((x, y), (x + 26, y + 12), GREY, false)?,
            }
            let secs: f64 = of_kind.iter().map(|b| b.end - b.start).sum();
            let text = format!("{} ({}x, {:.1}s)", k.name(), of_kind.len(), secs);
            pen.text(&text, (x + 36, y), SMALL, INK, HPos::Left, false)?;
            y += 20;
        }
        y += 6;
    }
    heading(pen, &mut y, "Findings")?;
    let mut any = false;
    for s in SEVERITIES {
        let n = p.marks.iter().filter(|m| m.severity == s).count();
        if n == 0 {
            continue;
        }
        any = true;
        pen.marker((x + 13, y + 12), 5, rgb(palette::severity(s).ink()))?;
        let mut rules: Vec<&str> = p
            .marks
            .iter()
            .filter(|m| m.severity == s)
            .map(|m| m.rule)
            .collect();
        rules.sort_unstable();
        rules.dedup();
        let text = format!("{n} {}: {}", s.name(), rules.join(", "));
        entry(pen, &text, y, SMALL, INK)?;
        y += 20;
    }
    if !any {
        pen.text("none", (x + 36, y), SMALL, GREY, HPos::Left, false)?;
        y += 20;
    }
    y += 6;
    if !p.events.is_empty() && lay_has_shares(p) {
        heading(pen, &mut y, "Events")?;
        pen.line((x + 13, y), (x + 13, y + 8), INK, 1)?;
        pen.circle((x + 13, y + 8), 3, INK)?;
        let mut kinds: Vec<&str> = p.events.iter().map(|e| e.1).collect();
        kinds.sort_unstable();
        let mut counted: Vec<String> = Vec::new();
        for k in kinds.iter().copied() {
            if counted.last().is_some_and(|c| c.ends_with(k)) {
                continue;
            }
            let n = kinds.iter().filter(|x| **x == k).count();
            counted.push(format!("{n} {k}"));
        }
        let text = counted.join(", ");
        entry(pen, &text, y, SMALL, INK)?;
        y += 26;
    }
    if !p.gauges.is_empty() {
        heading(pen, &mut y, "Failover pool leases (below)")?;
        for g in &p.gauges {
            let c = rgb(palette::series(g.colour).ink());
            pen.line((x, y + 6), (x + 26, y + 6), c, 2)?;
            entry(pen, &g.label, y, SMALL, INK)?;
            y += 20;
        }
    }
    Ok(())
}
