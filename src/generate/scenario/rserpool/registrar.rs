//! What registrars do with their pool elements: registrations (accepted into the reference pool,
//! or rejected as it says), re-registrations, deregistrations, keep-alives and the PEs they give
//! up on, each change told to the peers by an ENRP Handle Update; and pool users' reports of
//! unreachable PEs.

use std::net::SocketAddr;

use crate::analyse::policy::{Pool, PoolError};
use crate::analyse::rserpool::MAX_BAD_PE_REPORTS;
use crate::dissect::dispatch::{port, ppid};
use crate::generate::scenario::batch::Batch;
use crate::proto::rserpool::{Cause, CauseInfo, Parameter};

use super::channel::Channel;
use super::wire::settings_from_wire;
use super::{registrar_addr, RegPool, RserpoolScenario, THINK_NS};

impl RserpoolScenario {
    /// Adds (or updates) PE `p` in registrar `r`'s view of its pool.
    pub(super) fn learn(&mut self, r: usize, p: usize) -> Result<(), PoolError> {
        let (pool, id) = (self.pes[p].pool, self.pes[p].id);
        let Some(settings) = settings_from_wire(&self.pes[p].wire.policy) else {
            return Ok(());
        };
        let slot = &mut self.registrars[r].pools[pool];
        if slot.is_none() {
            *slot = Some(RegPool {
                pool: Pool::new(self.profile, settings.policy)?,
                resolutions: 0,
                previous: Vec::new(),
            });
        }
        match slot {
            Some(rp) => rp.pool.register(id, settings).map(|_| ()),
            None => Ok(()),
        }
    }

    /// Removes PE `p` from registrar `r`'s view; the pool goes with its last member.
    pub(super) fn forget(&mut self, r: usize, p: usize) {
        // Learnt again later, it starts with no reports against it.
        self.reports.remove(&(r, p));
        let (pool, id) = (self.pes[p].pool, self.pes[p].id);
        let slot = &mut self.registrars[r].pools[pool];
        if let Some(rp) = slot {
            rp.pool.deregister(id);
            if rp.pool.is_empty() {
                *slot = None;
            }
        }
    }

    /// The home registrar tells its peers about PE `p` (add or delete), and they update their view.
    pub(super) fn tell_peers(&mut self, p: usize, add: bool, out: &mut Batch) {
        let h = self.pes[p].home;
        let home_id = self.registrars[h].id;
        let handle = self.pools[self.pes[p].pool].handle.clone();
        for g in self.peers(h) {
            let m = self.wire.handle_update(
                home_id,
                self.registrars[g].id,
                add,
                &handle,
                self.pes[p].wire.parameter(home_id, true),
            );
            self.enrp_send(h, g, &m.emit(), out);
            if add {
                // The home accepted it, so the policy is consistent at the peers too.
                let _ = self.learn(g, p);
            } else {
                self.forget(g, p);
            }
        }
    }

    pub(super) fn register(&mut self, p: usize, out: &mut Batch) {
        let h = self.pes[p].home;
        let handle = self.pools[self.pes[p].pool].handle.clone();
        let m = self.wire.registration(&handle, &self.pes[p].wire);
        self.pes[p].channel.send(true, &m.emit(), out);
        out.wait(THINK_NS);
        let reply = match self.learn(h, p) {
            Ok(()) => {
                self.pes[p].registered = true;
                self.pes[p].registered_at = out.time();
                self.tell_peers(p, true, out);
                self.wire
                    .registration_response(&handle, self.pes[p].id, None)
            }
            Err(e) => self.wire.registration_response(
                &handle,
                self.pes[p].id,
                Some(Cause {
                    code: e.cause(),
                    info: CauseInfo::Parameters(vec![Parameter::Policy(
                        self.pes[p].wire.policy.clone(),
                    )]),
                }),
            ),
        };
        self.pes[p].channel.send(false, &reply.emit(), out);
    }

    /// A PE whose policy differs from its pool's registers; `accept` plants the deviation.
    pub(super) fn register_stray(&mut self, p: usize, accept: bool, out: &mut Batch) {
        if !accept {
            self.register(p, out);
            return;
        }
        let handle = self.pools[self.pes[p].pool].handle.clone();
        let m = self.wire.registration(&handle, &self.pes[p].wire);
        self.pes[p].channel.send(true, &m.emit(), out);
        out.wait(THINK_NS);
        let reply = self
            .wire
            .registration_response(&handle, self.pes[p].id, None);
        self.pes[p].channel.send(false, &reply.emit(), out);
        out.mark_last(
            "rserpool.policy-inconsistent",
            format!(
                "PE 0x{:08x} registered with another policy than its pool's and was accepted",
                self.pes[p].id
            ),
        );
    }

    pub(super) fn deregister(&mut self, p: usize, out: &mut Batch) {
        let h = self.pes[p].home;
        let handle = self.pools[self.pes[p].pool].handle.clone();
        let m = self.wire.deregistration(&handle, self.pes[p].id);
        self.pes[p].channel.send(true, &m.emit(), out);
        out.wait(THINK_NS);
        self.forget(h, p);
        self.pes[p].registered = false;
        self.tell_peers(p, false, out);
        let reply = self.wire.deregistration_response(&handle, self.pes[p].id);
        self.pes[p].channel.send(false, &reply.emit(), out);
    }

    pub(super) fn keep_alive(&mut self, p: usize, answered: bool, out: &mut Batch) {
        let h = self.pes[p].home;
        let handle = self.pools[self.pes[p].pool].handle.clone();
        let m = self
            .wire
            .keep_alive(self.registrars[h].id, &handle, self.pes[p].id, false);
        self.pes[p].channel.send(false, &m.emit(), out);
        if answered {
            out.wait(THINK_NS);
            let ack = self.wire.keep_alive_ack(&handle, self.pes[p].id);
            self.pes[p].channel.send(true, &ack.emit(), out);
        } else {
            // The registrar waits for the acknowledgement, gives up, and drops the PE.
            out.wait(50_000_000);
            self.forget(h, p);
            self.pes[p].registered = false;
            self.tell_peers(p, false, out);
        }
    }

    pub(super) fn user_channel(&mut self, u: usize) -> &mut Channel {
        let (carrier, max_fragment) = (self.carrier, self.max_fragment);
        let user = &mut self.users[u];
        let registrar = SocketAddr::new(registrar_addr(user.registrar, self.ipv6), port::ASAP);
        let (addr, port) = (user.addr, user.port);
        let dice = &mut self.dice;
        user.channel.get_or_insert_with(|| {
            Channel::new(
                carrier,
                SocketAddr::new(addr, port),
                registrar,
                ppid::ASAP,
                max_fragment,
                dice,
            )
        })
    }

    pub(super) fn unreachable(&mut self, p: usize, u: usize, out: &mut Batch) {
        let handle = self.pools[self.pes[p].pool].handle.clone();
        let m = self.wire.unreachable(&handle, self.pes[p].id);
        self.user_channel(u).send(true, &m.emit(), out);
        let r = self.users[u].registrar;
        let (pool, id) = (self.pes[p].pool, self.pes[p].id);
        let known = self.registrars[r].pools[pool]
            .as_ref()
            .is_some_and(|rp| rp.pool.member(id).is_some());
        if known {
            let n = self.reports.entry((r, p)).or_default();
            *n += 1;
            if *n >= MAX_BAD_PE_REPORTS {
                // Too many reports: the registrar drops the PE without checking it; the home
                // registrar tells its peers. The PE is back at its next registration.
                out.wait(THINK_NS);
                self.forget(r, p);
                if r == self.pes[p].home {
                    self.pes[p].registered = false;
                    self.tell_peers(p, false, out);
                }
                return;
            }
        }
        if r == self.pes[p].home {
            out.wait(THINK_NS);
            self.keep_alive(p, true, out);
        }
    }
}
