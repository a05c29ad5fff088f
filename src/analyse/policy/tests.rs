//! Each policy against the examples and rules of its source text (RFC 5356, the seed draft) and
//! of NOTES.md's account of RSPLIB.

use super::*;

fn pool(profile: &'static Profile, policy: PolicyKind, pes: &[(u32, PeSettings)]) -> Pool {
    let mut p = Pool::new(profile, policy).expect("profile defines the policy");
    for (id, s) in pes {
        let r = p.register(*id, *s).expect("consistent policy");
        assert!(r.new);
    }
    p
}

fn plain(policy: PolicyKind, ids: &[u32]) -> Vec<(u32, PeSettings)> {
    ids.iter().map(|&i| (i, PeSettings::new(policy))).collect()
}

fn pct(p: f64) -> u32 {
    scaled_from_percent(p).expect("valid percentage")
}

fn run(pool: &mut Pool, items: usize, n: usize, seed: u64) -> Vec<Vec<u32>> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| pool.select(items, &mut rng)).collect()
}

fn firsts(answers: &[Vec<u32>]) -> Vec<u32> {
    answers.iter().filter_map(|a| a.first().copied()).collect()
}

#[test]
fn round_robin_starts_at_the_head_and_moves_it_by_one() {
    // RFC 5356 4.1.2 / draft-01 3.1.2: "return the pool elements from the circular list
    // starting with head. Then head SHOULD be advanced by one element."
    for profile in PROFILES {
        let mut p = pool(
            profile,
            PolicyKind::RoundRobin,
            &plain(PolicyKind::RoundRobin, &[1, 2, 3]),
        );
        assert_eq!(
            firsts(&run(&mut p, 1, 4, 0)),
            vec![1, 2, 3, 1],
            "{}",
            profile.name
        );
        let mut p = pool(
            profile,
            PolicyKind::RoundRobin,
            &plain(PolicyKind::RoundRobin, &[1, 2, 3]),
        );
        assert_eq!(
            run(&mut p, 3, 3, 0),
            vec![vec![1, 2, 3], vec![2, 3, 1], vec![3, 1, 2]],
            "{}",
            profile.name
        );
    }
}

#[test]
fn max_increment_advances_that_many_of_an_answer() {
    let mut p = pool(
        &RSPLIB,
        PolicyKind::RoundRobin,
        &plain(PolicyKind::RoundRobin, &[1, 2, 3, 4, 5]),
    );
    p.set_max_increment(Some(3));
    assert_eq!(
        run(&mut p, 3, 3, 0),
        vec![vec![1, 2, 3], vec![4, 5, 1], vec![2, 3, 4]]
    );
    p.set_max_increment(None);
    assert_eq!(p.max_increment(), 1);
}

fn wrr_pes() -> Vec<(u32, PeSettings)> {
    [(1, 3), (2, 1), (3, 2)]
        .iter()
        .map(|&(id, w)| {
            (
                id,
                PeSettings::new(PolicyKind::WeightedRoundRobin).with_weight(w),
            )
        })
        .collect()
}

#[test]
fn wrr_rsplib_single_answers_repeat_3_1_2_3_1_1() {
    // NOTES.md section 5: weights 3/1/2, single answers repeat 3,1,2,3,1,1.
    let mut p = pool(&RSPLIB, PolicyKind::WeightedRoundRobin, &wrr_pes());
    let seq = firsts(&run(&mut p, 1, 12, 0));
    assert_eq!(seq, vec![3, 1, 2, 3, 1, 1, 3, 1, 2, 3, 1, 1]);
}

#[test]
fn wrr_keeps_the_weight_ratio_and_lists_each_member_once() {
    // RFC 5356 4.2.2 / draft-01 3.2.2: occurrences in proportion to weight.
    for profile in PROFILES {
        let mut p = pool(profile, PolicyKind::WeightedRoundRobin, &wrr_pes());
        let seq = firsts(&run(&mut p, 1, 600, 0));
        let count = |id| seq.iter().filter(|&&x| x == id).count();
        assert_eq!(
            (count(1), count(2), count(3)),
            (300, 100, 200),
            "{}",
            profile.name
        );
        let mut p = pool(profile, PolicyKind::WeightedRoundRobin, &wrr_pes());
        for a in run(&mut p, 3, 20, 0) {
            let mut s = a.clone();
            s.sort_unstable();
            assert_eq!(s, vec![1, 2, 3], "{} {a:?}", profile.name);
        }
    }
}

#[test]
fn wrr_text_spreads_each_member_over_the_list() {
    // "Each pool element is inserted as distributed as possible in the circular list" (RSPLIB's
    // counter rule gives 3,1,2,3,1,1 instead). Weights 3, 1, 2 in 6 slots: PE 1's occurrences
    // stand in slots 0-1, 2-3, 4-5, PE 2's in 0-5, PE 3's in 0-2 and 3-5; each slot takes the
    // occurrence that must be placed soonest, ties to the heavier: 1, 3, 1, 3 (deadline 5 like
    // PE 2's, heavier), 1 (the same), 2. Round after round, with no PE twice in a row.
    let mut p = pool(&RFC5356, PolicyKind::WeightedRoundRobin, &wrr_pes());
    assert_eq!(
        firsts(&run(&mut p, 1, 12, 0)),
        vec![1, 3, 1, 3, 1, 2, 1, 3, 1, 3, 1, 2]
    );
}

#[test]
fn random_policies_draw_in_proportion_to_their_weights() {
    type Case = (PolicyKind, Vec<(u32, PeSettings)>, Vec<f64>);
    let cases: Vec<Case> = vec![
        (
            PolicyKind::Random,
            plain(PolicyKind::Random, &[1, 2, 3, 4]),
            vec![0.25; 4],
        ),
        (
            PolicyKind::WeightedRandom,
            [(1, 1), (2, 2), (3, 7)]
                .iter()
                .map(|&(i, w)| {
                    (
                        i,
                        PeSettings::new(PolicyKind::WeightedRandom).with_weight(w),
                    )
                })
                .collect(),
            vec![0.1, 0.2, 0.7],
        ),
        (
            // Draft-01 4.4.2: weight 100 % - load.
            PolicyKind::RandomizedLeastUsed,
            [(1, 0.0), (2, 50.0), (3, 75.0)]
                .iter()
                .map(|&(i, l)| {
                    (
                        i,
                        PeSettings::new(PolicyKind::RandomizedLeastUsed).with_load(pct(l)),
                    )
                })
                .collect(),
            vec![1.0 / 1.75, 0.5 / 1.75, 0.25 / 1.75],
        ),
    ];
    for (policy, pes, probs) in cases {
        for profile in PROFILES {
            let mut p = pool(profile, policy, &pes);
            let answers = run(&mut p, 1, 4000, 99);
            let mut counts = vec![0u64; pes.len()];
            for id in firsts(&answers) {
                counts[pes.iter().position(|(i, _)| *i == id).unwrap()] += 1;
            }
            let pv = chi_square_p(&counts, &probs).unwrap();
            assert!(pv > 0.001, "{} {policy:?}: {counts:?} p={pv}", profile.name);
            let share: Vec<f64> = p.expected_share(1).iter().map(|s| s.first).collect();
            for (a, b) in share.iter().zip(&probs) {
                assert!((a - b).abs() < 1e-6, "{share:?} {probs:?}");
            }
        }
    }
}

#[test]
fn random_answers_never_repeat_a_member() {
    // RFC 5356 4.3.2: "Each element MUST NOT be reported more than once".
    let mut p = pool(
        &RSPLIB,
        PolicyKind::Random,
        &plain(PolicyKind::Random, &[1, 2, 3, 4]),
    );
    for a in run(&mut p, 3, 200, 5) {
        let mut s = a.clone();
        s.sort_unstable();
        s.dedup();
        assert_eq!(s.len(), 3, "{a:?}");
    }
}

#[test]
fn fully_loaded_rlu_member_is_drawn_by_rsplib_only() {
    // Draft-01 4.4.2: weight 0xffffff - load, so 0 at 100 %; RSPLIB floors the weight at 1.
    let pes: Vec<(u32, PeSettings)> = [(1, 100.0), (2, 100.0)]
        .iter()
        .map(|&(i, l)| {
            (
                i,
                PeSettings::new(PolicyKind::RandomizedLeastUsed).with_load(pct(l)),
            )
        })
        .collect();
    let mut p = pool(&RSPLIB, PolicyKind::RandomizedLeastUsed, &pes);
    assert_eq!(
        run(&mut p, 1, 50, 3)
            .iter()
            .filter(|a| a.len() == 1)
            .count(),
        50
    );
    let mut p = pool(&RFC5356, PolicyKind::RandomizedLeastUsed, &pes);
    assert!(run(&mut p, 1, 5, 3).iter().all(|a| a.is_empty()));
}

#[test]
fn priority_prefers_the_highest_and_rotates_equals() {
    // RFC 5356 4.5 and RSPLIB (NOTES.md): priority descending, round robin among equals.
    let pes: Vec<(u32, PeSettings)> = [(1, 10), (2, 20), (3, 20), (4, 5)]
        .iter()
        .map(|&(i, pr)| (i, PeSettings::new(PolicyKind::Priority).with_priority(pr)))
        .collect();
    let mut p = pool(&RSPLIB, PolicyKind::Priority, &pes);
    assert_eq!(firsts(&run(&mut p, 1, 4, 0)), vec![2, 3, 2, 3]);
    let a = p.answer(4, &mut Rng::new(0));
    assert_eq!(a, vec![2, 3, 1, 4]);
    let keys: Vec<u64> = a.iter().map(|&id| p.order_key(id).unwrap()).collect();
    assert!(keys.windows(2).all(|w| w[0] <= w[1]));
    // The seed draft has no Priority policy.
    assert_eq!(
        Pool::new(&DRAFT01, PolicyKind::Priority).unwrap_err(),
        PoolError::PolicyNotInProfile {
            policy: PolicyKind::Priority,
            profile: "draft01"
        }
    );
}

#[test]
fn least_used_answers_ascend_by_load_and_rotate_equal_loads() {
    // Draft-01 4.1.2: "sorted ascending by load value", round robin between equal loads.
    let pes: Vec<(u32, PeSettings)> = [(1, 50.0), (2, 20.0), (3, 20.0), (4, 80.0)]
        .iter()
        .map(|&(i, l)| (i, PeSettings::new(PolicyKind::LeastUsed).with_load(pct(l))))
        .collect();
    for profile in PROFILES {
        let mut p = pool(profile, PolicyKind::LeastUsed, &pes);
        assert_eq!(firsts(&run(&mut p, 1, 4, 0)), vec![2, 3, 2, 3]);
        assert_eq!(p.answer(4, &mut Rng::new(0)), vec![2, 3, 1, 4]);
        assert_eq!(p.order_key(1), Some(u64::from(pct(50.0))));
        assert_eq!(p.order_key(99), None);
    }
}

#[test]
fn plu_seed_example_a_50_plus_10_beats_b_50_plus_50() {
    // Draft-01 4.3.1: "A will be selected (50+10=60) instead of B (50+50=100)".
    let pes = vec![
        (
            0xb,
            PeSettings::new(PolicyKind::PriorityLeastUsed)
                .with_load(pct(50.0))
                .with_load_degradation(pct(50.0)),
        ),
        (
            0xa,
            PeSettings::new(PolicyKind::PriorityLeastUsed)
                .with_load(pct(50.0))
                .with_load_degradation(pct(10.0)),
        ),
    ];
    for profile in PROFILES {
        let mut p = pool(profile, PolicyKind::PriorityLeastUsed, &pes);
        // PLU has no counter: A stays first.
        assert!(firsts(&run(&mut p, 1, 10, 0)).iter().all(|&id| id == 0xa));
        assert_eq!(p.answer(2, &mut Rng::new(0)), vec![0xa, 0xb]);
        assert!(p.order_key(0xa) < p.order_key(0xb));
    }
}

fn lud(load: f64, deg: f64) -> PeSettings {
    PeSettings::new(PolicyKind::LeastUsedDegradation)
        .with_load(pct(load))
        .with_load_degradation(pct(deg))
}

#[test]
fn lud_degradation_grows_as_each_profile_says() {
    let d = u64::from(pct(10.0));
    // RFC 5356 / draft-01: 0 after registration, + d per selection.
    for profile in [&RFC5356, &DRAFT01] {
        let mut p = pool(
            profile,
            PolicyKind::LeastUsedDegradation,
            &[(1, lud(10.0, 10.0))],
        );
        assert_eq!(p.member(1).unwrap().degradation, 0);
        run(&mut p, 1, 2, 0);
        assert_eq!(p.member(1).unwrap().degradation, 2 * d, "{}", profile.name);
    }
    // RSPLIB (NOTES.md): 1 x d right after registration, + 2 x d per selection.
    let mut p = pool(
        &RSPLIB,
        PolicyKind::LeastUsedDegradation,
        &[(1, lud(10.0, 10.0))],
    );
    assert_eq!(p.member(1).unwrap().degradation, d);
    run(&mut p, 1, 2, 0);
    assert_eq!(p.member(1).unwrap().degradation, 5 * d);
}

#[test]
fn lud_profiles_give_different_sequences() {
    // A: 10 % + 10 % per selection, B: 25 % + 1 %.
    let pes = [(1, lud(10.0, 10.0)), (2, lud(25.0, 1.0))];
    let seq = |profile: &'static Profile| {
        let mut p = pool(profile, PolicyKind::LeastUsedDegradation, &pes);
        firsts(&run(&mut p, 1, 6, 0))
    };
    // Texts: A 10, 20 (ties broken by sequence: A registered first), then B from 30 on.
    assert_eq!(seq(&RFC5356), vec![1, 1, 2, 2, 2, 2]);
    assert_eq!(seq(&DRAFT01), seq(&RFC5356));
    // RSPLIB: A starts at 20 (1 x), B at 26; A then jumps to 40.
    assert_eq!(seq(&RSPLIB), vec![1, 2, 2, 2, 2, 2]);
}

#[test]
fn lud_every_returned_entry_degrades_under_the_texts_only() {
    let pes = [(1, lud(10.0, 10.0)), (2, lud(10.0, 10.0))];
    let d = u64::from(pct(10.0));
    let mut p = pool(&RFC5356, PolicyKind::LeastUsedDegradation, &pes);
    run(&mut p, 2, 1, 0);
    assert_eq!(p.member(1).unwrap().degradation, d);
    assert_eq!(p.member(2).unwrap().degradation, d);
    let mut p = pool(&RSPLIB, PolicyKind::LeastUsedDegradation, &pes);
    run(&mut p, 2, 1, 0);
    assert_eq!(p.member(1).unwrap().degradation, 3 * d);
    assert_eq!(p.member(2).unwrap().degradation, d);
}

#[test]
fn rsplib_caps_the_lud_sum_at_100_percent_then_rotates() {
    // A: 90 % + 50 % per selection, B: 95 % + 1 %.
    let pes = [(1, lud(90.0, 50.0)), (2, lud(95.0, 1.0))];
    // RSPLIB: A is at the 100 % cap from its registration on, B reaches it after two picks (96,
    // 98, 100); from then on both tie at the cap and the sequence number rotates them.
    let mut p = pool(&RSPLIB, PolicyKind::LeastUsedDegradation, &pes);
    assert_eq!(firsts(&run(&mut p, 1, 6, 0)), vec![2, 2, 1, 2, 1, 2]);
    // The texts have no cap: A (90) goes first once, then sits at 140 while B climbs 95..139.
    let mut p = pool(&RFC5356, PolicyKind::LeastUsedDegradation, &pes);
    assert_eq!(firsts(&run(&mut p, 1, 6, 0)), vec![1, 2, 2, 2, 2, 2]);
    assert!(p.order_key(1).unwrap() > u64::from(u32::MAX));
}

#[test]
fn reregistration_reports_changes_and_resets_as_the_profile_says() {
    let mut p = pool(
        &RSPLIB,
        PolicyKind::LeastUsedDegradation,
        &[(1, lud(10.0, 10.0))],
    );
    let d = u64::from(pct(10.0));
    run(&mut p, 1, 1, 0);
    assert_eq!(p.member(1).unwrap().degradation, 3 * d);
    // Unchanged but degraded: reset, then the re-link adds 1 x again.
    let r = p.register(1, lud(10.0, 10.0)).unwrap();
    assert_eq!(
        r,
        Registration {
            new: false,
            changes: vec![],
            degradation_reset: true
        }
    );
    assert_eq!(p.member(1).unwrap().degradation, d);
    let r = p.register(1, lud(20.0, 10.0)).unwrap();
    assert_eq!(
        r.changes,
        vec![SettingChange::Load {
            from: pct(10.0),
            to: pct(20.0)
        }]
    );
    // A registrar rejects a different policy in the same pool with cause 0x5.
    let e = p
        .register(2, PeSettings::new(PolicyKind::LeastUsed))
        .unwrap_err();
    assert_eq!(e.cause(), 5);
    assert_eq!(p.len(), 1);
    // Unchanged, not degraded, non-degrading policy: nothing moves.
    let mut rr = pool(
        &RSPLIB,
        PolicyKind::RoundRobin,
        &plain(PolicyKind::RoundRobin, &[1, 2]),
    );
    let before = rr.members().to_vec();
    let r = rr
        .register(2, PeSettings::new(PolicyKind::RoundRobin))
        .unwrap();
    assert!(!r.new && r.changes.is_empty() && !r.degradation_reset);
    assert_eq!(rr.members(), &before[..]);
}

#[test]
fn deregistered_members_leave_the_rotation() {
    let mut p = pool(
        &RSPLIB,
        PolicyKind::RoundRobin,
        &plain(PolicyKind::RoundRobin, &[1, 2, 3]),
    );
    assert_eq!(p.deregister(2).map(|m| m.pe_id), Some(2));
    assert_eq!(p.deregister(2), None);
    assert_eq!(firsts(&run(&mut p, 1, 3, 0)), vec![1, 3, 1]);
}

#[test]
fn commit_follows_the_wire_and_reports_what_it_could_not_apply() {
    let mut p = pool(
        &RSPLIB,
        PolicyKind::RoundRobin,
        &plain(PolicyKind::RoundRobin, &[1, 2, 3]),
    );
    // The registrar answered 3 where 1 was expected: the rotation continues after 3.
    let c = p.commit(&[3, 9, 3]);
    assert_eq!(c.unknown, vec![9]);
    assert_eq!(c.repeated, vec![3]);
    assert_eq!(p.answer(3, &mut Rng::new(0)), vec![1, 2, 3]);
    p.commit(&[1]);
    assert_eq!(p.answer(1, &mut Rng::new(0)), vec![2]);
}

#[test]
fn expected_share_of_deterministic_policies_is_their_cycle() {
    let mut p = pool(&RSPLIB, PolicyKind::WeightedRoundRobin, &wrr_pes());
    let s = p.expected_share(1);
    let firsts: Vec<f64> = s.iter().map(|s| s.first).collect();
    for (f, want) in firsts.iter().zip([0.5, 1.0 / 6.0, 1.0 / 3.0]) {
        assert!((f - want).abs() < 0.001, "{firsts:?}");
    }
    // Asking does not move the pool.
    assert_eq!(p.select(1, &mut Rng::new(0)), vec![3]);
    let rr = pool(
        &RFC5356,
        PolicyKind::RoundRobin,
        &plain(PolicyKind::RoundRobin, &[1, 2, 3, 4]),
    );
    for s in rr.expected_share(2) {
        assert!(
            (s.first - 0.25).abs() < 1e-9 && (s.included - 0.5).abs() < 1e-9,
            "{s:?}"
        );
    }
}

#[test]
fn rsplib_extensions_compose_the_base_rules() {
    let s = |l: f64, d: f64| (l, d);
    let settings = |kind: PolicyKind, (l, d): (f64, f64)| {
        PeSettings::new(kind)
            .with_load(pct(l))
            .with_load_degradation(pct(d))
    };
    // PLUD: PLU's key plus the counter; A (40+10) first, then its counter pushes it past B.
    let pes = [
        (
            1,
            settings(PolicyKind::PriorityLeastUsedDegradation, s(40.0, 10.0)),
        ),
        (
            2,
            settings(PolicyKind::PriorityLeastUsedDegradation, s(45.0, 10.0)),
        ),
    ];
    let mut p = pool(&RSPLIB, PolicyKind::PriorityLeastUsedDegradation, &pes);
    // After registration: A 40+10+10 = 60, B 45+10+10 = 65; A then 80, B 85.
    assert_eq!(firsts(&run(&mut p, 1, 3, 0)), vec![1, 2, 1]);
    // RPLU: weight 100 % - (load + load degradation).
    let pes = [
        (
            1,
            settings(PolicyKind::RandomizedPriorityLeastUsed, s(50.0, 0.0)),
        ),
        (
            2,
            settings(PolicyKind::RandomizedPriorityLeastUsed, s(50.0, 25.0)),
        ),
    ];
    let p = pool(&RSPLIB, PolicyKind::RandomizedPriorityLeastUsed, &pes);
    let share = p.expected_share(1);
    assert!((share[0].first - 2.0 / 3.0).abs() < 1e-6, "{share:?}");
    // RLUD: the counter lowers the weight of the member just drawn.
    let pes = [
        (
            1,
            settings(PolicyKind::RandomizedLeastUsedDegradation, s(0.0, 50.0)),
        ),
        (
            2,
            settings(PolicyKind::RandomizedLeastUsedDegradation, s(0.0, 50.0)),
        ),
    ];
    let mut p = pool(&RSPLIB, PolicyKind::RandomizedLeastUsedDegradation, &pes);
    assert_eq!(p.member(1).unwrap().degradation, u64::from(pct(50.0)));
    let first = p.select(1, &mut Rng::new(4));
    // Drawn: 3 x 50 % capped at 100 %; weight floor 1.
    assert_eq!(p.member(first[0]).unwrap().degradation, u64::from(u32::MAX));
    // RPLUD: load + load degradation + counter.
    let pes = [(
        1,
        settings(
            PolicyKind::RandomizedPriorityLeastUsedDegradation,
            s(10.0, 10.0),
        ),
    )];
    let p = pool(
        &RSPLIB,
        PolicyKind::RandomizedPriorityLeastUsedDegradation,
        &pes,
    );
    assert_eq!(p.member(1).unwrap().degradation, u64::from(pct(10.0)));
}
