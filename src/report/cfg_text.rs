//! The CFG of a kernel as Graphviz DOT or as a plain-text listing.

use std::fmt::Write;

use crate::analysis::BlockId;
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

/// Graphviz: one box per block listing its instructions (with loop
/// begin/end markers), solid edges for control flow (`T` taken, `F`
/// fall-through), dashed edges to each block's immediate post-dominator,
/// loop headers filled and labelled with their depth.
pub fn to_dot(p: &Program, k: usize) -> String {
    let kernel = p.kernel(k);
    let a = &p.analyses[k];
    let mut out = String::new();
    let _ = writeln!(out, "digraph \"{}\" {{", escape(&kernel.name));
    let _ = writeln!(
        out,
        "  node [shape=box, fontname=\"monospace\", fontsize=10];"
    );
    let _ = writeln!(out, "  exit [label=\"EXIT\", shape=ellipse];");
    for (bi, block) in a.cfg.blocks.iter().enumerate() {
        let b = BlockId(bi as u32);
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
        let target = ip.map_or("exit".to_string(), |p| format!("b{}", p.0));
        let _ = writeln!(
            out,
            "  b{bi} -> {target} [style=dashed, color=gray40, constraint=false, label=\"ipdom\", fontcolor=gray40];"
        );
    }
    out.push_str("}\n");
    out
}

/// Plain text: each block with its instructions, successors, ipdom and loop.
pub fn to_text(p: &Program, k: usize) -> String {
    let kernel = p.kernel(k);
    let a = &p.analyses[k];
    let mut out = String::new();
    let _ = writeln!(
        out,
        "kernel {}: {} instructions, {} blocks, {} loops",
        kernel.name,
        kernel.insts.len(),
        a.cfg.len(),
        a.loops.loops.len()
    );
    for (bi, block) in a.cfg.blocks.iter().enumerate() {
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
            let _ = writeln!(
                out,
                "  {:4}  line {:4}  {}",
                i,
                kernel.insts[i as usize].line,
                p.inst_text(k, i as usize)
            );
        }
    }
    for (i, l) in a.loops.loops.iter().enumerate() {
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
