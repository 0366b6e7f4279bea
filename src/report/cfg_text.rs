//! The CFG of a kernel as Graphviz DOT or as a plain-text listing.

use std::fmt::Write;

use crate::analysis::BlockId;
use crate::ir::call::Callee;
use crate::program::Program;

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('{', "\\{")
        .replace('}', "\\}")
        .replace('<', "\\<")
        .replace('>', "\\>")
        .replace('|', "\\|")
}

fn loop_note(p: &Program, k: usize, b: BlockId) -> String {
    let a = &p.analyses[k];
    let mut notes = Vec::new();
    for (i, l) in a.loops.loops.iter().enumerate() {
        if l.header == b {
            notes.push(format!("loop L{i} header, depth {}", l.depth));
        }
    }
    if notes.is_empty()
        && let Some(l) = a.loops.innermost(b)
    {
        notes.push(format!("in loop L{} (depth {})", l.0, a.loops.get(l).depth));
    }
    notes.join("; ")
}

/// What a `call` instruction calls, for the listings (`None` for other
/// instructions).
fn call_note(p: &Program, k: usize, i: usize) -> Option<String> {
    let kernel = p.kernel(k);
    let inst = &kernel.insts[i];
    if inst.op != crate::ir::Opcode::Call {
        return None;
    }
    let crate::ir::Operand::Imm(site) = inst.src[0] else {
        return None;
    };
    let site = kernel.calls.get(site as usize)?;
    Some(match site.callee {
        Callee::Direct(f) => match kernel.funcs.get(f as usize) {
            Some(func) => format!("calls {}", func.name),
            None => "calls an undefined function".to_string(),
        },
        Callee::Indirect(r) => format!(
            "indirect call through {}",
            kernel
                .regs
                .get(r.0 as usize)
                .map_or("?", |r| r.name.as_str())
        ),
    })
}

/// The instruction range `gpusim cfg --func NAME` shows: the entry's own
/// code for `None`, else the named function's. Errors name the functions.
pub fn func_range(p: &Program, k: usize, func: Option<&str>) -> Result<(u32, u32), String> {
    let kernel = p.kernel(k);
    match func {
        None => Ok((0, kernel.insts.len() as u32)),
        Some(name) => match kernel.funcs.iter().find(|f| f.name == name) {
            Some(f) => Ok((f.entry.0, f.end.0)),
            None => {
                let names: Vec<String> = kernel
                    .funcs
                    .iter()
                    .map(|f| format!("`{}`", f.name))
                    .collect();
                Err(if names.is_empty() {
                    format!("kernel `{}` calls no device function", kernel.name)
                } else {
                    format!(
                        "kernel `{}` has no device function `{name}`; it links {}",
                        kernel.name,
                        names.join(", ")
                    )
                })
            }
        },
    }
}

/// Graphviz: one box per block listing its instructions (with loop
/// begin/end markers), solid edges for control flow (`T` taken, `F`
/// fall-through), dashed edges to each block's immediate post-dominator,
/// loop headers filled and labelled with their depth; each device function
/// is a cluster, and dotted `call` edges go from a calling block to its
/// callee's first block.
pub fn to_dot(p: &Program, k: usize) -> String {
    to_dot_range(p, k, (0, p.kernel(k).insts.len() as u32))
}

/// [`to_dot`] restricted to the blocks in the instruction range `range`.
pub fn to_dot_range(p: &Program, k: usize, range: (u32, u32)) -> String {
    let kernel = p.kernel(k);
    let a = &p.analyses[k];
    let shown = |b: &crate::analysis::cfg::Block| b.start.0 >= range.0 && b.start.0 < range.1;
    let mut out = String::new();
    let _ = writeln!(out, "digraph \"{}\" {{", escape(&kernel.name));
    let _ = writeln!(
        out,
        "  node [shape=box, fontname=\"monospace\", fontsize=10];"
    );
    let _ = writeln!(out, "  exit [label=\"EXIT\", shape=ellipse];");
    for (bi, block) in a.cfg.blocks.iter().enumerate() {
        if !shown(block) {
            continue;
        }
        let b = BlockId(bi as u32);
        if let Some(f) = kernel.funcs.iter().find(|f| f.entry == block.start) {
            let _ = writeln!(
                out,
                "  fn{bi} [label=\"function {}\", shape=note];\n  fn{bi} -> b{bi} [style=dotted];",
                escape(&f.name)
            );
        }
        let mut label = format!("B{bi}");
        let note = loop_note(p, k, b);
        if !note.is_empty() {
            let _ = write!(label, " ({note})");
        }
        label.push_str("\\l");
        for i in block.start.0..block.end.0 {
            let id = crate::ir::InstId(i);
            let mut marks = String::new();
            if let Some(l) = a.loops.begins_at(id) {
                let _ = write!(marks, " // loop L{} begin", l.0);
            }
            for l in a.loops.ends_at(id) {
                let _ = write!(marks, " // loop L{} end", l.0);
            }
            if let Some(c) = call_note(p, k, i as usize) {
                let _ = write!(marks, " // {c}");
            }
            let _ = write!(
                label,
                "{:4}: {}{}\\l",
                i,
                escape(&p.inst_text(k, i as usize)),
                escape(&marks)
            );
        }
        let style = if a.loops.loops.iter().any(|l| l.header == b) {
            ", style=filled, fillcolor=\"#e8f0ff\""
        } else {
            ""
        };
        let _ = writeln!(out, "  b{bi} [label=\"{label}\"{style}];");
    }
    for (bi, block) in a.cfg.blocks.iter().enumerate() {
        if !shown(block) {
            continue;
        }
        for i in block.start.0..block.end.0 {
            let inst = &kernel.insts[i as usize];
            if let (crate::ir::Opcode::Call, crate::ir::Operand::Imm(site)) = (inst.op, inst.src[0])
                && let Some(Callee::Direct(f)) = kernel.calls.get(site as usize).map(|s| s.callee)
                && let Some(func) = kernel.funcs.get(f as usize)
                && func.entry.0 >= range.0
                && func.entry.0 < range.1
            {
                let _ = writeln!(
                    out,
                    "  b{bi} -> b{} [style=dotted, color=blue, label=\"call\", fontcolor=blue];",
                    a.cfg.block_of(func.entry).0
                );
            }
        }
        let two = block.fallthrough.is_some() && block.taken.is_some();
        if let Some(f) = block.fallthrough {
            let _ = writeln!(
                out,
                "  b{bi} -> b{}{};",
                f.0,
                if two { " [label=\"F\"]" } else { "" }
            );
        }
        if let Some(t) = block.taken {
            let _ = writeln!(
                out,
                "  b{bi} -> b{}{};",
                t.0,
                if two { " [label=\"T\"]" } else { "" }
            );
        }
        if block.exits {
            let _ = writeln!(out, "  b{bi} -> exit;");
        }
    }
    for (bi, ip) in a.postdom.all().iter().enumerate() {
        if !shown(&a.cfg.blocks[bi]) {
            continue;
        }
        let target = ip.map_or("exit".to_string(), |p| format!("b{}", p.0));
        let _ = writeln!(
            out,
            "  b{bi} -> {target} [style=dashed, color=gray40, constraint=false, label=\"ipdom\", fontcolor=gray40];"
        );
    }
    out.push_str("}\n");
    out
}

/// Plain text: each block with its instructions, successors, ipdom and
/// loop; each device function starts with a `function` line, and each
/// `call` names its callee.
pub fn to_text(p: &Program, k: usize) -> String {
    to_text_range(p, k, (0, p.kernel(k).insts.len() as u32))
}

/// [`to_text`] restricted to the blocks in the instruction range `range`
/// (a function's, from [`func_range`]).
pub fn to_text_range(p: &Program, k: usize, range: (u32, u32)) -> String {
    let kernel = p.kernel(k);
    let a = &p.analyses[k];
    let mut out = String::new();
    let _ = write!(
        out,
        "kernel {}: {} instructions, {} blocks, {} loops",
        kernel.name,
        kernel.insts.len(),
        a.cfg.len(),
        a.loops.loops.len()
    );
    if kernel.funcs.is_empty() {
        out.push('\n');
    } else {
        let _ = writeln!(
            out,
            ", {} device function{} (instructions {}..)",
            kernel.funcs.len(),
            if kernel.funcs.len() == 1 { "" } else { "s" },
            kernel.entry_end().0
        );
    }
    for (bi, block) in a.cfg.blocks.iter().enumerate() {
        if block.start.0 < range.0 || block.start.0 >= range.1 {
            continue;
        }
        if let Some(f) = kernel.funcs.iter().find(|f| f.entry == block.start) {
            let _ = writeln!(
                out,
                "function {}: insts {}..{}, {} parameter{}, {} return value{}{}",
                f.name,
                f.entry.0,
                f.end.0,
                f.params.len(),
                if f.params.len() == 1 { "" } else { "s" },
                f.rets.len(),
                if f.rets.len() == 1 { "" } else { "s" },
                if f.recursive { ", recursive" } else { "" }
            );
        }
        let b = BlockId(bi as u32);
        let succs: Vec<String> = block
            .succs
            .iter()
            .map(|s| format!("B{}", s.0))
            .chain(block.exits.then(|| "EXIT".to_string()))
            .collect();
        let ipdom = a
            .postdom
            .ipdom(b)
            .map_or("EXIT".to_string(), |p| format!("B{}", p.0));
        let note = loop_note(p, k, b);
        let _ = writeln!(
            out,
            "B{bi}: insts {}..{}  succs [{}]  ipdom {}{}",
            block.start.0,
            block.end.0,
            succs.join(", "),
            ipdom,
            if note.is_empty() {
                String::new()
            } else {
                format!("  {note}")
            }
        );
        for i in block.start.0..block.end.0 {
            let _ = write!(
                out,
                "  {:4}  line {:4}  {}",
                i,
                kernel.insts[i as usize].line,
                p.inst_text(k, i as usize)
            );
            match call_note(p, k, i as usize) {
                Some(c) => {
                    let _ = writeln!(out, "  -> {c}");
                }
                None => out.push('\n'),
            }
        }
    }
    for (i, l) in a.loops.loops.iter().enumerate() {
        if l.begin.0 < range.0 || l.begin.0 >= range.1 {
            continue;
        }
        let blocks: Vec<String> = l.blocks.iter().map(|b| format!("B{}", b.0)).collect();
        let _ = writeln!(
            out,
            "loop L{i}: header B{} depth {} parent {} blocks [{}] begin {} end {}",
            l.header.0,
            l.depth,
            l.parent.map_or("-".to_string(), |p| format!("L{}", p.0)),
            blocks.join(", "),
            l.begin.0,
            l.end.0
        );
    }
    out
}
