//! Reference pool member selection policies (RFC 5356, draft-ietf-rserpool-policies-01 and
//! RSPLIB's registrar), each a small pure module, with the readings of the three sources kept as
//! data in [`profile`].
//!
//! A replay drives one [`Pool`] per pool handle and registrar:
//!
//! ```
//! use poolshark::analyse::policy::{PeSettings, PolicyKind, Pool, Rng, RSPLIB};
//!
//! let mut pool = Pool::new(&RSPLIB, PolicyKind::RoundRobin).unwrap();
//! for id in [1, 2, 3] {
//!     pool.register(id, PeSettings::new(PolicyKind::RoundRobin)).unwrap();
//! }
//! let mut rng = Rng::new(1);
//! let items = pool.items_for(Some(1));
//! let expected = pool.answer(items, &mut rng); // what the registrar should say
//! assert_eq!(expected, vec![1]);
//! pool.commit(&[1]); // what it did say: the state follows the wire
//! assert_eq!(pool.select(items, &mut rng), vec![2]);
//! ```

pub mod chi_square;
mod dispatch;
pub mod kind;
mod load_sum;
pub mod member;
pub mod pool;
pub mod profile;
pub mod rng;
pub mod settings;
mod share;

mod lu;
mod lud;
mod plu;
mod plud;
mod priority;
mod rand;
mod rlu;
mod rlud;
mod rplu;
mod rplud;
mod rr;
mod wrand;
mod wrr;

#[cfg(test)]
mod tests;

pub use chi_square::chi_square_p;
pub use kind::{Method, PolicyKind};
pub use member::Member;
pub use pool::{Commit, Pool, PoolError, Registration, Share, ShareKey};
pub use profile::{Profile, DRAFT01, PROFILES, RFC5356, RSPLIB};
pub use rng::Rng;
pub use settings::{
    parse_scaled, percent_of, scaled_from_legacy_24bit, scaled_from_percent, PeSettings,
    SettingChange,
};
pub use share::ShareCache;
