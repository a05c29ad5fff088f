//! Handle resolution: a pool user asks its registrar, the registrar's reference pool gives the
//! answer a correct registrar sends (spoiled when a plant says so, the frame then marked), the
//! answer is committed as sent.

use crate::generate::scenario::batch::Batch;
use crate::proto::rserpool::Message;

use super::wire::PeWire;
use super::{RserpoolScenario, THINK_NS};

impl RserpoolScenario {
    pub(super) fn resolve(&mut self, pool: usize, u: usize, items: Option<u32>, out: &mut Batch) {
        let r = self.users[u].registrar;
        let handle = self.pools[pool].handle.clone();
        let request = self.wire.handle_resolution(&handle, items);
        self.user_channel(u).send(true, &request.emit(), out);
        out.wait(THINK_NS);
        // The legacy encodings have no Handle Resolution Option: the registrar's default.
        let requested = request.hropt_items();
        let total = self.pools[pool].resolutions;
        let registrar_id = self.registrars[r].id;
        let Some(rp) = self.registrars[r].pools[pool].as_mut() else {
            let m = self.wire.unknown_pool(&handle);
            self.user_channel(u).send(false, &m.emit(), out);
            return;
        };
        let n = rp.pool.items_for(requested);
        let reference = rp.pool.answer(n, self.dice.rng());
        let now = out.time();
        let plant = self.plants.iter_mut().find(|(pi, p, spent)| {
            *pi == pool
                && match (p.after, p.registrar) {
                    (Some(t), _) => {
                        !*spent && t <= now && p.fault.clean(&reference, &rp.pool, &rp.previous)
                    }
                    (None, Some(id)) => id == registrar_id && p.covers(rp.resolutions),
                    (None, None) => p.covers(total),
                }
        });
        let (answer, rule) = match plant {
            Some((_, p, spent)) => {
                *spent = true;
                let spoiled = p.fault.apply(
                    &reference,
                    n,
                    &rp.pool,
                    &rp.previous,
                    &mut self.dice.rng().clone(),
                );
                let rule =
                    (spoiled != reference).then(|| (p.fault.rule(&rp.pool), p.fault.clone()));
                (spoiled, rule)
            }
            None => (reference.clone(), None),
        };
        rp.pool.commit(&answer);
        rp.previous = answer.clone();
        rp.resolutions += 1;
        self.pools[pool].resolutions += 1;
        let m = self.answer_message(pool, &handle, &answer);
        self.user_channel(u).send(false, &m.emit(), out);
        if let Some((rule, fault)) = rule {
            out.mark_last(
                rule,
                format!(
                    "pool {}: registrar 0x{registrar_id:08x} answered {} instead of {} ({fault:?})",
                    String::from_utf8_lossy(&handle),
                    ids(&answer),
                    ids(&reference)
                ),
            );
        }
        if self.dice.chance(0.25) {
            self.user_channel(u).acknowledge(out);
        }
    }

    pub(super) fn answer_message(&self, pool: usize, handle: &[u8], answer: &[u32]) -> Message {
        // PEs the scenario does not know (planted unknown ids) get a made-up entry.
        let mut made_up: Vec<PeWire> = Vec::new();
        let template = self.pes.iter().find(|p| p.pool == pool);
        for &id in answer {
            if !self.pes.iter().any(|p| p.pool == pool && p.id == id) {
                if let Some(t) = template {
                    let mut w = t.wire.clone();
                    w.id = id;
                    made_up.push(w);
                }
            }
        }
        let entries: Vec<(&PeWire, u32)> = answer
            .iter()
            .filter_map(|&id| {
                self.pes
                    .iter()
                    .find(|p| p.pool == pool && p.id == id)
                    .map(|p| (&p.wire, self.registrars[p.home].id))
                    .or_else(|| made_up.iter().find(|w| w.id == id).map(|w| (w, 0)))
            })
            .collect();
        self.wire.handle_resolution_response(handle, &entries)
    }
}

fn ids(v: &[u32]) -> String {
    let s: Vec<String> = v.iter().map(|id| format!("0x{id:08x}")).collect();
    format!("[{}]", s.join(", "))
}
