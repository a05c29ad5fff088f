//! From the typed representation back to bytes, in the message's own encoding.
//!
//! Every length is computed from what is written; each parameter and cause is padded to 4 bytes
//! and the padding counts in its parent's length (as RSPLIB and the RFCs' examples do). Raw parts
//! (unknown and invalid parameters, unprocessed rests, raw causes) are written as they were read,
//! so a well-formed message comes back byte for byte.

use super::message::Message;
use super::numbering::{param_code, ParamKind};
use super::parameters::Parameter;
use super::wire::{push_tlv, push_tlv_header};
use super::Encoding;

pub(crate) struct EmitCtx {
    pub enc: Encoding,
}

impl EmitCtx {
    pub fn emit_param(&self, p: &Parameter, out: &mut Vec<u8>) {
        let (code, raw) = match p {
            Parameter::Unknown { code, value } | Parameter::Invalid { code, value } => {
                (*code, Some(value))
            }
            Parameter::Unprocessed(b) => {
                out.extend_from_slice(b);
                return;
            }
            _ => {
                let Some(kind) = p.kind() else { return };
                (self.code_of(kind), None)
            }
        };
        if let Some(value) = raw {
            push_tlv_header(out, code, value.len());
            out.extend_from_slice(value);
            super::wire::pad_to_4(out);
            return;
        }
        push_tlv(out, code, |o| self.emit_value(p, o));
    }

    /// The wire number of `kind`; a kind the encoding lacks (a DCCP transport put into a legacy
    /// message by hand) keeps its RFC number, which the legacy reader will treat as unknown.
    fn code_of(&self, kind: ParamKind) -> u16 {
        param_code(kind, self.enc)
            .or_else(|| param_code(kind, Encoding::Rfc))
            .unwrap_or(0)
    }

    fn emit_value(&self, p: &Parameter, o: &mut Vec<u8>) {
        match p {
            Parameter::Ipv4(a) => o.extend_from_slice(&a.octets()),
            Parameter::Ipv6(a) => o.extend_from_slice(&a.octets()),
            Parameter::Transport(t) => t.emit_value(self, o),
            Parameter::Policy(x) => x.emit_value(o),
            Parameter::PoolHandle(b) => o.extend_from_slice(b),
            Parameter::Cookie(b) | Parameter::OpaqueTransport(b) => o.extend_from_slice(b),
            Parameter::PoolElement(pe) => {
                o.extend_from_slice(&pe.pe_id.to_be_bytes());
                o.extend_from_slice(&pe.home_server_id.to_be_bytes());
                o.extend_from_slice(&pe.registration_life.to_be_bytes());
                for q in &pe.params {
                    self.emit_param(q, o);
                }
            }
            Parameter::ServerInformation(s) => {
                o.extend_from_slice(&s.server_id.to_be_bytes());
                if let Some(f) = s.flags {
                    o.extend_from_slice(&f.to_be_bytes());
                }
                for q in &s.params {
                    self.emit_param(q, o);
                }
            }
            Parameter::OperationError(e) => e.emit_value(self, o),
            Parameter::PeIdentifier(v) | Parameter::HandleResolutionOption(v) => {
                o.extend_from_slice(&v.to_be_bytes())
            }
            Parameter::PeChecksum(v) => o.extend_from_slice(&v.to_be_bytes()),
            Parameter::Unknown { .. } | Parameter::Invalid { .. } | Parameter::Unprocessed(_) => {}
        }
    }
}

impl Message {
    /// The message on the wire, in its own encoding.
    pub fn emit(&self) -> Vec<u8> {
        let ctx = EmitCtx { enc: self.encoding };
        let mut out = vec![self.msg_type, self.flags, 0, 0];
        self.fixed.emit(&mut out);
        for p in &self.params {
            ctx.emit_param(p, &mut out);
        }
        // The last parameter's padding that the length left out is not part of the message: it
        // is in `trailing` when the buffer held it, as in an SCTP chunk's padding.
        let uncounted = usize::from(self.uncounted_padding.min(3));
        out.truncate(out.len().saturating_sub(uncounted).max(4));
        let len = u16::try_from(out.len()).unwrap_or(u16::MAX);
        if let Some(slot) = out.get_mut(2..4) {
            slot.copy_from_slice(&len.to_be_bytes());
        }
        out.extend_from_slice(&self.trailing);
        out
    }
}
