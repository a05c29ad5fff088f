//! Where a protocol writes its display tree: into [`Field`]s for `read -V`, filters and
//! columns ([`TreeSink`]), or straight into another form (the JSON `fields` object,
//! `crate::output::json::JsonFields`) without a tree in between.
//!
//! A protocol's writer hands its fields over in tree order: [`TreeOut::open`] a field whose
//! children follow, up to the matching [`TreeOut::close`]; [`TreeOut::leaf`] a field without
//! children. A sink says which display texts it uses, and the writers leave the others unformatted
//! (empty labels, no notes): [`TreeOut::labels`] (labels and the texts `read -V` shows in place
//! of a value, which only the tree view prints) and [`TreeOut::notes`] (a value's description,
//! `Solicit` beside 1, which display filters compare too). `-T fields` reads neither.

use super::Field;

pub trait TreeOut {
    /// Whether labels and shown texts are wanted (the tree view's): when not, a writer need not
    /// format them (the name, value, offset and length are always given).
    fn labels(&self) -> bool;
    /// Whether notes (a value's description) are wanted: the tree view's, and the filters'.
    fn notes(&self) -> bool;
    /// A field whose children come next, up to the matching [`TreeOut::close`].
    fn open(&mut self, f: Field);
    /// The end of the last opened field's children.
    fn close(&mut self);
    /// A field without children.
    fn leaf(&mut self, f: Field) {
        self.open(f);
        self.close();
    }
}

/// The tree itself: the fields as [`Field`]s with their children; by default with every
/// display text ([`TreeSink::with_texts`] for fewer).
#[derive(Debug)]
pub struct TreeSink {
    roots: Vec<Field>,
    open: Vec<Field>,
    labels: bool,
    notes: bool,
}

impl Default for TreeSink {
    fn default() -> Self {
        TreeSink::with_texts(true, true)
    }
}

impl TreeSink {
    /// A tree with labels (and shown texts) only if `labels`, notes only if `notes`.
    pub fn with_texts(labels: bool, notes: bool) -> Self {
        TreeSink {
            roots: Vec::new(),
            open: Vec::new(),
            labels,
            notes,
        }
    }

    /// The top-level fields written (a field left open is closed here).
    pub fn finish(mut self) -> Vec<Field> {
        while !self.open.is_empty() {
            self.close();
        }
        self.roots
    }

    fn attach(&mut self, f: Field) {
        match self.open.last_mut() {
            Some(parent) => parent.children.push(f),
            None => self.roots.push(f),
        }
    }
}

impl TreeOut for TreeSink {
    fn labels(&self) -> bool {
        self.labels
    }

    fn notes(&self) -> bool {
        self.notes
    }

    fn open(&mut self, f: Field) {
        self.open.push(f);
    }

    fn close(&mut self) {
        if let Some(f) = self.open.pop() {
            self.attach(f);
        }
    }

    fn leaf(&mut self, f: Field) {
        self.attach(f);
    }
}

/// A sink that moves every field it is given by `by` bytes before passing it on to another: a
/// message carried in another is written with offsets from its own first byte, and this moves
/// them to where it sits (as [`Field::shift`] moves a built subtree).
pub struct Shifted<'a> {
    out: &'a mut dyn TreeOut,
    by: usize,
}

impl<'a> Shifted<'a> {
    pub fn new(out: &'a mut dyn TreeOut, by: usize) -> Self {
        Shifted { out, by }
    }
}

impl TreeOut for Shifted<'_> {
    fn labels(&self) -> bool {
        self.out.labels()
    }

    fn notes(&self) -> bool {
        self.out.notes()
    }

    fn open(&mut self, mut f: Field) {
        f.shift(self.by);
        self.out.open(f);
    }

    fn close(&mut self) {
        self.out.close();
    }

    fn leaf(&mut self, mut f: Field) {
        f.shift(self.by);
        self.out.leaf(f);
    }
}

/// Writes fields already built as a tree into `out`, in the same order (for the protocols whose
/// writers still build [`Field`]s).
pub fn replay(fields: Vec<Field>, out: &mut dyn TreeOut) {
    for mut f in fields {
        let children = std::mem::take(&mut f.children);
        if children.is_empty() {
            out.leaf(f);
        } else {
            out.open(f);
            replay(children, out);
            out.close();
        }
    }
}
