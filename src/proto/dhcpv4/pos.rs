//! Where a decoded item sat in the buffer it came from.

/// Offset and length of a decoded item in the buffer given to `parse`.
///
/// A position is not part of an item's value: two items compare equal wherever they were found, so
/// a message built in code equals the same message parsed back from its bytes, and a message
/// parsed, emitted and parsed again equals the first parse.
#[derive(Clone, Copy, Debug, Default, Eq)]
pub struct Pos {
    pub offset: usize,
    pub len: usize,
}

impl Pos {
    pub fn new(offset: usize, len: usize) -> Self {
        Pos { offset, len }
    }

    /// One past the last byte.
    pub fn end(&self) -> usize {
        self.offset.saturating_add(self.len)
    }
}

impl PartialEq for Pos {
    fn eq(&self, _other: &Self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_never_decide_equality() {
        assert_eq!(Pos::new(1, 2), Pos::new(40, 0));
        assert_eq!(Pos::new(10, 4).end(), 14);
        assert_eq!(Pos::new(usize::MAX, 4).end(), usize::MAX);
    }
}
