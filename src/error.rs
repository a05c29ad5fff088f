//! Decode errors: what was wrong and where.
//!
//! A parser never gives up on a frame silently. Whatever it could not make sense of becomes a
//! [`DecodeError`] with the byte offset where the problem starts (relative to the buffer the parser
//! was given; the pipeline rebases it onto the frame) and a sentence saying what was expected.

use std::borrow::Cow;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    /// Byte offset of the problem, relative to the start of the parsed buffer.
    pub offset: usize,
    /// What was wrong, e.g. "parameter length 3 is shorter than its 4-byte header".
    pub what: Cow<'static, str>,
}

impl DecodeError {
    pub fn new(offset: usize, what: impl Into<Cow<'static, str>>) -> Self {
        DecodeError {
            offset,
            what: what.into(),
        }
    }

    /// "needed N bytes, only M left" at `offset`.
    pub fn truncated(offset: usize, what: &str, needed: usize, left: usize) -> Self {
        DecodeError::new(
            offset,
            format!("truncated {what}: needs {needed} bytes, only {left} left"),
        )
    }

    /// The same error, `delta` bytes further on (for buffers nested in others).
    pub fn shifted(mut self, delta: usize) -> Self {
        self.offset += delta;
        self
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {}: {}", self.offset, self.what)
    }
}

impl std::error::Error for DecodeError {}

/// Collects errors while a parser walks a buffer nested at `base` inside the message.
#[derive(Debug, Default)]
pub struct Errors {
    pub list: Vec<DecodeError>,
}

impl Errors {
    pub fn push(&mut self, offset: usize, what: impl Into<Cow<'static, str>>) {
        self.list.push(DecodeError::new(offset, what));
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn into_vec(self) -> Vec<DecodeError> {
        self.list
    }
}
