//! "Maximally spread" as the README defines it for the texts' weighted round robin list, written
//! out here straight from the definition (not from poolshark's code), so that the tests can
//! judge the lists `simulate` prints and make lists a registrar may hold.
//!
//! A circular list of `W` slots (`W` the sum of the weights) is maximally spread when
//! 1. each PE of weight `w` holds `w` slots;
//! 2. no PE holds two neighbouring slots (the last and the first are neighbours) unless its
//!    weight is over half of `W`, and then only `2w - W` neighbouring pairs;
//! 3. from some slot on, every PE's count in the first `n` slots is `n w / W` rounded down or up,
//!    for every `n`.

/// What breaks the definition in `list` (PE ids) for `weights` (PE id, weight); empty when the
/// list is maximally spread. `start`: the slot 3 reads from (`None`: any slot may be it).
pub fn faults(list: &[u32], weights: &[(u32, u64)], start: Option<usize>) -> Vec<String> {
    let total: u64 = weights.iter().map(|(_, w)| w).sum();
    let mut out = Vec::new();
    if list.len() as u64 != total {
        out.push(format!(
            "{} slots for a total weight of {total}",
            list.len()
        ));
        return out;
    }
    let n = list.len();
    for &(id, w) in weights {
        let held = list.iter().filter(|x| **x == id).count() as u64;
        if held != w {
            out.push(format!("PE {id} holds {held} slots for weight {w}"));
        }
        let pairs = (0..n)
            .filter(|&i| list[i] == id && list[(i + 1) % n] == id)
            .count() as u64;
        let unavoidable = (2 * w).saturating_sub(total);
        if pairs > unavoidable {
            out.push(format!(
                "PE {id} neighbours itself {pairs} times where {unavoidable} cannot be avoided"
            ));
        }
    }
    let quota_from = |s: usize| {
        weights.iter().all(|&(id, w)| {
            let mut held = 0u64;
            (1..=n).all(|len| {
                if list[(s + len - 1) % n] == id {
                    held += 1;
                }
                let q = len as u64 * w;
                held * total >= q - q % total && held * total <= q.div_ceil(total) * total
            })
        })
    };
    let quota = match start {
        Some(s) => quota_from(s),
        None => (0..n).any(quota_from),
    };
    if !quota {
        out.push("no slot from which every count keeps to its quota".to_string());
    }
    out
}

/// Every maximally spread list for `weights` (PE id, weight) that begins with the first PE (the
/// others are their rotations). For small totals only: the lists are enumerated.
pub fn all_lists(weights: &[(u32, u64)]) -> Vec<Vec<u32>> {
    let total: u64 = weights.iter().map(|(_, w)| w).sum();
    let Some(&(first, _)) = weights.first() else {
        return Vec::new();
    };
    let mut left: Vec<u64> = weights.iter().map(|(_, w)| *w).collect();
    left[0] -= 1;
    let mut list = vec![first];
    let mut out = Vec::new();
    extend(weights, total as usize, &mut left, &mut list, &mut out);
    out
}

fn extend(
    weights: &[(u32, u64)],
    total: usize,
    left: &mut [u64],
    list: &mut Vec<u32>,
    out: &mut Vec<Vec<u32>>,
) {
    if list.len() == total {
        if faults(list, weights, None).is_empty() {
            out.push(list.clone());
        }
        return;
    }
    for i in 0..weights.len() {
        if left[i] == 0 {
            continue;
        }
        left[i] -= 1;
        list.push(weights[i].0);
        extend(weights, total, left, list, out);
        list.pop();
        left[i] += 1;
    }
}
