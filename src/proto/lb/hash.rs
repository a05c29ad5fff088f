//! The RFC 3074 load-balancing hash: a Pearson hash of the client's service transaction id
//! (STID) that picks one of 256 hash buckets.
//!
//! ISC DHCP (`server/failover.c`) and Kea (`high_availability/query_filter.cc`) compute exactly
//! this: the state starts at the key length modulo 256, the key is mixed in from its last byte to
//! its first, each step `state = T[state ^ byte]`. The empty key therefore lands in bucket 0.

/// The RFC 3074 mixing table `T`: a permutation of 0..=255 (`pearson-table.txt` in the shared
/// specs; identical in ISC DHCP and Kea).
pub const PEARSON_TABLE: [u8; 256] = [
    251, 175, 119, 215, 81, 14, 79, 191, 103, 49, 181, 143, 186, 157, 0, 232, //
    31, 32, 55, 60, 152, 58, 17, 237, 174, 70, 160, 144, 220, 90, 57, 223, //
    59, 3, 18, 140, 111, 166, 203, 196, 134, 243, 124, 95, 222, 179, 197, 65, //
    180, 48, 36, 15, 107, 46, 233, 130, 165, 30, 123, 161, 209, 23, 97, 16, //
    40, 91, 219, 61, 100, 10, 210, 109, 250, 127, 22, 138, 29, 108, 244, 67, //
    207, 9, 178, 204, 74, 98, 126, 249, 167, 116, 34, 77, 193, 200, 121, 5, //
    20, 113, 71, 35, 128, 13, 182, 94, 25, 226, 227, 199, 75, 27, 41, 245, //
    230, 224, 43, 225, 177, 26, 155, 150, 212, 142, 218, 115, 241, 73, 88, 105, //
    39, 114, 62, 255, 192, 201, 145, 214, 168, 158, 221, 148, 154, 122, 12, 84, //
    82, 163, 44, 139, 228, 236, 205, 242, 217, 11, 187, 146, 159, 64, 86, 239, //
    195, 42, 106, 198, 118, 112, 184, 172, 87, 2, 173, 117, 176, 229, 247, 253, //
    137, 185, 99, 164, 102, 147, 45, 66, 231, 52, 141, 211, 194, 206, 246, 238, //
    56, 110, 78, 248, 63, 240, 189, 93, 92, 51, 53, 183, 19, 171, 72, 50, //
    33, 104, 101, 69, 8, 252, 83, 120, 76, 135, 85, 54, 202, 125, 188, 213, //
    96, 235, 136, 208, 162, 129, 190, 132, 156, 38, 47, 1, 7, 254, 24, 4, //
    216, 131, 89, 21, 28, 133, 37, 153, 149, 80, 170, 68, 6, 169, 234, 151, //
];

/// The hash bucket (0..=255) of a service transaction id.
pub fn bucket(stid: &[u8]) -> u8 {
    // Both implementations store the length in an 8-bit variable: only its low byte counts.
    let mut state = (stid.len() % 256) as u8;
    for &byte in stid.iter().rev() {
        state = PEARSON_TABLE[usize::from(state ^ byte)];
    }
    state
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `T[i]`, spelled out so that each expected value below can be checked against the table.
    fn t(i: u8) -> u8 {
        PEARSON_TABLE[usize::from(i)]
    }

    #[test]
    fn table_is_a_permutation_with_the_documented_ends() {
        let mut seen = [false; 256];
        for &v in &PEARSON_TABLE {
            assert!(!seen[usize::from(v)], "{v} appears twice");
            seen[usize::from(v)] = true;
        }
        assert_eq!(PEARSON_TABLE[0], 251);
        assert_eq!(PEARSON_TABLE[255], 151);
    }

    #[test]
    fn table_matches_the_shared_spec_file() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/specs/pearson-table.txt"
        );
        let Ok(text) = std::fs::read_to_string(path) else {
            assert!(
                std::env::var_os("POOLSHARK_REQUIRE_SHARED").is_none(),
                "POOLSHARK_REQUIRE_SHARED is set but {path} cannot be read"
            );
            crate::test_support::skip("../shared/specs/pearson-table.txt is absent");
            return;
        };
        let mut from_file = Vec::new();
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let (index, values) = line.split_once(':').expect("line has 'N:'");
            let index: usize = index.trim().parse().expect("index");
            assert_eq!(index, from_file.len(), "lines are in order");
            from_file.extend(
                values
                    .split_whitespace()
                    .map(|v| v.parse::<u8>().expect("u8")),
            );
        }
        assert_eq!(from_file, PEARSON_TABLE.to_vec());
    }

    #[test]
    fn empty_key_is_bucket_zero() {
        // State starts at length 0 and no byte is mixed in.
        assert_eq!(bucket(&[]), 0);
    }

    #[test]
    fn isc_unit_test_key() {
        // ISC's load_bal_unittest.c uses hlen 1, chaddr 14: state 1, then T[1 ^ 0x0e] = T[15].
        assert_eq!(t(15), 232);
        assert_eq!(bucket(&[0x0e]), 232);
    }

    #[test]
    fn hand_checked_vectors() {
        // One byte: state = 1, then T[1 ^ b].
        assert_eq!(t(1), 175);
        assert_eq!(bucket(&[0x00]), 175);
        assert_eq!(t(0), 251);
        assert_eq!(bucket(&[0x01]), 251);
        assert_eq!(t(254), 234);
        assert_eq!(bucket(&[0xff]), 234);

        // Two bytes [00 02]: state 2; last byte first: T[2 ^ 2] = T[0] = 251; then
        // T[251 ^ 0x00] = T[251] = 68.
        assert_eq!(t(251), 68);
        assert_eq!(bucket(&[0x00, 0x02]), 68);
        // The order matters: [02 00]: state 2; T[2 ^ 0] = T[2] = 119; T[119 ^ 2] = T[117] = 26.
        assert_eq!(t(2), 119);
        assert_eq!(t(117), 26);
        assert_eq!(bucket(&[0x02, 0x00]), 26);

        // Three bytes [01 02 03]: state 3; T[3 ^ 3] = T[0] = 251; T[251 ^ 2] = T[249] = 80;
        // T[80 ^ 1] = T[81] = 9.
        assert_eq!(t(249), 80);
        assert_eq!(t(81), 9);
        assert_eq!(bucket(&[0x01, 0x02, 0x03]), 9);
    }

    #[test]
    fn length_counts_modulo_256() {
        // A 256-byte key starts from state 0 like the empty key; with zero bytes every step is
        // T[state], so the result is T applied 256 times to 0.
        let mut expected = 0u8;
        for _ in 0..256 {
            expected = t(expected);
        }
        assert_eq!(bucket(&[0u8; 256]), expected);
        // A 257-byte key starts from state 1 instead.
        let mut expected = 1u8;
        for _ in 0..257 {
            expected = t(expected);
        }
        assert_eq!(bucket(&[0u8; 257]), expected);
    }
}
