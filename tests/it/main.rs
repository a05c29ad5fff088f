//! The integration tests, in one test binary: each module was its own binary once, and linking
//! forty of them (each through thin LTO) was most of CI's build time. Run one module with
//! `cargo test --profile tests --test it -- MODULE::`.

mod common;
mod dhcp_support;
mod fo_compare;
mod fo_events;
mod pdml;

mod bounds;
mod capture_filter_tcpdump;
mod check_failover;
mod cli_hash;
mod config_check;
mod decode_only;
mod dhcp_check_captures;
mod dhcp_check_planted;
mod dhcp_dhcproto;
mod dhcp_episodes;
mod dhcp_lb_captures;
mod dhcp_roundtrip;
mod dhcp_tshark;
mod display_filter;
mod dissect_vs_tshark;
#[path = "../e2e/mod.rs"]
mod e2e;
mod export_parquet;
mod failover_balance_logs;
mod failover_crafted_tshark;
mod failover_throughput;
mod failover_tshark;
mod fields_vs_tshark;
mod fixtures;
mod frame_vs_tshark;
mod fuzz_inputs;
mod fuzz_regressions;
mod generate;
mod handoff;
mod layers_vs_tshark;
mod leases_cli;
mod leases_dhcpd_pools;
mod leases_files;
mod leases_kea;
mod link_types;
mod live_capture;
mod metrics;
mod parallel_files;
mod policy_rsplib_replay;
mod probe_cli;
mod proptest_roundtrip;
mod read_vs_tshark;
mod read_write;
mod robustness;
mod roundtrip;
mod rserpool_check;
mod rserpool_check_captures;
mod rserpool_tshark;
mod sctp_checksums;
mod simulate;
mod source_formats;
mod source_vs_tshark;
mod stats;
mod streams_vs_tshark;
mod time_formats;
mod truncation;
mod tui_tmux;
mod tunnels;
