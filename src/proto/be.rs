//! The leaf parsers of the RSerPool and failover parsers: big-endian integers and byte counts as
//! nom parsers over `&[u8]`, with the results and errors of `nom::number::complete::be_u16` and
//! its kin and of `nom::bytes::complete::take`, for nom's combinators to put together.
//!
//! nom 8.0's own versions advance the input through `Input::take_from`, which nom does not mark
//! `#[inline]`: outside a whole-program (LTO) build, such as the tests' profile, every field read
//! is a call into nom (a fifth of the failover parser's time in `perf`). These split the slice
//! in place.

use nom::error::{Error, ErrorKind};
use nom::IResult;

/// What nom's complete parsers return for input that ends too soon.
#[inline]
fn eof<T>(i: &[u8]) -> IResult<&[u8], T> {
    Err(nom::Err::Error(Error::new(i, ErrorKind::Eof)))
}

/// The next `N` bytes.
#[inline]
fn bytes<const N: usize>(i: &[u8]) -> IResult<&[u8], [u8; N]> {
    match i.split_first_chunk::<N>() {
        Some((b, rest)) => Ok((rest, *b)),
        None => eof(i),
    }
}

/// The next `n` bytes (nom's `take(n)`).
#[inline]
pub(crate) fn take(n: usize) -> impl Fn(&[u8]) -> IResult<&[u8], &[u8]> {
    move |i| match i.split_at_checked(n) {
        Some((b, rest)) => Ok((rest, b)),
        None => eof(i),
    }
}

#[inline]
pub(crate) fn be_u8(i: &[u8]) -> IResult<&[u8], u8> {
    let (rest, [b]) = bytes::<1>(i)?;
    Ok((rest, b))
}

#[inline]
pub(crate) fn be_u16(i: &[u8]) -> IResult<&[u8], u16> {
    let (rest, b) = bytes(i)?;
    Ok((rest, u16::from_be_bytes(b)))
}

#[inline]
pub(crate) fn be_u32(i: &[u8]) -> IResult<&[u8], u32> {
    let (rest, b) = bytes(i)?;
    Ok((rest, u32::from_be_bytes(b)))
}

#[inline]
pub(crate) fn be_i32(i: &[u8]) -> IResult<&[u8], i32> {
    let (rest, b) = bytes(i)?;
    Ok((rest, i32::from_be_bytes(b)))
}

#[inline]
pub(crate) fn be_u128(i: &[u8]) -> IResult<&[u8], u128> {
    let (rest, b) = bytes(i)?;
    Ok((rest, u128::from_be_bytes(b)))
}

#[cfg(test)]
mod tests {
    use nom::number::complete as nom_be;
    use nom::Parser;

    type Res<'a, T> = nom::IResult<&'a [u8], T>;

    #[test]
    fn the_same_as_noms_own() {
        let buf: Vec<u8> = (0..20u8).map(|b| b.wrapping_mul(37)).collect();
        for n in 0..=buf.len() {
            let i = &buf[..n];
            assert_eq!(
                super::be_u8(i),
                nom_be::be_u8::<_, nom::error::Error<&[u8]>>(i) as Res<u8>
            );
            assert_eq!(super::be_u16(i), nom_be::be_u16(i) as Res<u16>);
            assert_eq!(super::be_u32(i), nom_be::be_u32(i) as Res<u32>);
            assert_eq!(super::be_i32(i), nom_be::be_i32(i) as Res<i32>);
            assert_eq!(super::be_u128(i), nom_be::be_u128(i) as Res<u128>);
            for k in 0..=n + 1 {
                assert_eq!(
                    super::take(k)(i),
                    nom::bytes::complete::take::<_, _, nom::error::Error<&[u8]>>(k).parse(i)
                );
            }
        }
    }
}
