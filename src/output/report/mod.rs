//! What `check` prints of each analyser besides the findings, as text and as sections of its
//! JSON: one file per analyser, each reading the analyser's [`View`] (the data is the
//! analyser's, in its `report` module; the writing is here).

mod dhcp_lb;
mod failover;
mod rserpool;
mod setup;

use serde_json::{Map, Value};

use crate::analyse::View;

/// Appends the analyser's summary lines (pools, servers) to `check`'s text output.
pub fn text(view: View<'_>, out: &mut String) {
    match view {
        View::Nothing => {}
        View::Rserpool(a) => rserpool::text(a, out),
        View::DhcpLb(a) => dhcp_lb::text(a, out),
        View::Failover(a) => failover::text(a, out),
        View::Setup(a) => setup::text(a, out),
    }
}

/// Adds the analyser's sections to `check`'s JSON output, e.g. `"pools": [...]`.
pub fn json(view: View<'_>, out: &mut Map<String, Value>) {
    match view {
        View::Nothing => {}
        View::Rserpool(a) => rserpool::json(a, out),
        View::DhcpLb(a) => dhcp_lb::json(a, out),
        View::Failover(a) => failover::json(a, out),
        View::Setup(a) => setup::json(a, out),
    }
}
