//! Capture files: pcap (both byte orders, micro- and nanosecond), pcapng (several interfaces, any
//! timestamp resolution), gzip-compressed files and `-` for stdin, read as a stream with
//! pcap-parser.

// Implemented in the dissection-core work (issue 2).
