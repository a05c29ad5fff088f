//! DHCP load balancing reference: the RFC 3074 hash, the hash bucket assignment shared by a server
//! pair, and the per-implementation rules (profiles) that say which requests are balanced on
//! which key. Pure modules: no I/O, no dependency on the decoders.

pub mod hash;
pub mod hba;
pub mod profile;

pub use hash::bucket;
pub use hba::{Hba, HbaError, Role};
pub use profile::{KeyOutcome, Profile, Stid, StidSource};
