//! Opening the byte stream behind a capture: a file or stdin, gunzipped when it starts with the gzip
//! magic (whatever its name), with the first bytes read ahead so that the format can be recognised
//! even when the stream hands them out a few at a time (pipes, gzip).

use std::fs::File;
use std::io::{self, BufReader, Chain, Cursor, Read};
use std::path::Path;
use std::sync::{Arc, Mutex};

use flate2::read::MultiGzDecoder;

/// Any byte stream the capture reader can own.
pub type BoxedRead = Box<dyn Read + Send>;

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The last read error, kept aside because pcap-parser reports any read error as an opaque
/// `ReadError`.
pub type ErrorSlot = Arc<Mutex<Option<io::Error>>>;

/// Opens `path` (`-` is stdin) and undoes gzip compression if the stream starts with its magic.
pub fn open_path(path: &Path) -> io::Result<(BoxedRead, ErrorSlot)> {
    let raw: BoxedRead = if path.as_os_str() == "-" {
        Box::new(io::stdin())
    } else {
        Box::new(File::open(path)?)
    };
    ungzip(Box::new(BufReader::with_capacity(1 << 16, raw)))
}

/// Wraps `r` in a gzip decoder when it starts with the gzip magic (a multi-member decoder, as
/// `gzip -c a b > c` and pigz write several members).
pub fn ungzip(mut r: BoxedRead) -> io::Result<(BoxedRead, ErrorSlot)> {
    let head = read_prefix(&mut r, GZIP_MAGIC.len())?;
    let is_gzip = head.as_slice() == GZIP_MAGIC;
    let rejoined = Box::new(Cursor::new(head).chain(r));
    let slot = ErrorSlot::default();
    let inner: BoxedRead = if is_gzip {
        Box::new(MultiGzDecoder::new(rejoined))
    } else {
        rejoined
    };
    Ok((
        Box::new(Retrying {
            inner,
            slot: slot.clone(),
        }),
        slot,
    ))
}

/// Reads up to `n` bytes, fewer only at the end of the stream.
pub fn read_prefix(r: &mut impl Read, n: usize) -> io::Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(n);
    r.by_ref().take(n as u64).read_to_end(&mut buf)?;
    Ok(buf)
}

/// Puts bytes already read back in front of the rest of the stream.
pub fn rejoin(prefix: Vec<u8>, rest: BoxedRead) -> Chain<Cursor<Vec<u8>>, BoxedRead> {
    Cursor::new(prefix).chain(rest)
}

/// pcap-parser turns any read error into an opaque `ReadError` and gives up: a read interrupted by
/// a signal is retried here, and any other error is kept in the slot for the message.
struct Retrying {
    inner: BoxedRead,
    slot: ErrorSlot,
}

impl Read for Retrying {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.inner.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let copy = io::Error::new(e.kind(), e.to_string());
                    if let Ok(mut s) = self.slot.lock() {
                        *s = Some(e);
                    }
                    return Err(copy);
                }
                r => return r,
            }
        }
    }
}
