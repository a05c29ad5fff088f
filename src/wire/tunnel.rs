//! What the tunnels share: the IP protocol numbers and UDP ports that carry them, which UDP
//! ports carry which tunnel ([`TunnelPorts`]), the bound on nesting ([`MAX_ENCAPSULATIONS`]) and
//! the decoded overlay header ([`Overlay`]). Each tunnel header has its own file:
//! [`super::gre`] (RFC 2784 with RFC 2890's key and sequence number), [`super::vxlan`] (RFC
//! 7348), [`super::geneve`] (RFC 8926), [`super::teredo`] (RFC 4380) and [`super::mpls`] (RFC
//! 3032). Each parser reads its header at the start of a buffer (errors relative to it) and says
//! where the encapsulated packet starts and what it is; the dissector decodes that packet as it
//! decodes a frame's, to a bounded depth.

/// IP protocol numbers of the encapsulations.
pub const PROTO_IPIP: u8 = 4;
pub const PROTO_IPV6: u8 = 41;
pub const PROTO_GRE: u8 = 47;
/// UDP destination ports (IANA): VXLAN and Geneve.
pub const VXLAN_PORT: u16 = 4789;
pub const GENEVE_PORT: u16 = 6081;
/// Teredo's server and relay port (IANA): its datagrams come from it or go to it.
pub const TEREDO_PORT: u16 = 3544;

/// The tunnels carried over UDP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UdpTunnel {
    Vxlan,
    Geneve,
    /// IPv6 over UDP (RFC 4380), on its port as source or destination.
    Teredo,
}

impl UdpTunnel {
    /// The name of the protocol, as in tshark's `-d` rules and in errors.
    pub fn name(self) -> &'static str {
        match self {
            UdpTunnel::Vxlan => "vxlan",
            UdpTunnel::Geneve => "geneve",
            UdpTunnel::Teredo => "teredo",
        }
    }

    /// The name to show in messages.
    pub fn title(self) -> &'static str {
        match self {
            UdpTunnel::Vxlan => "VXLAN",
            UdpTunnel::Geneve => "Geneve",
            UdpTunnel::Teredo => "Teredo",
        }
    }

    /// The protocol named `s` (`vxlan`, `geneve`, `teredo`, any case), if it is a UDP tunnel.
    pub fn from_name(s: &str) -> Option<UdpTunnel> {
        match s.to_ascii_lowercase().as_str() {
            "vxlan" => Some(UdpTunnel::Vxlan),
            "geneve" => Some(UdpTunnel::Geneve),
            "teredo" => Some(UdpTunnel::Teredo),
            _ => None,
        }
    }
}

/// Which UDP destination ports carry which tunnel: 4789 VXLAN, 6081 Geneve and 3544 Teredo (as
/// source port too), as tshark decodes them, and those of the user's decode-as rules (which may move a tunnel to another port, such as
/// Linux's old VXLAN port 8472, or give a default port to the other tunnel, as `-d` does in tshark).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TunnelPorts {
    ports: Vec<(u16, UdpTunnel)>,
    /// Bit `port % 64` set for each of `ports`: most datagrams (DHCP's, RSerPool's) are told
    /// apart by one test, without the search.
    mask: u64,
}

impl Default for TunnelPorts {
    fn default() -> Self {
        let mut t = TunnelPorts {
            ports: Vec::with_capacity(2),
            mask: 0,
        };
        t.set(VXLAN_PORT, UdpTunnel::Vxlan);
        t.set(GENEVE_PORT, UdpTunnel::Geneve);
        t.set(TEREDO_PORT, UdpTunnel::Teredo);
        t
    }
}

impl TunnelPorts {
    /// `port` carrying `tunnel` (in place of what it carried).
    pub fn set(&mut self, port: u16, tunnel: UdpTunnel) {
        match self.ports.iter_mut().find(|(p, _)| *p == port) {
            Some(entry) => entry.1 = tunnel,
            None => self.ports.push((port, tunnel)),
        }
        self.mask |= 1 << (port % 64);
    }

    /// `port` carrying no tunnel (a decode-as rule gave it to an application protocol).
    pub fn remove(&mut self, port: u16) {
        self.ports.retain(|&(p, _)| p != port);
        self.mask = self.ports.iter().fold(0, |m, &(p, _)| m | 1 << (p % 64));
    }

    /// The tunnel a datagram to `port` carries.
    #[inline]
    pub fn by_port(&self, port: u16) -> Option<UdpTunnel> {
        if self.mask & (1 << (port % 64)) == 0 {
            return None;
        }
        self.ports.iter().find(|(p, _)| *p == port).map(|&(_, t)| t)
    }

    /// The tunnel a datagram from `sport` to `dport` carries: its destination port's, else Teredo
    /// when it comes from Teredo's port (a server's or relay's answer).
    #[inline]
    pub fn by_ports(&self, sport: u16, dport: u16) -> Option<UdpTunnel> {
        self.by_port(dport)
            .or_else(|| self.by_port(sport).filter(|t| *t == UdpTunnel::Teredo))
    }

    /// Every port that carries a tunnel.
    pub fn ports(&self) -> impl Iterator<Item = u16> + '_ {
        self.ports.iter().map(|&(p, _)| p)
    }
}

/// GRE protocol type / Geneve protocol type of an Ethernet frame (transparent Ethernet bridging).
pub const ETHERTYPE_TEB: u16 = 0x6558;
/// Encapsulations nested beyond this are not decoded (an error says so): real networks nest two
/// or three (VXLAN in GRE in IPsec-less IP-in-IP), a crafted packet could nest a thousand.
pub const MAX_ENCAPSULATIONS: u8 = 4;

/// A decoded VXLAN or Geneve header: the network identifier and where the inner packet starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overlay {
    /// The 24-bit VNI; `None` when VXLAN's I flag says it is not valid.
    pub vni: Option<u32>,
    /// What follows, an EtherType (VXLAN: always Ethernet).
    pub protocol: u16,
    pub header_len: usize,
}

pub(crate) fn vni(b: &[u8]) -> u32 {
    u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2])
}
