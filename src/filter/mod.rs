//! poolshark's two filter languages, each compiled by its own module: [`display`], Wireshark's
//! display filters (`read -Y`, `capture -Y`) and the `-T fields` columns, tested on decoded
//! frames; and [`capture`], the capture filters (`capture -f`, the default filter) compiled to
//! classic BPF for the kernel.

pub mod capture;
pub mod display;
