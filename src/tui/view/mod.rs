//! Rendering: pure functions from an [`App`] to a ratatui frame, one file per pane.
//!
//! In 80x24 the panes sit two by two (pools and chart on top, members and findings below); from
//! 120x30 on, the pools take a column on the left, the members one on the right, and the chart and
//! findings share the middle.

mod bars;
mod chart;
mod findings;
mod members;
mod overlay;
mod pools;

use ratatui::layout::Rect;
use ratatui::widgets::{Block, BorderType, Paragraph};
use ratatui::Frame;

use super::app::{App, Pane, Viewport};

/// The smallest screen drawn; below it a note asks for more room.
pub const MIN_WIDTH: u16 = 40;
pub const MIN_HEIGHT: u16 = 12;
/// From this size on, the wide layout.
const WIDE_WIDTH: u16 = 120;
const WIDE_HEIGHT: u16 = 30;

/// Where everything goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Areas {
    pub header: Rect,
    pub pools: Rect,
    pub chart: Rect,
    pub members: Rect,
    pub findings: Rect,
    pub footer: Rect,
    /// Between the bars: where the detail view goes.
    pub body: Rect,
}

fn split_h(r: Rect, left: u16) -> (Rect, Rect) {
    let left = left.min(r.width);
    (
        Rect::new(r.x, r.y, left, r.height),
        Rect::new(r.x + left, r.y, r.width - left, r.height),
    )
}

fn split_v(r: Rect, top: u16) -> (Rect, Rect) {
    let top = top.min(r.height);
    (
        Rect::new(r.x, r.y, r.width, top),
        Rect::new(r.x, r.y + top, r.width, r.height - top),
    )
}

pub fn areas(area: Rect) -> Areas {
    areas_with(area, 0)
}

/// [`areas`], with the members pane of the compact layout widened towards `members_want`
/// columns (from 3/8 of the width up to half), so that a member's description is not cut where
/// the findings can spare the room. Only the bottom row's widths change, so [`viewport`] holds.
fn areas_with(area: Rect, members_want: u16) -> Areas {
    let (header, rest) = split_v(area, 1);
    let (body, footer) = split_v(rest, rest.height.saturating_sub(1));
    if area.width >= WIDE_WIDTH && area.height >= WIDE_HEIGHT {
        let side = area.width / 5;
        let (pools, rest) = split_h(body, side.max(24));
        // Members a quarter of the width: the line of a member ends with its description.
        let (middle, members) = split_h(rest, rest.width.saturating_sub((area.width / 4).max(30)));
        let (chart, findings) = split_v(middle, middle.height * 3 / 5);
        Areas {
            header,
            pools,
            chart,
            members,
            findings,
            footer,
            body,
        }
    } else {
        let (top, bottom) = split_v(body, body.height * 3 / 5);
        let (pools, chart) = split_h(top, (top.width * 2 / 7).max(16));
        let least = (bottom.width * 3 / 8).max(20);
        let most = (bottom.width / 2).max(least);
        let (members, findings) = split_h(bottom, members_want.clamp(least, most));
        Areas {
            header,
            pools,
            chart,
            members,
            findings,
            footer,
            body,
        }
    }
}

fn inner(r: Rect) -> Rect {
    Block::bordered().inner(r)
}

/// The rows and columns the panes offer, for the model's paging and scrolling.
pub fn viewport(area: Rect) -> Viewport {
    let a = areas(area);
    Viewport {
        pools: inner(a.pools).height as usize,
        members: inner(a.members).height.saturating_sub(1) as usize,
        findings: inner(a.findings).height as usize,
        detail: inner(a.body).height as usize,
        detail_width: inner(a.body).width as usize,
        chart_columns: chart::plot_width(inner(a.chart)) as usize,
    }
}

/// A pane's frame: double border when it has the focus (visible without colours too).
fn pane<'a>(app: &App, which: Pane, title: String) -> Block<'a> {
    let focused = app.focus == which;
    Block::bordered()
        .border_type(if focused {
            BorderType::Double
        } else {
            BorderType::Plain
        })
        .border_style(app.palette.border(focused))
        .title(title)
        .title_style(app.palette.title())
}

/// Draws the whole screen.
pub fn draw(f: &mut Frame<'_>, app: &App) {
    let area = f.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        let note = format!(
            "poolshark needs a terminal of {MIN_WIDTH}x{MIN_HEIGHT} at least (this one is {}x{})",
            area.width, area.height
        );
        f.render_widget(
            Paragraph::new(note).wrap(ratatui::widgets::Wrap { trim: true }),
            area,
        );
        return;
    }
    let a = areas_with(area, members::wanted_width(app));
    bars::header(f, a.header, app);
    bars::footer(f, a.footer, app);
    pools::draw(f, a.pools, app);
    chart::draw(f, a.chart, app);
    members::draw(f, a.members, app);
    findings::draw(f, a.findings, app);
    overlay::draw(f, a.body, app);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_cover_the_screen_without_overlap() {
        for (w, h) in [(80u16, 24u16), (120, 30), (200, 60), (40, 12), (119, 50)] {
            let a = areas(Rect::new(0, 0, w, h));
            let panes = [a.header, a.pools, a.chart, a.members, a.findings, a.footer];
            let cells: u32 = panes.iter().map(|r| r.area()).sum();
            assert_eq!(cells, u32::from(w) * u32::from(h), "{w}x{h}: {a:?}");
            for (i, p) in panes.iter().enumerate() {
                for q in &panes[i + 1..] {
                    assert!(!p.intersects(*q), "{w}x{h}: {p:?} {q:?}");
                }
            }
        }
        let small = areas(Rect::new(0, 0, 80, 24));
        assert_eq!(
            small.pools.y, small.chart.y,
            "compact: pools beside the chart"
        );
        assert!(small.members.y > small.pools.y, "compact: members below");
        let wide = areas(Rect::new(0, 0, 160, 48));
        assert_eq!(wide.pools.height, 46, "wide: pools take the whole height");
        assert_eq!(
            wide.members.height, 46,
            "wide: members take the whole height"
        );
        assert!(wide.findings.y > wide.chart.y);
    }
}
