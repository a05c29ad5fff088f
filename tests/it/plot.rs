//! `stats --plot` and `check --plot` end to end on the shared captures: the SVG parses as XML
//! (roxmltree) and holds one series per server or member that the captures' READMEs name, the
//! episodes' bands at the times the Kea README gives (within a window), the failover pool's
//! gauges; the PNG decodes (png) to the SVG's size and shows the series' colours.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::common;
use poolshark::output::palette;

const KEA: &str = "dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap";
const FAILOVER: &str = "dhcp-failover/isc-dhcpd-4.4.3-failover.pcap";
const RSPLIB: &str = "rserpool/rsplib-multi-pe.pcap";

/// The Kea README's DUIDs of server1 and server2.
const KEA_SERVERS: [&str; 2] = [
    "00:03:00:01:02:00:00:00:01:01",
    "00:03:00:01:02:00:00:00:02:02",
];

fn tempdir() -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "poolshark-plot-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Seconds since the epoch of 2026-11-30 at `h:m:s` UTC (the shared captures' day).
fn nov30(h: u32, m: u32, s: f64) -> f64 {
    // 2026-11-30 00:00:00 UTC.
    1_795_996_800.0 + f64::from(h * 3600 + m * 60) + s
}

/// Runs `poolshark COMMAND CAPTURE --plot PLOT ARGS...`; returns its standard error.
fn plot(command: &str, capture: &Path, plot: &Path, args: &[&str]) -> String {
    let out = common::poolshark()
        .arg(command)
        .arg(capture)
        .arg("--plot")
        .arg(plot)
        .args(args)
        .output()
        .expect("poolshark runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{command} --plot failed: {stderr}"
    );
    stderr
}

/// The groups of an SVG with `class`, as (data attributes) maps.
fn groups(doc: &roxmltree::Document<'_>, class: &str) -> Vec<Vec<(String, String)>> {
    doc.descendants()
        .filter(|n| n.has_tag_name("g") && n.attribute("class") == Some(class))
        .map(|n| {
            n.attributes()
                .map(|a| (a.name().to_string(), a.value().to_string()))
                .collect()
        })
        .collect()
}

fn attr<'a>(g: &'a [(String, String)], name: &str) -> &'a str {
    g.iter()
        .find(|(k, _)| k == name)
        .map_or("", |(_, v)| v.as_str())
}

/// The members whose series the SVG draws, each once (a line and its points).
fn series_members(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).expect("the SVG is well-formed XML");
    let g = groups(&doc, "series");
    for s in &g {
        let n = doc
            .descendants()
            .find(|n| {
                n.has_tag_name("g")
                    && n.attribute("class") == Some("series")
                    && n.attribute("data-member") == Some(attr(s, "data-member"))
            })
            .map_or(0, |n| n.children().filter(|c| c.is_element()).count());
        assert!(
            n > 0,
            "the series of {} draws nothing",
            attr(s, "data-member")
        );
    }
    g.iter()
        .map(|s| attr(s, "data-member").to_string())
        .collect()
}

/// The size an SVG declares.
fn svg_size(svg: &str) -> (u32, u32) {
    let doc = roxmltree::Document::parse(svg).expect("XML");
    let root = doc.root_element();
    let n = |a: &str| root.attribute(a).and_then(|v| v.parse().ok()).unwrap_or(0);
    (n("width"), n("height"))
}

/// The PNG's size and RGB pixels.
fn decode_png(path: &Path) -> ((u32, u32), Vec<u8>) {
    let file = std::fs::File::open(path).expect("the PNG exists");
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .expect("a PNG header");
    let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut buf).expect("the PNG decodes");
    assert_eq!(info.color_type, png::ColorType::Rgb);
    buf.truncate(info.buffer_size());
    ((info.width, info.height), buf)
}

fn has_colour(pixels: &[u8], (r, g, b): (u8, u8, u8)) -> bool {
    pixels.chunks_exact(3).any(|p| p == [r, g, b])
}

#[test]
fn kea_outage_svg_and_png() {
    let Some(cap) = common::shared_capture(KEA) else {
        return;
    };
    let dir = tempdir();
    let svg_path = dir.join("kea.svg");
    let stderr = plot("stats", &cap, &svg_path, &["--interval", "5s"]);
    assert!(stderr.contains("plot written to"), "{stderr}");
    let svg = std::fs::read_to_string(&svg_path).expect("the SVG is written");
    assert_eq!(series_members(&svg), KEA_SERVERS);
    let doc = roxmltree::Document::parse(&svg).expect("XML");
    // The README's timeline: server2 stopped at 04:08:16.205, server1 declared partner-down at
    // 04:08:23.775 and served both, server2 restarted at 04:08:46.225, and both balanced again
    // from 04:08:50.39. Each band within a window (5 s) of it.
    let bands: Vec<(String, f64, f64)> = groups(&doc, "episode")
        .iter()
        .map(|g| {
            let t = |k: &str| attr(g, k).parse::<f64>().expect("a time");
            (
                attr(g, "data-kind").to_string(),
                t("data-start"),
                t("data-end"),
            )
        })
        .collect();
    let band = |kind: &str| {
        let of: Vec<&(String, f64, f64)> = bands.iter().filter(|b| b.0 == kind).collect();
        assert_eq!(of.len(), 1, "one {kind} band: {bands:?}");
        (of[0].1, of[0].2)
    };
    let near = |t: f64, readme: f64, what: &str| {
        assert!(
            (t - readme).abs() <= 5.0,
            "{what}: {t} is not within 5 s of the README's {readme}"
        )
    };
    let (silent_from, silent_to) = band("peer-silent");
    near(silent_from, nov30(4, 8, 16.205), "server2 stopped");
    assert!(silent_from >= nov30(4, 8, 16.205));
    near(silent_to, nov30(4, 8, 23.775), "partner-down");
    let (takeover_from, _) = band("takeover");
    near(takeover_from, nov30(4, 8, 23.775), "server1 took over");
    let (recovery_from, recovery_to) = band("recovery");
    assert!(
        recovery_from >= nov30(4, 8, 46.225) && recovery_from <= nov30(4, 8, 50.39),
        "the resync starts once server2 is back: {recovery_from}"
    );
    near(recovery_to, nov30(4, 8, 50.39), "both balancing again");
    // The findings: the SOLICITs nobody answered are warnings.
    assert!(groups(&doc, "findings")
        .iter()
        .any(|g| attr(g, "data-severity") == "warning"));

    let png_path = dir.join("kea.png");
    plot("stats", &cap, &png_path, &["--interval", "5s"]);
    let (size, pixels) = decode_png(&png_path);
    assert_eq!(size, svg_size(&svg), "the PNG has the SVG's size");
    assert_eq!(size.0, 1280);
    for (what, rgb) in [
        ("server1's line", palette::series(0).ink()),
        ("server2's line", palette::series(1).ink()),
        ("the takeover band", palette::SERIES[2].tint()),
    ] {
        assert!(has_colour(&pixels, rgb), "the PNG shows {what}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn failover_pair_with_its_pool_panel() {
    let Some(cap) = common::shared_capture(FAILOVER) else {
        return;
    };
    let dir = tempdir();
    let svg_path = dir.join("fo.svg");
    plot("stats", &cap, &svg_path, &["--interval", "10s"]);
    let svg = std::fs::read_to_string(&svg_path).expect("one picture: the pair");
    // The README's primary and secondary.
    assert_eq!(series_members(&svg), ["192.0.2.1", "192.0.2.2"]);
    let doc = roxmltree::Document::parse(&svg).expect("XML");
    let gauges: BTreeSet<String> = groups(&doc, "gauge")
        .iter()
        .map(|g| attr(g, "data-gauge").to_string())
        .collect();
    assert_eq!(
        gauges,
        ["backup", "free", "lts"].map(String::from).into(),
        "the failover panel"
    );
    // The README's phases: the secondary killed 207 s after the start, back at 286 s. The
    // capture starts at its first frame, 04:22:35.121.
    let start = nov30(4, 22, 35.121);
    let bands: Vec<(String, f64, f64)> = groups(&doc, "episode")
        .iter()
        .map(|g| {
            let t = |k: &str| attr(g, k).parse::<f64>().expect("a time");
            (
                attr(g, "data-kind").to_string(),
                t("data-start"),
                t("data-end"),
            )
        })
        .collect();
    let outage: Vec<_> = bands
        .iter()
        .filter(|b| b.0 != "normal" && (b.1 - (start + 207.0)).abs() <= 10.0)
        .collect();
    assert!(
        !outage.is_empty(),
        "a band where the secondary died: {bands:?}"
    );
    assert!(
        bands
            .iter()
            .any(|b| b.0 != "normal" && (b.2 - (start + 286.0)).abs() <= 10.0),
        "a band that ends as the secondary comes back: {bands:?}"
    );

    let png_path = dir.join("fo.png");
    plot("stats", &cap, &png_path, &["--interval", "10s"]);
    let (size, _) = decode_png(&png_path);
    assert_eq!(size, svg_size(&svg));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rsplib_pools_one_file_each() {
    let Some(cap) = common::shared_capture(RSPLIB) else {
        return;
    };
    let dir = tempdir();
    // The README's nine pools and how many PEs registered in each.
    let pools = common::MULTI_PE_POOLS;
    for ext in ["svg", "png"] {
        let stderr = plot("stats", &cap, &dir.join(format!("rsp.{ext}")), &[]);
        assert!(stderr.contains("one file each"), "{stderr}");
    }
    let mut written: Vec<String> = std::fs::read_dir(&dir)
        .expect("the directory")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    written.sort();
    let mut expected: Vec<String> = pools
        .iter()
        .flat_map(|(p, _)| [format!("rsp-{p}.png"), format!("rsp-{p}.svg")])
        .collect();
    expected.sort();
    assert_eq!(written, expected);
    for (pool, pes) in pools {
        let svg = std::fs::read_to_string(dir.join(format!("rsp-{pool}.svg"))).expect("SVG");
        let members = series_members(&svg);
        assert_eq!(members.len() as u64, pes, "{pool}: {members:?}");
        if pool == "RR-Pool" {
            let ids: BTreeSet<&str> = members.iter().map(String::as_str).collect();
            assert_eq!(
                ids,
                [
                    "0x00010001",
                    "0x00010002",
                    "0x00010003",
                    "0x00010004",
                    "0x00010005"
                ]
                .into()
            );
        }
        // Late on, RR's 0x00010005 deregisters and LU's 0x00060004 registers again (the
        // README): both pools' pictures pin events.
        if pool == "RR-Pool" || pool == "LU-Pool" {
            let doc = roxmltree::Document::parse(&svg).expect("XML");
            let pins = doc
                .descendants()
                .find(|n| n.has_tag_name("g") && n.attribute("class") == Some("events"))
                .map_or(0, |g| g.children().filter(|c| c.is_element()).count());
            assert!(pins > 0, "{pool}: no events drawn");
        }
        let (size, _) = decode_png(&dir.join(format!("rsp-{pool}.png")));
        assert_eq!(size, svg_size(&svg), "{pool}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_plot_file_needs_a_known_extension() {
    let Some(cap) = common::shared_capture(KEA) else {
        return;
    };
    let out = common::poolshark()
        .arg("stats")
        .arg(&cap)
        .args(["--plot", "balance.pdf"])
        .output()
        .expect("poolshark runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(".svg or .png"), "{stderr}");
}

#[test]
fn check_plots_only_what_has_findings() {
    let (Some(kea), Some(rsplib)) = (common::shared_capture(KEA), common::shared_capture(RSPLIB))
    else {
        return;
    };
    let dir = tempdir();
    // The Kea pair: SOLICITs nobody answered while server2 was down (its README).
    let svg_path = dir.join("kea.svg");
    plot("check", &kea, &svg_path, &[]);
    let svg = std::fs::read_to_string(&svg_path).expect("the pair has findings");
    assert_eq!(series_members(&svg), KEA_SERVERS);
    // RSPLIB chose every answer as its own code does (its README): nothing to plot.
    let stderr = plot("check", &rsplib, &dir.join("rsp.svg"), &[]);
    assert!(stderr.contains("nothing to plot"), "{stderr}");
    assert_eq!(
        std::fs::read_dir(&dir).expect("the directory").count(),
        1,
        "only the Kea picture"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The README's picture is the one `scripts/readme-pictures` makes from the Kea capture with the
/// poolshark of this checkout, not one kept by hand.
#[test]
fn the_readme_picture_is_made_by_its_command() {
    let Some(cap) = common::shared_capture(KEA) else {
        return;
    };
    let dir = tempdir();
    let made = dir.join("kea-outage.svg");
    plot("stats", &cap, &made, &["--interval", "5s"]);
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/img/kea-outage.svg");
    let committed = std::fs::read_to_string(committed).expect("docs/img/kea-outage.svg");
    let made = std::fs::read_to_string(made).expect("the SVG");
    assert!(
        committed == made,
        "docs/img/kea-outage.svg is not what this poolshark draws: run scripts/readme-pictures"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
