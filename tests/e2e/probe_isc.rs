//! `poolshark probe` against ISC dhcpd 4.4 failover pairs. dhcpd's rule (dhcpd.conf(5), NOTES.md
//! section 2): a DISCOVER's bucket is the RFC 3074 hash of its client identifier or chaddr; the
//! primary serves bucket b when bit b & 7 of byte b >> 3 of the map is set (`split N`: the
//! buckets below N).

use super::lab::Lab;
use super::probe_run::probe;
use super::servers::isc_pair;

const PRIMARY: &str = "192.0.2.1";
const SECONDARY: &str = "192.0.2.2";

fn owner(primary: bool) -> String {
    if primary { PRIMARY } else { SECONDARY }.to_string()
}

/// The pair's settings as `check --config` (and so `probe --config`) takes them.
fn config(lab: &Lab, hba: &str) -> String {
    let path = lab.file("pair.toml");
    std::fs::write(
        &path,
        format!(
            "profile = \"isc\"\nhba = \"{hba}\"\n\
             [[server]]\nname = \"primary\"\nrole = \"primary\"\nidentifiers = [\"{PRIMARY}\"]\n\
             [[server]]\nname = \"secondary\"\nrole = \"secondary\"\nidentifiers = [\"{SECONDARY}\"]\n"
        ),
    )
    .expect("config written");
    path.display().to_string()
}

#[test]
fn isc_pair_with_split_128() {
    let Some(lab) = Lab::up() else {
        return;
    };
    let _pair = isc_pair(&lab, "split 128;");
    // The expected map, the profile and the roles from the servers' own dhcpd.conf files, the
    // ones the running pair was started with.
    let primary = lab.file("primary.conf").display().to_string();
    let secondary = lab.file("secondary.conf").display().to_string();
    let run = probe(
        &lab,
        &["--dhcpv4", "--config", &primary, "--config", &secondary],
    );
    run.check_keys_and_privileges();
    run.assert_map(|b| owner(b < 128));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.report["expected"]["source"], "config");
    assert_eq!(run.report["expected"]["hba"], "split:128");
    // The same keys again, the map from poolshark's TOML this time: dhcpd offers each its
    // address of the first run, and has enough.
    let conf = config(&lab, "split:128");
    let again = probe(&lab, &["--dhcpv4", "--config", &conf]);
    again.assert_map(|b| owner(b < 128));
}

#[test]
fn isc_pair_with_an_hba_bitmap() {
    let Some(lab) = Lab::up() else {
        return;
    };
    // An uneven map: no split, not Kea's.
    let pattern = [0xf0u8, 0x0f, 0x33, 0xcc, 0x5a, 0xa5, 0x81, 0x7e];
    let bytes: Vec<u8> = pattern.iter().copied().cycle().take(32).collect();
    let colons: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let _pair = isc_pair(&lab, &format!("hba {};", colons.join(":")));
    let run = probe(
        &lab,
        &[
            "--dhcpv4",
            "--profile",
            "isc",
            "--hba",
            &colons.concat(),
            "--server",
            "primary=192.0.2.1",
            "--server",
            "secondary=192.0.2.2",
        ],
    );
    run.check_keys_and_privileges();
    run.assert_map(|b| owner(bytes[usize::from(b >> 3)] & (1 << (b & 7)) != 0));
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// The primary was given `split 100` where the pair was meant to run `split 128`: the probe,
/// told the intended map, names buckets 100 to 127, served by the secondary.
#[test]
fn isc_pair_with_a_wrong_split_is_caught_bucket_by_bucket() {
    let Some(lab) = Lab::up() else {
        return;
    };
    let _pair = isc_pair(&lab, "split 100;");
    let conf = config(&lab, "split:128");
    let run = probe(&lab, &["--dhcpv4", "--config", &conf]);
    run.check_keys_and_privileges();
    run.assert_map(|b| owner(b < 100));
    assert_eq!(
        run.deviation("wrong_server"),
        (100..128).collect::<Vec<u8>>()
    );
    assert_eq!(run.deviation("both"), Vec::<u8>::new());
    assert_eq!(run.deviation("none"), Vec::<u8>::new());
    assert_eq!(run.code, 1, "{}", run.stderr);
    for b in &run.report["buckets"].as_array().unwrap()[100..128] {
        assert_eq!(b["verdict"], "wrong-server");
        assert_eq!(b["expected"], "primary");
    }
}
