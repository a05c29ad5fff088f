//! Classic BPF as the kernel runs it (`SO_ATTACH_FILTER`, and libpcap's programs): the
//! instruction, its opcodes and the ancillary loads, and the two programs the AF_PACKET backend
//! adds of itself (every packet kept; the loopback echoes dropped). Programs are compiled by the
//! caller (`filter::capture`) and handed to [`super::LiveSource`] ready to attach.

/// One instruction, laid out as the kernel's `struct sock_filter`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Insn {
    pub code: u16,
    pub jt: u8,
    pub jf: u8,
    pub k: u32,
}

/// Instruction classes, sizes, modes and operations (linux/filter.h, pcap/bpf.h).
pub mod op {
    pub const LD: u16 = 0x00;
    pub const LDX: u16 = 0x01;
    pub const ST: u16 = 0x02;
    pub const STX: u16 = 0x03;
    pub const ALU: u16 = 0x04;
    pub const JMP: u16 = 0x05;
    pub const RET: u16 = 0x06;
    pub const MISC: u16 = 0x07;

    pub const W: u16 = 0x00;
    pub const H: u16 = 0x08;
    pub const B: u16 = 0x10;

    pub const IMM: u16 = 0x00;
    pub const ABS: u16 = 0x20;
    pub const IND: u16 = 0x40;
    pub const MEM: u16 = 0x60;
    pub const LEN: u16 = 0x80;
    pub const MSH: u16 = 0xa0;

    pub const ADD: u16 = 0x00;
    pub const SUB: u16 = 0x10;
    pub const MUL: u16 = 0x20;
    pub const DIV: u16 = 0x30;
    pub const OR: u16 = 0x40;
    pub const AND: u16 = 0x50;
    pub const LSH: u16 = 0x60;
    pub const RSH: u16 = 0x70;
    pub const NEG: u16 = 0x80;
    pub const MOD: u16 = 0x90;
    pub const XOR: u16 = 0xa0;

    pub const JA: u16 = 0x00;
    pub const JEQ: u16 = 0x10;
    pub const JGT: u16 = 0x20;
    pub const JGE: u16 = 0x30;
    pub const JSET: u16 = 0x40;

    pub const K: u16 = 0x00;
    pub const X: u16 = 0x08;
    pub const A: u16 = 0x10;

    pub const TAX: u16 = 0x00;
    pub const TXA: u16 = 0x80;
}

/// Linux's ancillary loads: an absolute load at `AD_OFF + n` reads packet metadata.
pub mod ancillary {
    /// `SKF_AD_OFF` (-0x1000) as the unsigned `k` of a load.
    pub const AD_OFF: u32 = 0xffff_f000;
    /// The packet's EtherType (`skb->protocol`, host order).
    pub const PROTOCOL: u32 = 0;
    /// `PACKET_HOST`, `PACKET_OUTGOING`, ...
    pub const PKTTYPE: u32 = 4;
    /// The interface index.
    pub const IFINDEX: u32 = 8;
    /// The device's ARPHRD_ type.
    pub const HATYPE: u32 = 28;
}

/// The largest program the kernel accepts (`BPF_MAXINSNS`).
pub const MAX_INSNS: usize = 4096;

/// What a filter returns to keep the whole packet (the capture cuts it to the snap length
/// itself, so it still learns the length on the wire).
pub const ACCEPT: u32 = u32::MAX;

/// Puts in front of `prog` a test that drops the outgoing copy of every packet sent on a
/// loopback device: the socket sees each such packet twice, and dropping the copy in the kernel
/// spares the queue and a read (libpcap drops it after reading). Jumps are relative, so `prog`
/// is unchanged behind the prefix.
pub fn without_loopback_echoes(prog: &[Insn]) -> Vec<Insn> {
    const PACKET_OUTGOING: u32 = 4;
    const ARPHRD_LOOPBACK: u32 = 772;
    let anc = |n: u32| Insn {
        code: op::LD | op::H | op::ABS,
        jt: 0,
        jf: 0,
        k: ancillary::AD_OFF + n,
    };
    let jeq = |k: u32, jt: u8, jf: u8| Insn {
        code: op::JMP | op::JEQ | op::K,
        jt,
        jf,
        k,
    };
    let mut out = vec![
        anc(ancillary::PKTTYPE),
        jeq(PACKET_OUTGOING, 0, 3),
        anc(ancillary::HATYPE),
        jeq(ARPHRD_LOOPBACK, 0, 1),
        Insn {
            code: op::RET | op::K,
            jt: 0,
            jf: 0,
            k: 0,
        },
    ];
    out.extend_from_slice(prog);
    out
}

/// A program that keeps every packet.
pub fn accept_all() -> Vec<Insn> {
    vec![Insn {
        code: op::RET | op::K,
        jt: 0,
        jf: 0,
        k: ACCEPT,
    }]
}
