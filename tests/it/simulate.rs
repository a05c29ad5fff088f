//! `poolshark simulate` run as a user would, checked against answers worked out by hand from the
//! policy texts (RFC 5356, draft-ietf-rserpool-policies-01) and NOTES.md's account of RSPLIB.

use crate::common;

use std::process::Output;

use poolshark::analyse::policy::{PeSettings, PolicyKind, Pool, Profile, Rng, DRAFT01, RFC5356};
use proptest::collection::vec;
use proptest::prelude::*;

fn simulate(args: &[&str]) -> Output {
    common::poolshark()
        .arg("simulate")
        .args(args)
        .output()
        .expect("run poolshark")
}

fn stdout_ok(args: &[&str]) -> String {
    let out = simulate(args);
    assert!(
        out.status.success(),
        "poolshark simulate {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

#[test]
fn round_robin_over_three_cycles_1_2_3_1() {
    let args = [
        "--policy",
        "rr",
        "--pe",
        "1",
        "--pe",
        "2",
        "--pe",
        "3",
        "--items",
        "1",
        "--resolutions",
        "4",
    ];
    for profile in ["rfc5356", "draft01", "rsplib"] {
        let mut a = args.to_vec();
        a.extend(["--profile", profile]);
        assert_eq!(stdout_ok(&a), "1\n2\n3\n1\n", "{profile}");
    }
}

#[test]
fn round_robin_json_and_three_item_answers_advancing_by_one() {
    let out = stdout_ok(&[
        "--policy",
        "rr",
        "--pe",
        "1",
        "--pe",
        "2",
        "--pe",
        "3",
        "--resolutions",
        "3",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    assert_eq!(
        v,
        serde_json::json!({"resolutions": [[1, 2, 3], [2, 3, 1], [3, 1, 2]]})
    );
}

#[test]
fn max_increment_moves_the_head_by_that_many() {
    let out = stdout_ok(&[
        "--policy",
        "rr",
        "--pe",
        "1",
        "--pe",
        "2",
        "--pe",
        "3",
        "--pe",
        "4",
        "--pe",
        "5",
        "--items",
        "3",
        "--max-increment",
        "3",
        "--resolutions",
        "3",
    ]);
    assert_eq!(out, "1 2 3\n4 5 1\n2 3 4\n");
}

#[test]
fn wrr_3_1_2_per_profile() {
    let base = [
        "--policy",
        "wrr",
        "--pe",
        "1:weight=3",
        "--pe",
        "2:weight=1",
        "--pe",
        "3:weight=2",
        "--items",
        "1",
        "--resolutions",
        "6",
    ];
    // RSPLIB (NOTES.md section 5): single answers repeat 3,1,2,3,1,1.
    let mut a = base.to_vec();
    a.extend(["--profile", "rsplib"]);
    assert_eq!(stdout_ok(&a), "3\n1\n2\n3\n1\n1\n");
    // The texts' circular list, maximally spread (README): of 6 slots, PE 1's three occurrences
    // stand in slots 0-1, 2-3 and 4-5, PE 2's in 0-5, PE 3's in 0-2 and 3-5, and each slot takes
    // the occurrence that must be placed soonest, ties to the heavier PE: 1, 3, 1, 3, 1, 2.
    let mut a = base.to_vec();
    a.extend(["--profile", "rfc5356"]);
    assert_eq!(stdout_ok(&a), "1\n3\n1\n3\n1\n2\n");
}

/// `simulate`'s single answers under a profile: one PE id per line.
fn wrr_heads(weights: &[u64], profile: &str, rounds: u64) -> Vec<u32> {
    let mut args: Vec<String> = ["--policy", "wrr", "--items", "1", "--profile", profile]
        .map(String::from)
        .to_vec();
    for (i, w) in weights.iter().enumerate() {
        args.push("--pe".into());
        args.push(format!("{}:weight={w}", i + 1));
    }
    let total: u64 = weights.iter().sum();
    args.push("--resolutions".into());
    args.push((total * rounds).to_string());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    stdout_ok(&args)
        .lines()
        .map(|l| l.trim().parse().expect("a PE id"))
        .collect()
}

fn ids_and_weights(weights: &[u64]) -> Vec<(u32, u64)> {
    (1..).zip(weights.iter().copied()).collect()
}

#[test]
fn wrr_lists_of_the_texts_never_repeat_a_pe_they_can_spread() {
    // The case: weights 2, 1, 1 under draft-01, 8 answers: PE 1 every other answer,
    // also across the end of the list (where the smooth sequence gave 1 2 3 1 1 2 3 1).
    assert_eq!(
        wrr_heads(&[2, 1, 1], "draft01", 2),
        [1, 2, 1, 3, 1, 2, 1, 3]
    );
    // The other weight sets of the issue, under both texts, two rounds each: each round the
    // same list, and that list maximally spread read from its first slot.
    for weights in [
        &[1, 1, 2][..],
        &[4, 1, 1, 2],
        &[3, 3, 2],
        &[3, 1, 2],
        &[1, 2, 7],
    ] {
        for profile in ["draft01", "rfc5356"] {
            let heads = wrr_heads(weights, profile, 2);
            let (first, second) = heads.split_at(heads.len() / 2);
            assert_eq!(first, second, "{weights:?} {profile}");
            let faults = common::wrr_spread::faults(first, &ids_and_weights(weights), Some(0));
            assert!(
                faults.is_empty(),
                "{weights:?} {profile}: {first:?}: {faults:?}"
            );
        }
    }
}

/// One round of the texts' list (the reference `simulate` runs), and whether the next round is
/// the same.
fn reference_round(profile: &'static Profile, weights: &[u64]) -> (Vec<u32>, bool) {
    let mut pool = Pool::new(profile, PolicyKind::WeightedRoundRobin).expect("pool");
    for (id, w) in ids_and_weights(weights) {
        let s = PeSettings::new(PolicyKind::WeightedRoundRobin).with_weight(w as u32);
        pool.register(id, s).expect("register");
    }
    let total = weights.iter().sum::<u64>() as usize;
    let mut rng = Rng::new(1);
    let heads: Vec<u32> = (0..2 * total)
        .map(|_| pool.select(1, &mut rng).first().copied().unwrap_or(0))
        .collect();
    let (first, second) = heads.split_at(total);
    (first.to_vec(), first == second)
}

#[test]
fn wrr_lists_are_maximally_spread_for_every_weight_set_up_to_8_pes_and_weight_10() {
    // Every multiset of 1 to 8 weights from 1 to 10 (43,757), registered in ascending and in
    // descending order; the property test below tries other orders.
    fn sets(k: usize, from: u64, acc: &mut Vec<u64>, f: &mut dyn FnMut(&[u64])) {
        if !acc.is_empty() {
            f(acc);
        }
        if k == 0 {
            return;
        }
        for w in from..=10 {
            acc.push(w);
            sets(k - 1, w, acc, f);
            acc.pop();
        }
    }
    let mut tried = 0;
    sets(8, 1, &mut Vec::new(), &mut |ws| {
        let mut down = ws.to_vec();
        down.reverse();
        for weights in [ws.to_vec(), down] {
            let (round, again) = reference_round(&RFC5356, &weights);
            assert!(again, "{weights:?}: {round:?} is not repeated");
            let faults = common::wrr_spread::faults(&round, &ids_and_weights(&weights), Some(0));
            assert!(faults.is_empty(), "{weights:?}: {round:?}: {faults:?}");
            tried += 1;
        }
    });
    assert_eq!(tried, 2 * 43_757);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn wrr_lists_are_maximally_spread_in_any_registration_order(
        weights in vec(1u64..=10, 1..=8),
    ) {
        for profile in [&DRAFT01, &RFC5356] {
            let (round, again) = reference_round(profile, &weights);
            prop_assert!(again, "{:?}: {:?} is not repeated", weights, round);
            let faults = common::wrr_spread::faults(&round, &ids_and_weights(&weights), Some(0));
            prop_assert!(faults.is_empty(), "{:?}: {:?}: {:?}", weights, round, faults);
        }
    }
}

#[test]
fn plu_seed_example_picks_a_over_b() {
    // Draft-01 4.3.1: A (50 % + 10 %) is selected over B (50 % + 50 %). B registers first so that
    // registration order cannot be what picks A.
    for profile in ["rfc5356", "draft01", "rsplib"] {
        let out = stdout_ok(&[
            "--policy",
            "plu",
            "--pe",
            "0xb:load=50%,degradation=50%",
            "--pe",
            "0xa:load=50%,degradation=10%",
            "--items",
            "1",
            "--resolutions",
            "3",
            "--profile",
            profile,
        ]);
        assert_eq!(out, "0xa\n0xa\n0xa\n", "{profile}");
    }
}

#[test]
fn lud_degradation_grows_per_profile() {
    // A: load 10 %, degradation 10 %; B: load 25 %, degradation 1 %.
    // Texts: counter 0 at registration, + degradation per selection: A 10 -> 20 -> 30, so A, A,
    // then B at 25, 26, 27, 28.
    // RSPLIB: 1 x degradation at registration (A 20, B 26), + 2 x per selection (A 40): A, then B
    // from 26 up to 34.
    let args = |profile: &'static str| {
        vec![
            "--policy",
            "lud",
            "--pe",
            "1:load=10%,degradation=10%",
            "--pe",
            "2:load=25%,degradation=1%",
            "--items",
            "1",
            "--resolutions",
            "6",
            "--profile",
            profile,
        ]
    };
    assert_eq!(stdout_ok(&args("rfc5356")), "1\n1\n2\n2\n2\n2\n");
    assert_eq!(stdout_ok(&args("draft01")), "1\n1\n2\n2\n2\n2\n");
    assert_eq!(stdout_ok(&args("rsplib")), "1\n2\n2\n2\n2\n2\n");
}

#[test]
fn priority_answers_descend_and_the_draft_has_no_priority() {
    let out = stdout_ok(&[
        "--policy",
        "priority",
        "--pe",
        "1:priority=10",
        "--pe",
        "2:priority=20",
        "--pe",
        "3:priority=20",
        "--pe",
        "4:priority=5",
        "--items",
        "all",
        "--resolutions",
        "2",
    ]);
    assert_eq!(out, "2 3 1 4\n3 2 1 4\n");
    let out = simulate(&["--policy", "priority", "--profile", "draft01", "--pe", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("draft01"));
}

#[test]
fn randomised_policies_are_reproducible_with_a_seed() {
    let args = |seed: &'static str| {
        vec![
            "--policy",
            "wrand",
            "--pe",
            "1:weight=1",
            "--pe",
            "2:weight=2",
            "--pe",
            "3:weight=7",
            "--items",
            "2",
            "--resolutions",
            "50",
            "--seed",
            seed,
        ]
    };
    let a = stdout_ok(&args("17"));
    assert_eq!(a, stdout_ok(&args("17")));
    assert_ne!(a, stdout_ok(&args("18")));
    // Never the same PE twice in an answer.
    for line in a.lines() {
        let ids: Vec<&str> = line.split(' ').collect();
        assert_eq!(ids.len(), 2);
        assert_ne!(ids[0], ids[1], "{line}");
    }
}

#[test]
fn bad_arguments_say_what_is_wrong() {
    for (args, needle) in [
        (vec!["--policy", "rr", "--pe", "one"], "not a 32-bit number"),
        (
            vec!["--policy", "lu", "--pe", "1:load=150%"],
            "outside 0%..100%",
        ),
        (
            vec!["--policy", "lu", "--pe", "1:colour=red"],
            "unknown key",
        ),
        (
            vec!["--policy", "rr", "--pe", "1", "--pe", "1"],
            "given twice",
        ),
        (vec!["--policy", "xx", "--pe", "1"], "unknown policy"),
        (
            vec!["--policy", "rr", "--pe", "1", "--profile", "rfc1"],
            "unknown profile",
        ),
    ] {
        let out = simulate(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

#[test]
fn rsplib_lud_pool_of_the_shared_capture() {
    // rsplib-multi-pe.pcap, LUD-Pool at registrar 0x11111111, frames 3541-3658: RSPLIB's 40
    // single-item answers for PEs 0x00070001..3 at 10 %/10 %, 20 %/5 %, 30 %/1 % (the README's
    // settings; PE ids shortened to 1..3). The percentages must be encoded as RSPLIB encodes them
    // (30 % is 1288490188, rounded half to even): at frame 3553 PE 3 wins by one unit.
    let out = stdout_ok(&[
        "--policy",
        "lud",
        "--pe",
        "1:load=10%,degradation=10%",
        "--pe",
        "2:load=20%,degradation=5%",
        "--pe",
        "3:load=30%,degradation=1%",
        "--items",
        "1",
        "--resolutions",
        "40",
        "--profile",
        "rsplib",
    ]);
    let wire = "1 2 3 3 3 2 3 3 1 3 3 3 2 3 3 3 3 3 2 3 3 1 3 3 3 2 3 3 3 3 3 2 3 3 1 3 3 3 2 3";
    assert_eq!(out.split_whitespace().collect::<Vec<_>>().join(" "), wire);
}

/// `--items 0` and `--max-increment 0` are read as the profile's defaults (3 items, 1), as a
/// Handle Resolution Option asking for 0 items is; the help said neither, so a user asking for
/// 0 got 3 items without a word.
#[test]
fn zero_items_and_zero_max_increment_are_the_defaults_and_the_help_says_so() {
    let pool = [
        "--policy", "rr", "--pe", "1", "--pe", "2", "--pe", "3", "--pe", "4",
    ];
    let with = |extra: &[&str]| {
        let mut a = pool.to_vec();
        a.extend(["--resolutions", "3"]);
        a.extend(extra);
        stdout_ok(&a)
    };
    let default = with(&[]);
    assert_eq!(default, "1 2 3\n2 3 4\n3 4 1\n");
    assert_eq!(with(&["--items", "0"]), default);
    assert_eq!(with(&["--max-increment", "0"]), default);
    let help = stdout_ok(&["--help"]);
    let para = |flag: &str| {
        let at = help.find(flag).unwrap_or_else(|| panic!("{flag}: {help}"));
        let para = help[at..].split("\n\n").next().unwrap_or_default();
        para.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    assert!(para("--items").contains("or 0"), "{}", para("--items"));
    assert!(
        para("--max-increment").contains("or 0"),
        "{}",
        para("--max-increment")
    );
}
