//! The model of the TUI: what it shows (the subjects' series and the findings, as the loader last
//! sent them) and where the user is (selected subject, focused pane, display interval, filters,
//! scroll positions, the help and detail views). Keys become [`Action`]s that [`App::handle`]
//! applies; the views only read an `&App`. Nothing here touches the terminal.

use crate::analyse::finding::{runs, Finding, Subject, RUN_FOLDED};
use crate::analyse::timeline::Series;
use crate::base::Timestamp;

use super::detail::FrameDetail;
use super::keys::help_lines;
use super::palette::Palette;
use super::snapshot::{Progress, Update};
use super::wrap::wrap;
use crate::output::chart;

/// The panes, in Tab order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pane {
    Pools,
    Chart,
    Members,
    Findings,
}

impl Pane {
    const ORDER: [Pane; 4] = [Pane::Pools, Pane::Chart, Pane::Members, Pane::Findings];

    fn position(self) -> usize {
        Pane::ORDER.iter().position(|&p| p == self).unwrap_or(0)
    }

    pub fn next(self) -> Pane {
        Pane::ORDER[(self.position() + 1) % Pane::ORDER.len()]
    }

    pub fn prev(self) -> Pane {
        Pane::ORDER[(self.position() + Pane::ORDER.len() - 1) % Pane::ORDER.len()]
    }
}

/// Which list a filter applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilterTarget {
    Pools,
    Findings,
}

/// The frame of the detail view.
#[derive(Clone, Debug, PartialEq)]
pub enum DetailState {
    /// Being decoded again.
    Loading,
    Ready(FrameDetail),
    Failed(String),
}

/// The detail view of a finding and its frame.
#[derive(Clone, Debug, PartialEq)]
pub struct DetailView {
    pub finding: Finding,
    pub state: DetailState,
    /// The text shown, one line each (the finding, then the frame's tree).
    pub lines: Vec<String>,
    pub scroll: usize,
}

impl DetailView {
    fn new(finding: Finding) -> Self {
        let mut d = DetailView {
            finding,
            state: DetailState::Loading,
            lines: Vec::new(),
            scroll: 0,
        };
        d.lines = d.make_lines();
        d
    }

    fn make_lines(&self) -> Vec<String> {
        let f = &self.finding;
        let (kind, name) = (f.subject.kind_text(), f.subject.kind_and_name().1);
        let mut out = vec![
            format!(
                "{} {} ({} {}), frame {}",
                f.severity, f.rule, kind, name, f.frame
            ),
            f.message.clone(),
            format!("expected: {}", f.expected),
            format!("observed: {}", f.observed),
            String::new(),
        ];
        match &self.state {
            DetailState::Loading => out.push(format!("Decoding frame {} again…", f.frame)),
            DetailState::Failed(e) => out.push(format!("Frame {}: {e}", f.frame)),
            DetailState::Ready(d) => out.extend(d.lines()),
        }
        out
    }
}

/// A view over the whole screen.
#[derive(Clone, Debug, PartialEq)]
pub enum Overlay {
    None,
    Help,
    Detail(Box<DetailView>),
}

/// A subject's name as the lists show it.
pub fn subject_label(s: &Subject) -> &str {
    s.kind_and_name().1
}

/// One subject as the UI holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub subject: Subject,
    pub series: Series,
    /// Findings counted in its windows (exact, whatever `--max-findings` kept).
    pub deviations: u64,
}

impl Entry {
    pub fn name(&self) -> &str {
        self.subject.kind_and_name().1
    }

    /// What the subject is: the analyser's description, or the kind of subject.
    pub fn kind(&self) -> String {
        if self.series.kind.is_empty() {
            self.subject.kind_text().to_string()
        } else {
            self.series.kind.clone()
        }
    }
}

/// What a key asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Quit,
    /// Esc: close the overlay, cancel the filter being typed, or clear the one kept on the
    /// focused list. Never quits (q does): an Esc too many must not end the session.
    Back,
    Up,
    Down,
    PageUp,
    PageDown,
    Home,
    End,
    /// Earlier / later in the chart.
    Left,
    Right,
    NextPane,
    PrevPane,
    Enter,
    /// A longer / shorter display interval.
    Coarser,
    Finer,
    StartFilter,
    FilterChar(char),
    FilterBackspace,
    FilterDone,
    Help,
    /// Findings of every subject, or of the selected one.
    ToggleAllFindings,
    /// Runs of alike findings folded into one row each, or every finding on its own row.
    ToggleEachFinding,
}

/// How keys are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Normal,
    /// Typing a filter.
    Filter,
    /// Help or detail shown.
    Overlay,
}

/// Rows (and chart columns) the panes have on screen, from the last layout: for paging and for
/// keeping the selection in view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Viewport {
    pub pools: usize,
    pub members: usize,
    pub findings: usize,
    pub detail: usize,
    /// Columns of the detail view (its lines are wrapped to them).
    pub detail_width: usize,
    pub chart_columns: usize,
}

pub struct App {
    pub(crate) title: String,
    pub(crate) palette: Palette,
    pub(crate) base_interval_ns: u64,
    /// The display interval as a multiple of the base interval.
    pub(crate) multiple: u64,
    pub(crate) subjects: Vec<Entry>,
    /// Kept findings, by frame.
    pub(crate) findings: Vec<Finding>,
    pub(crate) findings_total: u64,
    pub(crate) findings_dropped: u64,
    pub(crate) dropped_subjects: u64,
    /// The capture's first frame (the chart's time zero).
    pub(crate) origin: Option<Timestamp>,
    pub(crate) progress: Progress,
    pub(crate) focus: Pane,
    pub(crate) selected: Option<Subject>,
    pub(crate) pool_offset: usize,
    pub(crate) member_offset: usize,
    pub(crate) finding_sel: usize,
    pub(crate) finding_offset: usize,
    /// Chart columns between the latest one and the last one drawn.
    pub(crate) chart_back: u64,
    pub(crate) pool_filter: String,
    pub(crate) finding_filter: String,
    pub(crate) editing: Option<FilterTarget>,
    pub(crate) all_findings: bool,
    /// Every finding on its own row (runs of alike findings are folded otherwise).
    pub(crate) each_finding: bool,
    pub(crate) overlay: Overlay,
    /// Lines of the help scrolled past (when it does not fit).
    pub(crate) help_scroll: usize,
    pub(crate) viewport: Viewport,
    detail_request: Option<u64>,
    quit: bool,
    /// Indices into `subjects` that pass the pool filter.
    pub(crate) subject_rows: Vec<usize>,
    /// Indices into `findings` shown in the findings pane: a finding, or the first of a run
    /// of alike findings folded into its row.
    pub(crate) finding_rows: Vec<usize>,
    /// Per row: the findings folded under it (beyond its own) and the frame of the last one.
    pub(crate) finding_folds: Vec<Folded>,
}

/// Alike findings folded under a row of the findings pane (as `check`'s text report folds them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Folded {
    /// How many, beyond the row's own finding; 0: none.
    pub more: usize,
    pub last_frame: u64,
}

fn contains_ci(haystack: &str, needle_lower: &str) -> bool {
    needle_lower.is_empty() || haystack.to_lowercase().contains(needle_lower)
}

/// Moves `pos` by `delta` within `0..len`.
fn step(pos: usize, delta: isize, len: usize) -> usize {
    if len == 0 {
        return 0;
    }
    pos.saturating_add_signed(delta).min(len - 1)
}

/// The offset that keeps `sel` in a window of `rows` rows starting near `offset`.
fn follow(offset: usize, sel: usize, rows: usize) -> usize {
    let rows = rows.max(1);
    if sel < offset {
        sel
    } else if sel >= offset + rows {
        sel + 1 - rows
    } else {
        offset
    }
}

impl App {
    pub fn new(title: impl Into<String>, base_interval_ns: u64, palette: Palette) -> Self {
        App {
            title: title.into(),
            palette,
            base_interval_ns: base_interval_ns.max(1),
            multiple: 1,
            subjects: Vec::new(),
            findings: Vec::new(),
            findings_total: 0,
            findings_dropped: 0,
            dropped_subjects: 0,
            origin: None,
            progress: Progress::default(),
            focus: Pane::Pools,
            selected: None,
            pool_offset: 0,
            member_offset: 0,
            finding_sel: 0,
            finding_offset: 0,
            chart_back: 0,
            pool_filter: String::new(),
            finding_filter: String::new(),
            editing: None,
            all_findings: false,
            each_finding: false,
            overlay: Overlay::None,
            help_scroll: 0,
            viewport: Viewport::default(),
            detail_request: None,
            quit: false,
            subject_rows: Vec::new(),
            finding_rows: Vec::new(),
            finding_folds: Vec::new(),
        }
    }

    /// Takes in what the loader sent.
    pub fn apply(&mut self, u: Update) {
        self.progress = u.progress;
        let Some(d) = u.data else {
            return;
        };
        self.subjects = d
            .series
            .into_iter()
            .map(|(subject, series)| Entry {
                deviations: series
                    .windows
                    .iter()
                    .fold(0u64, |n, w| n.saturating_add(w.findings)),
                subject,
                series,
            })
            .collect();
        if d.all_findings {
            self.findings.clear();
        }
        if !d.new_findings.is_empty() || d.all_findings {
            self.findings.extend(d.new_findings);
            // Analysers may report late; a stable sort keeps their order within a frame.
            self.findings.sort_by_key(|f| f.frame);
        }
        self.findings_total = d.findings_total;
        self.findings_dropped = d.findings_dropped;
        self.dropped_subjects = d.dropped_subjects;
        self.origin = self.origin.or(d.origin);
        self.recompute();
    }

    pub fn progress(&self) -> &Progress {
        &self.progress
    }

    pub fn should_quit(&self) -> bool {
        self.quit
    }

    pub fn mode(&self) -> Mode {
        if self.overlay != Overlay::None {
            Mode::Overlay
        } else if self.editing.is_some() {
            Mode::Filter
        } else {
            Mode::Normal
        }
    }

    pub fn set_viewport(&mut self, v: Viewport) {
        self.viewport = v;
        // No more scrolled than the list needs at this height (it may have grown), then the
        // selection in view.
        let fit = |offset: usize, len: usize, rows: usize| offset.min(len.saturating_sub(rows));
        self.pool_offset = follow(
            fit(self.pool_offset, self.subject_rows.len(), v.pools),
            self.selected_position().unwrap_or(0),
            v.pools,
        );
        self.finding_offset = follow(
            fit(self.finding_offset, self.finding_rows.len(), v.findings),
            self.finding_sel,
            v.findings,
        );
        self.member_offset = fit(self.member_offset, self.member_rows(), v.members);
        if self.overlay == Overlay::Help {
            self.scroll_help(0, None);
        }
    }

    /// A frame the detail view waits for: the caller decodes it and calls [`App::set_detail`].
    pub fn take_detail_request(&mut self) -> Option<u64> {
        self.detail_request.take()
    }

    /// The decoded frame (or why there is none) for the detail view, if it still waits for it.
    pub fn set_detail(&mut self, frame: u64, state: DetailState) {
        if let Overlay::Detail(d) = &mut self.overlay {
            if d.finding.frame == frame && d.state == DetailState::Loading {
                d.state = state;
                d.lines = d.make_lines();
            }
        }
    }

    /// The display interval in nanoseconds.
    pub fn display_ns(&self) -> u64 {
        self.base_interval_ns.saturating_mul(self.multiple)
    }

    #[cfg(test)]
    pub fn subjects(&self) -> &[Entry] {
        &self.subjects
    }

    #[cfg(test)]
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// The subjects that pass the pool filter, in order.
    pub fn visible_subjects(&self) -> impl Iterator<Item = &Entry> {
        self.subject_rows
            .iter()
            .filter_map(|&i| self.subjects.get(i))
    }

    /// The findings pane's rows: a finding and what is folded under it.
    pub fn finding_lines(&self) -> impl Iterator<Item = (&Finding, Folded)> {
        self.finding_rows
            .iter()
            .zip(&self.finding_folds)
            .filter_map(|(&i, &fold)| self.findings.get(i).map(|f| (f, fold)))
    }

    /// Findings the pane lists, those folded included.
    pub fn findings_listed(&self) -> usize {
        self.finding_rows.len() + self.finding_folds.iter().map(|f| f.more).sum::<usize>()
    }

    pub fn selected_entry(&self) -> Option<&Entry> {
        let s = self.selected.as_ref()?;
        self.subjects.iter().find(|e| &e.subject == s)
    }

    /// Position of the selected subject among the visible ones.
    pub fn selected_position(&self) -> Option<usize> {
        let s = self.selected.as_ref()?;
        self.visible_subjects().position(|e| &e.subject == s)
    }

    pub fn selected_finding(&self) -> Option<&Finding> {
        self.finding_rows
            .get(self.finding_sel)
            .and_then(|&i| self.findings.get(i))
    }

    fn recompute(&mut self) {
        let pf = self.pool_filter.to_lowercase();
        self.subject_rows = self
            .subjects
            .iter()
            .enumerate()
            .filter(|(_, e)| contains_ci(e.name(), &pf) || contains_ci(&e.kind(), &pf))
            .map(|(i, _)| i)
            .collect();
        if self.selected_position().is_none() {
            let first = self.visible_subjects().next().map(|e| e.subject.clone());
            if first != self.selected {
                self.selected = first;
                self.reset_subject_views();
            }
        }
        let ff = self.finding_filter.to_lowercase();
        let selected = self.selected.clone();
        // A DHCP pair lists its servers' findings with its own (a server's finding is counted
        // in the pair's windows too).
        let members = match self.selected_entry() {
            Some(e) if matches!(e.subject, Subject::Server(_)) => Some(&e.series.members),
            _ => None,
        };
        let shown = |f: &Finding| {
            Some(&f.subject) == selected.as_ref()
                || matches!((&f.subject, members), (Subject::Server(s), Some(m)) if m.contains_key(s))
        };
        let listed: Vec<usize> = self
            .findings
            .iter()
            .enumerate()
            .filter(|(_, f)| self.all_findings || shown(f))
            .filter(|(_, f)| {
                ff.is_empty()
                    || contains_ci(f.rule, &ff)
                    || contains_ci(&f.message, &ff)
                    || contains_ci(f.severity.name(), &ff)
                    || f.frame.to_string().contains(&ff)
            })
            .map(|(i, _)| i)
            .collect();
        self.finding_rows.clear();
        self.finding_folds.clear();
        let list: Vec<&Finding> = listed
            .iter()
            .filter_map(|&i| self.findings.get(i))
            .collect();
        let (runs, run_of) = if self.each_finding {
            (Vec::new(), Vec::new())
        } else {
            runs(&list)
        };
        for (k, (&i, f)) in listed.iter().zip(&list).enumerate() {
            match run_of.get(k).and_then(|&r| runs.get(r)) {
                Some(r) if r.len >= RUN_FOLDED => {
                    if r.first == k {
                        self.finding_rows.push(i);
                        self.finding_folds.push(Folded {
                            more: r.len - 1,
                            last_frame: list.get(r.last).map_or(f.frame, |l| l.frame),
                        });
                    }
                }
                _ => {
                    self.finding_rows.push(i);
                    self.finding_folds.push(Folded::default());
                }
            }
        }
        self.finding_sel = self
            .finding_sel
            .min(self.finding_rows.len().saturating_sub(1));
        self.finding_offset = follow(
            self.finding_offset.min(self.finding_sel),
            self.finding_sel,
            self.viewport.findings,
        );
        self.pool_offset = follow(
            self.pool_offset,
            self.selected_position().unwrap_or(0),
            self.viewport.pools,
        );
    }

    fn reset_subject_views(&mut self) {
        self.finding_sel = 0;
        self.finding_offset = 0;
        self.member_offset = 0;
        self.chart_back = 0;
    }

    fn move_subject(&mut self, delta: isize, absolute: Option<bool>) {
        let n = self.subject_rows.len();
        if n == 0 {
            return;
        }
        let pos = self.selected_position().unwrap_or(0);
        let to = match absolute {
            Some(true) => 0,
            Some(false) => n - 1,
            None => step(pos, delta, n),
        };
        let subject = self
            .subject_rows
            .get(to)
            .and_then(|&i| self.subjects.get(i))
            .map(|e| e.subject.clone());
        if subject != self.selected {
            self.selected = subject;
            self.reset_subject_views();
            self.recompute();
        }
        self.pool_offset = follow(self.pool_offset, to, self.viewport.pools);
    }

    fn move_finding(&mut self, delta: isize, absolute: Option<bool>) {
        let n = self.finding_rows.len();
        self.finding_sel = match absolute {
            Some(true) => 0,
            Some(false) => n.saturating_sub(1),
            None => step(self.finding_sel, delta, n),
        };
        self.finding_offset = follow(
            self.finding_offset,
            self.finding_sel,
            self.viewport.findings,
        );
    }

    /// Lines the members pane lists for the selected subject.
    pub fn member_rows(&self) -> usize {
        self.selected_entry()
            .map_or(0, |e| match chart::kind(&e.series) {
                Some(chart::PlotKind::Gauges) => chart::gauge_names(&e.series).len(),
                _ => chart::member_ids(&e.series).len(),
            })
    }

    fn scroll_members(&mut self, delta: isize, absolute: Option<bool>) {
        let max = self
            .member_rows()
            .saturating_sub(self.viewport.members.max(1));
        self.member_offset = match absolute {
            Some(true) => 0,
            Some(false) => max,
            None => self.member_offset.saturating_add_signed(delta).min(max),
        };
    }

    fn chart_max_back(&self) -> u64 {
        let Some(e) = self.selected_entry() else {
            return 0;
        };
        let (_, b) = chart::buckets(&e.series, self.display_ns());
        match (b.first(), b.last()) {
            (Some(f), Some(l)) => {
                let span = l.0.saturating_sub(f.0).saturating_add(1);
                span.saturating_sub(self.viewport.chart_columns.max(1) as u64)
            }
            _ => 0,
        }
    }

    fn scroll_chart(&mut self, later: bool) {
        let by = (self.viewport.chart_columns / 4).max(1) as u64;
        self.chart_back = if later {
            self.chart_back.saturating_sub(by)
        } else {
            self.chart_back
                .saturating_add(by)
                .min(self.chart_max_back())
        };
    }

    fn scroll_detail(&mut self, delta: isize, absolute: Option<bool>) {
        let rows = self.viewport.detail.max(1);
        let width = self.viewport.detail_width;
        if let Overlay::Detail(d) = &mut self.overlay {
            let max = wrap(&d.lines, width).len().saturating_sub(rows);
            d.scroll = match absolute {
                Some(true) => 0,
                Some(false) => max,
                None => d.scroll.saturating_add_signed(delta).min(max),
            };
        }
    }

    /// The help scrolled by `delta` lines, as far as it has lines below the screen.
    fn scroll_help(&mut self, delta: isize, absolute: Option<bool>) {
        // The view's help box: the body less its border, one column of padding.
        let lines = help_lines(
            self.viewport.detail_width.saturating_sub(1),
            self.palette.has_colour(),
        )
        .len();
        let max = lines.saturating_sub(self.viewport.detail.max(1));
        self.help_scroll = match absolute {
            Some(true) => 0,
            Some(false) => max,
            None => self.help_scroll.saturating_add_signed(delta).min(max),
        };
    }

    /// Up/down by `delta` rows (or to the start/end) in whatever has the focus.
    fn vertical(&mut self, delta: isize, absolute: Option<bool>) {
        if matches!(self.overlay, Overlay::Detail(_)) {
            return self.scroll_detail(delta, absolute);
        }
        if self.overlay == Overlay::Help {
            return self.scroll_help(delta, absolute);
        }
        match self.focus {
            // The chart pane steps through the pools too, so they can be looked at one by one.
            Pane::Pools | Pane::Chart => self.move_subject(delta, absolute),
            Pane::Members => self.scroll_members(delta, absolute),
            Pane::Findings => self.move_finding(delta, absolute),
        }
    }

    fn page(&self) -> isize {
        let rows = match (&self.overlay, self.focus) {
            (Overlay::Detail(_) | Overlay::Help, _) => self.viewport.detail,
            (_, Pane::Pools | Pane::Chart) => self.viewport.pools,
            (_, Pane::Members) => self.viewport.members,
            (_, Pane::Findings) => self.viewport.findings,
        };
        isize::try_from(rows.max(1)).unwrap_or(1)
    }

    fn filter_mut(&mut self, t: FilterTarget) -> &mut String {
        match t {
            FilterTarget::Pools => &mut self.pool_filter,
            FilterTarget::Findings => &mut self.finding_filter,
        }
    }

    pub fn handle(&mut self, a: Action) {
        match a {
            Action::Quit => self.quit = true,
            Action::Back => {
                if self.overlay != Overlay::None {
                    self.overlay = Overlay::None;
                } else if let Some(t) = self.editing.take() {
                    self.filter_mut(t).clear();
                    self.recompute();
                } else {
                    let t = if self.focus == Pane::Findings {
                        FilterTarget::Findings
                    } else {
                        FilterTarget::Pools
                    };
                    if !self.filter_mut(t).is_empty() {
                        self.filter_mut(t).clear();
                        self.recompute();
                    }
                }
            }
            Action::Up => self.vertical(-1, None),
            Action::Down => self.vertical(1, None),
            Action::PageUp => self.vertical(-self.page(), None),
            Action::PageDown => self.vertical(self.page(), None),
            Action::Home => self.vertical(0, Some(true)),
            Action::End => self.vertical(0, Some(false)),
            Action::Left => self.scroll_chart(false),
            Action::Right => self.scroll_chart(true),
            Action::NextPane => self.focus = self.focus.next(),
            Action::PrevPane => self.focus = self.focus.prev(),
            Action::Enter => match self.focus {
                Pane::Findings => {
                    if let Some(f) = self.selected_finding().cloned() {
                        self.detail_request = Some(f.frame);
                        self.overlay = Overlay::Detail(Box::new(DetailView::new(f)));
                    }
                }
                Pane::Pools => self.focus = Pane::Findings,
                Pane::Chart | Pane::Members => {}
            },
            Action::Coarser => {
                self.multiple = chart::next_multiple(self.base_interval_ns, self.multiple);
                self.chart_back = 0;
            }
            Action::Finer => {
                self.multiple = chart::prev_multiple(self.base_interval_ns, self.multiple);
                self.chart_back = 0;
            }
            Action::StartFilter => {
                self.editing = Some(if self.focus == Pane::Findings {
                    FilterTarget::Findings
                } else {
                    FilterTarget::Pools
                });
            }
            Action::FilterChar(c) => {
                if let Some(t) = self.editing {
                    self.filter_mut(t).push(c);
                    self.recompute();
                }
            }
            Action::FilterBackspace => {
                if let Some(t) = self.editing {
                    self.filter_mut(t).pop();
                    self.recompute();
                }
            }
            Action::FilterDone => self.editing = None,
            Action::Help => {
                self.help_scroll = 0;
                self.overlay = if self.overlay == Overlay::Help {
                    Overlay::None
                } else {
                    Overlay::Help
                };
            }
            Action::ToggleAllFindings => {
                self.all_findings = !self.all_findings;
                self.finding_sel = 0;
                self.finding_offset = 0;
                self.recompute();
            }
            Action::ToggleEachFinding => {
                // The selection stays on its finding, or on the row its run folds into.
                let was = self.finding_rows.get(self.finding_sel).copied();
                self.each_finding = !self.each_finding;
                self.recompute();
                if let Some(was) = was {
                    let row = self.finding_rows.iter().rposition(|&i| i <= was);
                    self.finding_sel = row.unwrap_or(0);
                    self.finding_offset = follow(
                        self.finding_offset.min(self.finding_sel),
                        self.finding_sel,
                        self.viewport.findings,
                    );
                }
            }
        }
    }
}
