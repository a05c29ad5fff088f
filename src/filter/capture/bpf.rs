//! Classic BPF programs (the instruction set of `SO_ATTACH_FILTER` and of libpcap,
//! [`crate::source::live::bpf`]): a code generator from a boolean tree of tests to a program with
//! every jump resolved, an interpreter with the kernel's semantics (a load beyond the packet
//! rejects it), and a disassembler.
//!
//! The generator works on symbolic labels and resolves them at the end. Conditional jumps reach
//! at most 255 instructions forward; a longer one is rewritten through an unconditional jump (a
//! trampoline), so programs of any shape up to the kernel's 4096 instructions come out right.

use crate::source::live::bpf::{ancillary, op, Insn, MAX_INSNS};

/// Packet metadata the ancillary loads read; the interpreter takes it beside the bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Meta {
    pub protocol: u16,
    pub pkttype: u8,
    pub ifindex: u32,
    pub hatype: u16,
}

/// Runs `prog` over `pkt` as the kernel does; returns the number of bytes to keep (0 drops the
/// packet). A load outside the packet, a division by zero, a jump out of the program or an
/// instruction this interpreter does not know all drop it.
pub fn run(prog: &[Insn], pkt: &[u8], meta: &Meta) -> u32 {
    let mut a: u32 = 0;
    let mut x: u32 = 0;
    let mut mem = [0u32; 16];
    let mut pc = 0usize;
    let load = |at: u32, size: u16| -> Option<u32> {
        if at >= ancillary::AD_OFF {
            return match at - ancillary::AD_OFF {
                ancillary::PROTOCOL => Some(u32::from(meta.protocol)),
                ancillary::PKTTYPE => Some(u32::from(meta.pkttype)),
                ancillary::IFINDEX => Some(meta.ifindex),
                ancillary::HATYPE => Some(u32::from(meta.hatype)),
                _ => None,
            };
        }
        let at = usize::try_from(at).ok()?;
        let n = match size {
            op::W => 4,
            op::H => 2,
            op::B => 1,
            _ => return None,
        };
        let bytes = pkt.get(at..at.checked_add(n)?)?;
        Some(bytes.iter().fold(0u32, |v, b| (v << 8) | u32::from(*b)))
    };
    // Every instruction moves pc forward, so the loop ends within prog.len() steps.
    while let Some(i) = prog.get(pc) {
        pc += 1;
        let class = i.code & 0x07;
        let size = i.code & 0x18;
        let mode = i.code & 0xe0;
        match class {
            op::LD => {
                a = match mode {
                    op::IMM => i.k,
                    op::ABS => match load(i.k, size) {
                        Some(v) => v,
                        None => return 0,
                    },
                    op::IND => match x.checked_add(i.k).and_then(|at| load(at, size)) {
                        Some(v) => v,
                        None => return 0,
                    },
                    op::MEM => match mem.get(i.k as usize) {
                        Some(v) => *v,
                        None => return 0,
                    },
                    op::LEN => u32::try_from(pkt.len()).unwrap_or(u32::MAX),
                    _ => return 0,
                }
            }
            op::LDX => {
                x = match mode {
                    op::IMM => i.k,
                    op::MEM => match mem.get(i.k as usize) {
                        Some(v) => *v,
                        None => return 0,
                    },
                    op::LEN => u32::try_from(pkt.len()).unwrap_or(u32::MAX),
                    op::MSH => match load(i.k, op::B) {
                        Some(v) => (v & 0xf) * 4,
                        None => return 0,
                    },
                    _ => return 0,
                }
            }
            op::ST | op::STX => {
                let v = if class == op::ST { a } else { x };
                match mem.get_mut(i.k as usize) {
                    Some(slot) => *slot = v,
                    None => return 0,
                }
            }
            op::ALU => {
                let operand = if i.code & op::X != 0 { x } else { i.k };
                a = match i.code & 0xf0 {
                    op::ADD => a.wrapping_add(operand),
                    op::SUB => a.wrapping_sub(operand),
                    op::MUL => a.wrapping_mul(operand),
                    op::DIV => match a.checked_div(operand) {
                        Some(v) => v,
                        None => return 0,
                    },
                    op::MOD => match a.checked_rem(operand) {
                        Some(v) => v,
                        None => return 0,
                    },
                    op::OR => a | operand,
                    op::AND => a & operand,
                    op::XOR => a ^ operand,
                    op::LSH => a.checked_shl(operand).unwrap_or(0),
                    op::RSH => a.checked_shr(operand).unwrap_or(0),
                    op::NEG => a.wrapping_neg(),
                    _ => return 0,
                }
            }
            op::JMP => {
                let operand = if i.code & op::X != 0 { x } else { i.k };
                let taken = match i.code & 0xf0 {
                    op::JA => {
                        pc = match pc.checked_add(i.k as usize) {
                            Some(p) => p,
                            None => return 0,
                        };
                        continue;
                    }
                    op::JEQ => a == operand,
                    op::JGT => a > operand,
                    op::JGE => a >= operand,
                    op::JSET => a & operand != 0,
                    _ => return 0,
                };
                pc += usize::from(if taken { i.jt } else { i.jf });
            }
            op::RET => {
                return match i.code & 0x18 {
                    op::K => i.k,
                    op::A => a,
                    _ => 0,
                }
            }
            op::MISC => match i.code & 0xf8 {
                op::TAX => x = a,
                op::TXA => a = x,
                _ => return 0,
            },
            _ => return 0,
        }
    }
    0
}

/// A jump target, resolved when the program is finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Label(usize);

#[derive(Clone, Copy, Debug)]
enum Item {
    Insn(Insn),
    /// A conditional jump: code and k, targets by label.
    Cond {
        code: u16,
        k: u32,
        t: Label,
        f: Label,
    },
    Goto(Label),
    Place(Label),
}

/// Builds a program instruction by instruction with symbolic jump targets.
#[derive(Default)]
pub struct Builder {
    items: Vec<Item>,
    labels: usize,
}

/// The program needs more instructions than the kernel accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooLong(pub usize);

impl Builder {
    pub fn new() -> Self {
        Builder::default()
    }

    pub fn label(&mut self) -> Label {
        self.labels += 1;
        Label(self.labels - 1)
    }

    /// The label's instruction is the next one emitted.
    pub fn place(&mut self, l: Label) {
        self.items.push(Item::Place(l));
    }

    pub fn insn(&mut self, code: u16, k: u32) {
        self.items.push(Item::Insn(Insn {
            code,
            jt: 0,
            jf: 0,
            k,
        }));
    }

    /// `if A <op> k goto t else goto f`, with `op` one of JEQ, JGT, JGE, JSET.
    pub fn cond(&mut self, jump_op: u16, k: u32, t: Label, f: Label) {
        self.items.push(Item::Cond {
            code: op::JMP | jump_op | op::K,
            k,
            t,
            f,
        });
    }

    pub fn goto(&mut self, l: Label) {
        self.items.push(Item::Goto(l));
    }

    /// Resolves every label into instruction offsets.
    pub fn finish(mut self) -> Result<Vec<Insn>, TooLong> {
        loop {
            let positions = self.positions();
            let at = |l: Label| positions.get(l.0).copied().flatten();
            let mut out = Vec::with_capacity(self.items.len());
            let mut far: Option<(usize, u16, u32, Label, Label)> = None;
            for (idx, item) in self.items.iter().enumerate() {
                let here = out.len();
                let offset = |l: Label| -> Option<usize> { at(l)?.checked_sub(here + 1) };
                match *item {
                    Item::Insn(i) => out.push(i),
                    Item::Place(_) => {}
                    Item::Goto(l) => {
                        let Some(o) = offset(l) else {
                            return Err(TooLong(usize::MAX));
                        };
                        out.push(Insn {
                            code: op::JMP | op::JA,
                            jt: 0,
                            jf: 0,
                            k: u32::try_from(o).map_err(|_| TooLong(o))?,
                        });
                    }
                    Item::Cond { code, k, t, f } => {
                        let (Some(ot), Some(of)) = (offset(t), offset(f)) else {
                            return Err(TooLong(usize::MAX));
                        };
                        match (u8::try_from(ot), u8::try_from(of)) {
                            (Ok(jt), Ok(jf)) => out.push(Insn { code, jt, jf, k }),
                            _ => {
                                far = Some((idx, code, k, t, f));
                                break;
                            }
                        }
                    }
                }
            }
            let Some((idx, code, k, t, f)) = far else {
                if out.len() > MAX_INSNS {
                    return Err(TooLong(out.len()));
                }
                return Ok(out);
            };
            // if cond goto near_t else near_f; near_t: ja t; near_f: ja f. Each pass removes
            // one far jump and adds two short ones, so this ends; the size check bounds it.
            if self.items.len() > 2 * MAX_INSNS {
                return Err(TooLong(self.items.len()));
            }
            let near_t = self.label();
            let near_f = self.label();
            let replacement = [
                Item::Cond {
                    code,
                    k,
                    t: near_t,
                    f: near_f,
                },
                Item::Place(near_t),
                Item::Goto(t),
                Item::Place(near_f),
                Item::Goto(f),
            ];
            self.items.splice(idx..=idx, replacement);
        }
    }

    /// The instruction index each label stands at.
    fn positions(&self) -> Vec<Option<usize>> {
        let mut pos = vec![None; self.labels];
        let mut n = 0usize;
        for item in &self.items {
            match item {
                Item::Place(l) => {
                    if let Some(p) = pos.get_mut(l.0) {
                        *p = Some(n);
                    }
                }
                _ => n += 1,
            }
        }
        pos
    }
}

/// Renders a program as `tcpdump -d` does, for `--debug-filter` and test failures.
pub fn disassemble(prog: &[Insn]) -> String {
    let mut s = String::new();
    for (n, i) in prog.iter().enumerate() {
        let class = i.code & 0x07;
        let size = match i.code & 0x18 {
            op::H => "h",
            op::B => "b",
            _ => "",
        };
        let text = match class {
            op::LD => match i.code & 0xe0 {
                op::ABS if i.k >= ancillary::AD_OFF => {
                    format!("ld{size} [ancillary {}]", i.k - ancillary::AD_OFF)
                }
                op::ABS => format!("ld{size} [{}]", i.k),
                op::IND => format!("ld{size} [x + {}]", i.k),
                op::IMM => format!("ld #{:#x}", i.k),
                _ => format!("ld? {:#06x} {}", i.code, i.k),
            },
            op::LDX if i.code & 0xe0 == op::MSH => format!("ldxb 4*([{}]&0xf)", i.k),
            op::JMP if i.code & 0xf0 == op::JA => format!("ja {}", n + 1 + i.k as usize),
            op::JMP => {
                let name = match i.code & 0xf0 {
                    op::JEQ => "jeq",
                    op::JGT => "jgt",
                    op::JGE => "jge",
                    op::JSET => "jset",
                    _ => "j?",
                };
                format!(
                    "{name} #{:#x} jt {} jf {}",
                    i.k,
                    n + 1 + usize::from(i.jt),
                    n + 1 + usize::from(i.jf)
                )
            }
            op::RET => format!("ret #{}", i.k),
            _ => format!("{:#06x} {} {} {}", i.code, i.jt, i.jf, i.k),
        };
        s.push_str(&format!("({n:03}) {text}\n"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ret(b: &mut Builder, k: u32) {
        b.insn(op::RET | op::K, k);
    }

    #[test]
    fn labels_resolve_to_forward_offsets() {
        let mut b = Builder::new();
        let yes = b.label();
        let no = b.label();
        b.insn(op::LD | op::B | op::ABS, 0);
        b.cond(op::JEQ, 7, yes, no);
        b.place(no);
        ret(&mut b, 0);
        b.place(yes);
        ret(&mut b, 1);
        let p = b.finish().unwrap();
        assert_eq!(p[1].jt, 1);
        assert_eq!(p[1].jf, 0);
        assert_eq!(run(&p, &[7], &Meta::default()), 1);
        assert_eq!(run(&p, &[8], &Meta::default()), 0);
        // A load past the end drops the packet, as in the kernel.
        assert_eq!(run(&p, &[], &Meta::default()), 0);
    }

    #[test]
    fn far_jumps_go_through_trampolines() {
        let mut b = Builder::new();
        let yes = b.label();
        let no = b.label();
        b.insn(op::LD | op::B | op::ABS, 0);
        b.cond(op::JEQ, 7, yes, no);
        b.place(no);
        for _ in 0..600 {
            b.insn(op::LD | op::IMM, 0);
        }
        ret(&mut b, 0);
        b.place(yes);
        ret(&mut b, 1);
        let p = b.finish().unwrap();
        assert!(p.len() > 600);
        assert_eq!(run(&p, &[7], &Meta::default()), 1);
        assert_eq!(run(&p, &[8], &Meta::default()), 0);
    }

    #[test]
    fn too_long_is_refused() {
        let mut b = Builder::new();
        for _ in 0..=MAX_INSNS {
            b.insn(op::LD | op::IMM, 0);
        }
        assert!(b.finish().is_err());
    }

    #[test]
    fn ancillary_and_indirect_loads() {
        let mut b = Builder::new();
        let yes = b.label();
        let no = b.label();
        let next = b.label();
        b.insn(
            op::LD | op::H | op::ABS,
            ancillary::AD_OFF + ancillary::PROTOCOL,
        );
        b.cond(op::JEQ, 0x86dd, next, no);
        b.place(next);
        b.insn(op::LDX | op::B | op::MSH, 0);
        b.insn(op::LD | op::H | op::IND, 0);
        b.cond(op::JEQ, 0xabcd, yes, no);
        b.place(no);
        ret(&mut b, 0);
        b.place(yes);
        ret(&mut b, 9);
        let p = b.finish().unwrap();
        let meta = Meta {
            protocol: 0x86dd,
            ..Meta::default()
        };
        // x = 4 * (0x41 & 0xf) = 4: the half-word at 4.
        let pkt = [0x41, 0, 0, 0, 0xab, 0xcd];
        assert_eq!(run(&p, &pkt, &meta), 9);
        assert_eq!(run(&p, &pkt, &Meta::default()), 0);
        assert_eq!(run(&p, &pkt[..5], &meta), 0);
    }
}
