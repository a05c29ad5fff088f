//! End-to-end tests against the servers poolshark's users run: Kea 2.2 with its HA hook in
//! load-balancing mode (DHCPv4 and DHCPv6) and ISC dhcpd 4.4 in a failover pair, started by the
//! tests in network namespaces joined by a bridge (`tests/e2e/lab`; 192.0.2.0/24 and
//! 2001:db8::/64), each test in a lab of its own.
//!
//! * `probe_kea`, `probe_isc`: `poolshark probe` finds the map each pair was configured with,
//!   bucket by bucket, and a pair configured wrongly is reported with the exact wrong buckets.
//! * `takeover`: `poolshark capture --check` on the clients' link while clients (built from
//!   the project's emitters) do whole exchanges, one server is killed, its partner takes over,
//!   the server comes back, with a Kea pair and with a dhcpd pair; the report on the captured
//!   file (the takeover finding, the episodes) is checked against the times the test saw.
//!
//! They need root (namespaces, AF_PACKET), iproute2, kea-dhcp4-server, kea-dhcp6-server and
//! isc-dhcp-server; without them they skip and say why, unless `POOLSHARK_REQUIRE_E2E=1`
//! (which `.ci/run` sets as root), which turns the skip into a failure. Every process a test
//! starts is stopped by it, on failure too (drop guards), and its namespaces are removed; labs
//! left by a test process that was killed are removed by the next run.
#![cfg(target_os = "linux")]

mod client;
mod lab;
mod probe_isc;
mod probe_kea;
mod probe_run;
mod servers;
mod takeover;
