//! Names of DHCPv6 codes as Wireshark 4.0 prints them (`tshark -G values`), with the RFC names of
//! what Wireshark 4.0 does not know.

/// DUID types (RFC 8415 section 11, RFC 6355).
pub fn duid_type_name(t: u16) -> &'static str {
    match t {
        1 => "link-layer address plus time",
        2 => "assigned by vendor based on Enterprise number",
        3 => "link-layer address",
        4 => "Universally Unique IDentifier (UUID)",
        _ => "Unknown",
    }
}
