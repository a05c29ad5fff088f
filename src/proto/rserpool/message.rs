//! One ASAP or ENRP message: header, the fixed fields of its type, its parameters; the lenient
//! parser and the typed accessors the analysers use.

use nom::combinator::map;
use nom::{IResult, Parser};

use crate::error::DecodeError;
use crate::proto::be::{be_u16, be_u32, be_u8};

use super::causes::Cause;
use super::header::{
    AsapType, EnrpType, UpdateAction, FLAG_HOME, FLAG_MORE, FLAG_REJECT, FLAG_SUBSCRIBE,
};
use super::parameters::{walk_params, Ctx, Parameter, PoolElement, ServerInformation};
use super::policy::Policy;
use super::transports::Transport;
use super::{Encoding, Protocol};

/// The fields between the header and the parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fixed {
    None,
    /// ASAP Endpoint Keep-Alive and Server Announce: the ENRP server's identifier.
    ServerId(u32),
    /// ENRP messages: sender and receiver server identifiers.
    Servers {
        sender: u32,
        receiver: u32,
    },
    /// ENRP Handle Update.
    Update {
        sender: u32,
        receiver: u32,
        action: u16,
        reserved: u16,
    },
    /// ENRP Init Takeover, Init Takeover Ack and Takeover Server.
    Takeover {
        sender: u32,
        receiver: u32,
        target: u32,
    },
    /// An unknown message type (everything after the header), or a body too short for the fixed
    /// fields of its type (an error says so).
    Raw(Vec<u8>),
}

impl Fixed {
    pub(crate) fn emit(&self, out: &mut Vec<u8>) {
        let mut put = |v: u32| out.extend_from_slice(&v.to_be_bytes());
        match *self {
            Fixed::None => {}
            Fixed::ServerId(id) => put(id),
            Fixed::Servers { sender, receiver } => {
                put(sender);
                put(receiver);
            }
            Fixed::Update {
                sender,
                receiver,
                action,
                reserved,
            } => {
                put(sender);
                put(receiver);
                put((u32::from(action) << 16) | u32::from(reserved));
            }
            Fixed::Takeover {
                sender,
                receiver,
                target,
            } => {
                put(sender);
                put(receiver);
                put(target);
            }
            Fixed::Raw(ref b) => out.extend_from_slice(b),
        }
    }
}

/// An ASAP or ENRP message.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    pub protocol: Protocol,
    /// The encoding the message was read in (and is emitted in).
    pub encoding: Encoding,
    pub msg_type: u8,
    pub flags: u8,
    pub fixed: Fixed,
    pub params: Vec<Parameter>,
    /// Bytes the buffer held after the message's declared length (up to 3 zero bytes of padding
    /// are normal), emitted again as they were.
    pub trailing: Vec<u8>,
    /// Bytes of the last parameter's padding that the message length leaves out (0 to 3): 0 when
    /// the length counts them, as RSPLIB does, or the parameter needs none; more when the sender
    /// followed SCTP's convention, where the last padding sits outside the length.
    pub uncounted_padding: u8,
}

/// `type u8 | flags u8 | length u16`.
pub(crate) fn header(i: &[u8]) -> IResult<&[u8], (u8, u8, u16)> {
    (be_u8, be_u8, be_u16).parse(i)
}

/// ASAP Endpoint Keep-Alive and Server Announce: the ENRP server's identifier.
fn server_id(i: &[u8]) -> IResult<&[u8], Fixed> {
    map(be_u32, Fixed::ServerId).parse(i)
}

/// ENRP Presence, Handle Table Request and Response, List Request and Response, Error: the
/// sender's and the receiver's server identifiers.
fn servers(i: &[u8]) -> IResult<&[u8], Fixed> {
    map((be_u32, be_u32), |(sender, receiver)| Fixed::Servers {
        sender,
        receiver,
    })
    .parse(i)
}

/// ENRP Handle Update: the server identifiers, the update action and a reserved field.
fn update(i: &[u8]) -> IResult<&[u8], Fixed> {
    map(
        (be_u32, be_u32, be_u16, be_u16),
        |(sender, receiver, action, reserved)| Fixed::Update {
            sender,
            receiver,
            action,
            reserved,
        },
    )
    .parse(i)
}

/// ENRP Init Takeover, Init Takeover Ack and Takeover Server: the server identifiers and the
/// target's.
fn takeover(i: &[u8]) -> IResult<&[u8], Fixed> {
    map((be_u32, be_u32, be_u32), |(sender, receiver, target)| {
        Fixed::Takeover {
            sender,
            receiver,
            target,
        }
    })
    .parse(i)
}

/// No fixed fields (the ASAP types other than Keep-Alive and Server Announce).
fn no_fixed(i: &[u8]) -> IResult<&[u8], Fixed> {
    Ok((i, Fixed::None))
}

/// A parser of the fixed fields between the header and the parameters.
type FixedParser = fn(&[u8]) -> IResult<&[u8], Fixed>;

/// The fixed fields of a message type: their length and their parser; `None` for a type the
/// protocol does not define.
fn fixed_fields(protocol: Protocol, msg_type: u8) -> Option<(usize, FixedParser)> {
    Some(match protocol {
        Protocol::Asap => match AsapType::from_u8(msg_type)? {
            t if t.has_server_id() => (4, server_id),
            _ => (0, no_fixed),
        },
        Protocol::Enrp => {
            let t = EnrpType::from_u8(msg_type)?;
            let parser: FixedParser = match t {
                EnrpType::HandleUpdate => update,
                EnrpType::InitTakeover | EnrpType::InitTakeoverAck | EnrpType::TakeoverServer => {
                    takeover
                }
                _ => servers,
            };
            (t.fixed_len(), parser)
        }
    })
}

/// Decodes one message from `buf` (see [`super::parse`]).
pub(crate) fn parse_message(
    buf: &[u8],
    protocol: Protocol,
    encoding: Encoding,
    errors: &mut Vec<DecodeError>,
    depth: usize,
) -> Message {
    let mut ctx = Ctx {
        enc: encoding,
        errors,
    };
    let mut msg = Message {
        protocol,
        encoding,
        msg_type: buf.first().copied().unwrap_or(0),
        flags: buf.get(1).copied().unwrap_or(0),
        fixed: Fixed::None,
        params: Vec::new(),
        trailing: Vec::new(),
        uncounted_padding: 0,
    };
    let Ok((after_header, (_, _, declared))) = header(buf) else {
        ctx.error(
            0,
            format!(
                "{} byte(s) received, too few for the 4-byte message header",
                buf.len()
            ),
        );
        msg.fixed = Fixed::Raw(buf.get(2..).unwrap_or_default().to_vec());
        return msg;
    };
    let declared = usize::from(declared);
    let end = if declared < 4 {
        ctx.error(
            2,
            format!("message length {declared} is shorter than the 4-byte header"),
        );
        buf.len()
    } else if declared > buf.len() {
        ctx.error(
            2,
            format!(
                "message length {declared} runs past the {} byte(s) received",
                buf.len()
            ),
        );
        buf.len()
    } else {
        declared
    };
    // `end` lies between the header and the end of `buf`.
    let (body, trailing) = after_header
        .split_at_checked(end - 4)
        .unwrap_or((after_header, &[]));
    if !trailing.is_empty() && (trailing.len() > 3 || trailing.iter().any(|&b| b != 0)) {
        ctx.error(
            end,
            format!(
                "{} byte(s) after the message's declared length {declared}",
                trailing.len()
            ),
        );
    }
    msg.trailing = trailing.to_vec();

    let Some((fixed_len, fixed)) = fixed_fields(protocol, msg.msg_type) else {
        msg.fixed = Fixed::Raw(body.to_vec());
        return msg;
    };
    let Ok((params, fixed)) = fixed(body) else {
        ctx.error(
            4,
            format!(
                "message body has {} byte(s), too few for the {fixed_len} bytes of fixed fields of its type",
                body.len()
            ),
        );
        msg.fixed = Fixed::Raw(body.to_vec());
        return msg;
    };
    msg.fixed = fixed;
    let (params, cut) = walk_params(&mut ctx, params, 4 + fixed_len, depth);
    msg.params = params;
    msg.uncounted_padding = cut;
    msg
}

impl Message {
    /// A message with the given fields and no trailing bytes.
    pub fn new(
        protocol: Protocol,
        encoding: Encoding,
        msg_type: u8,
        flags: u8,
        fixed: Fixed,
        params: Vec<Parameter>,
    ) -> Self {
        Message {
            protocol,
            encoding,
            msg_type,
            flags,
            fixed,
            params,
            trailing: Vec::new(),
            uncounted_padding: 0,
        }
    }

    pub fn asap_type(&self) -> Option<AsapType> {
        match self.protocol {
            Protocol::Asap => AsapType::from_u8(self.msg_type),
            Protocol::Enrp => None,
        }
    }

    pub fn enrp_type(&self) -> Option<EnrpType> {
        match self.protocol {
            Protocol::Enrp => EnrpType::from_u8(self.msg_type),
            Protocol::Asap => None,
        }
    }

    /// The type's name as Wireshark writes it ("ASAP Registration", "Unknown ENRP type").
    pub fn type_name(&self) -> &'static str {
        match self.protocol {
            Protocol::Asap => self.asap_type().map_or("Unknown ASAP type", AsapType::name),
            Protocol::Enrp => self.enrp_type().map_or("Unknown ENRP type", EnrpType::name),
        }
    }

    /// The message's (first) pool handle.
    pub fn pool_handle(&self) -> Option<&[u8]> {
        self.params.iter().find_map(|p| match p {
            Parameter::PoolHandle(h) => Some(h.as_slice()),
            _ => None,
        })
    }

    /// The pool elements, in wire order.
    pub fn pool_elements(&self) -> impl Iterator<Item = &PoolElement> {
        self.params.iter().filter_map(|p| match p {
            Parameter::PoolElement(pe) => Some(pe),
            _ => None,
        })
    }

    /// The PE Identifier parameters (deregistration, responses, keep-alives, unreachable).
    pub fn pe_identifiers(&self) -> impl Iterator<Item = u32> + '_ {
        self.params.iter().filter_map(|p| match p {
            Parameter::PeIdentifier(id) => Some(*id),
            _ => None,
        })
    }

    /// A policy parameter at message level (RSPLIB puts a copy of the first PE's policy first in
    /// every Handle Resolution Response).
    pub fn policy(&self) -> Option<&Policy> {
        self.params.iter().find_map(|p| match p {
            Parameter::Policy(x) => Some(x),
            _ => None,
        })
    }

    /// Items requested by the Handle Resolution Option (0xffffffff = all).
    pub fn hropt_items(&self) -> Option<u32> {
        self.params.iter().find_map(|p| match p {
            Parameter::HandleResolutionOption(n) => Some(*n),
            _ => None,
        })
    }

    /// Transports at message level (ASAP Server Announce).
    pub fn transports(&self) -> impl Iterator<Item = &Transport> {
        self.params.iter().filter_map(|p| match p {
            Parameter::Transport(t) => Some(t),
            _ => None,
        })
    }

    pub fn server_informations(&self) -> impl Iterator<Item = &ServerInformation> {
        self.params.iter().filter_map(|p| match p {
            Parameter::ServerInformation(s) => Some(s),
            _ => None,
        })
    }

    pub fn cookie(&self) -> Option<&[u8]> {
        self.params.iter().find_map(|p| match p {
            Parameter::Cookie(c) => Some(c.as_slice()),
            _ => None,
        })
    }

    pub fn pe_checksum(&self) -> Option<u16> {
        self.params.iter().find_map(|p| match p {
            Parameter::PeChecksum(c) => Some(*c),
            _ => None,
        })
    }

    /// Every error cause of the message's Operation Error parameters.
    pub fn causes(&self) -> impl Iterator<Item = &Cause> {
        self.params
            .iter()
            .filter_map(|p| match p {
                Parameter::OperationError(e) => Some(e.causes.iter()),
                _ => None,
            })
            .flatten()
    }

    /// The R (reject) bit of ASAP Registration Response, ENRP Handle Table Response and ENRP List
    /// Response; false for every other type.
    pub fn rejected(&self) -> bool {
        let has_r = matches!(self.asap_type(), Some(AsapType::RegistrationResponse))
            || matches!(
                self.enrp_type(),
                Some(EnrpType::HandleTableResponse | EnrpType::ListResponse)
            );
        has_r && self.flags & FLAG_REJECT != 0
    }

    /// The H bit of an ASAP Endpoint Keep-Alive.
    pub fn home_server_bit(&self) -> bool {
        self.asap_type() == Some(AsapType::EndpointKeepAlive) && self.flags & FLAG_HOME != 0
    }

    /// The S bit of an ASAP Handle Resolution.
    pub fn subscribe_bit(&self) -> bool {
        self.asap_type() == Some(AsapType::HandleResolution) && self.flags & FLAG_SUBSCRIBE != 0
    }

    /// The M bit of an ENRP Handle Table Response.
    pub fn more_to_send(&self) -> bool {
        self.enrp_type() == Some(EnrpType::HandleTableResponse) && self.flags & FLAG_MORE != 0
    }

    /// The server identifier after the header of ASAP Keep-Alive and Server Announce.
    pub fn server_id(&self) -> Option<u32> {
        match self.fixed {
            Fixed::ServerId(id) => Some(id),
            _ => None,
        }
    }

    pub fn sender_server_id(&self) -> Option<u32> {
        match self.fixed {
            Fixed::Servers { sender, .. }
            | Fixed::Update { sender, .. }
            | Fixed::Takeover { sender, .. } => Some(sender),
            _ => None,
        }
    }

    pub fn receiver_server_id(&self) -> Option<u32> {
        match self.fixed {
            Fixed::Servers { receiver, .. }
            | Fixed::Update { receiver, .. }
            | Fixed::Takeover { receiver, .. } => Some(receiver),
            _ => None,
        }
    }

    pub fn target_server_id(&self) -> Option<u32> {
        match self.fixed {
            Fixed::Takeover { target, .. } => Some(target),
            _ => None,
        }
    }

    pub fn update_action(&self) -> Option<UpdateAction> {
        match self.fixed {
            Fixed::Update { action, .. } => Some(UpdateAction::of(action)),
            _ => None,
        }
    }
}
