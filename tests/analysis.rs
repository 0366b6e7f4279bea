//! CFG, immediate post-dominators and natural loops on hand-built shapes.
//! Every expected value below was worked out by hand from the listing.

use gpusim::analysis::{BlockId, KernelAnalysis};
use gpusim::ir::InstId;

fn analyse(body: &str) -> KernelAnalysis {
    let src = format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k(.param .u64 k_p)\n{{\n\
         .reg .pred %p<5>;\n.reg .b32 %r<9>;\n.reg .b64 %rd<3>;\n{body}}}\n"
    );
    let p = gpusim::compile(gpusim::SourceFile::new("shape.ptx", src))
        .unwrap_or_else(|d| panic!("{d}"));
    p.analyses[0].clone()
}

/// (first instruction, successors, exits) of every block.
fn blocks(a: &KernelAnalysis) -> Vec<(u32, Vec<u32>, bool)> {
    a.cfg
        .blocks
        .iter()
        .map(|b| (b.start.0, b.succs.iter().map(|s| s.0).collect(), b.exits))
        .collect()
}

/// ipdom of every block; `None` = the virtual exit.
fn ipdoms(a: &KernelAnalysis) -> Vec<Option<u32>> {
    a.postdom.all().iter().map(|p| p.map(|b| b.0)).collect()
}

/// (header, blocks, depth, parent, begin, end) of a loop.
type LoopFacts = (u32, Vec<u32>, u32, Option<u32>, u32, u32);

/// The facts of every loop.
fn loops(a: &KernelAnalysis) -> Vec<LoopFacts> {
    a.loops
        .loops
        .iter()
        .map(|l| {
            (
                l.header.0,
                l.blocks.iter().map(|b| b.0).collect(),
                l.depth,
                l.parent.map(|p| p.0),
                l.begin.0,
                l.end.0,
            )
        })
        .collect()
}

#[test]
fn if_else_diamond() {
    let a = analyse(
        "  setp.lt.s32 %p1, %r1, 0;      // 0  B0\n\
           @%p1 bra ELSE;                 // 1\n\
           add.s32 %r2, %r1, 1;           // 2  B1\n\
           bra.uni JOIN;                  // 3\n\
         ELSE:\n  sub.s32 %r2, %r1, 1;      // 4  B2\n\
         JOIN:\n  st.global.u32 [%rd1], %r2; // 5  B3\n\
           ret;                           // 6\n",
    );
    assert_eq!(
        blocks(&a),
        vec![
            (0, vec![1, 2], false),
            (2, vec![3], false),
            (4, vec![3], false),
            (5, vec![], true)
        ]
    );
    assert_eq!(ipdoms(&a), vec![Some(3), Some(3), Some(3), None]);
    assert!(loops(&a).is_empty());
    // The divergent branch reconverges at JOIN.
    assert_eq!(a.reconvergence_pc(InstId(1)), Some(InstId(5)));
}

#[test]
fn nested_loops() {
    let a = analyse(
        "  mov.u32 %r1, 0;               // 0  B0\n\
         OUTER:\n  mov.u32 %r2, 0;         // 1  B1\n\
         INNER:\n  add.s32 %r3, %r3, %r2;  // 2  B2\n\
           add.s32 %r2, %r2, 1;           // 3\n\
           setp.lt.s32 %p1, %r2, 4;       // 4\n\
           @%p1 bra INNER;                // 5\n\
           add.s32 %r1, %r1, 1;           // 6  B3\n\
           setp.lt.s32 %p2, %r1, 4;       // 7\n\
           @%p2 bra OUTER;                // 8\n\
           ret;                           // 9  B4\n",
    );
    assert_eq!(
        blocks(&a),
        vec![
            (0, vec![1], false),
            (1, vec![2], false),
            (2, vec![3, 2], false),
            (6, vec![4, 1], false),
            (9, vec![], true)
        ]
    );
    assert_eq!(ipdoms(&a), vec![Some(1), Some(2), Some(3), Some(4), None]);
    assert_eq!(
        loops(&a),
        vec![
            (1, vec![1, 2, 3], 1, None, 1, 8),
            (2, vec![2], 2, Some(0), 2, 5)
        ]
    );
    assert_eq!(a.loops.depth(BlockId(2)), 2);
    assert_eq!(a.loops.depth(BlockId(3)), 1);
    assert_eq!(a.loops.depth(BlockId(4)), 0);
    assert_eq!(a.loops.begins_at(InstId(2)).map(|l| l.0), Some(1));
    assert_eq!(
        a.loops
            .ends_at(InstId(8))
            .iter()
            .map(|l| l.0)
            .collect::<Vec<_>>(),
        vec![0]
    );
}

#[test]
fn loop_with_early_exit() {
    let a = analyse(
        "  mov.u32 %r1, 0;               // 0  B0\n\
         LOOP:\n  ld.global.u32 %r2, [%rd1]; // 1 B1\n\
           setp.eq.s32 %p1, %r2, 0;       // 2\n\
           @%p1 bra DONE;                 // 3\n\
           add.s32 %r1, %r1, 1;           // 4  B2\n\
           setp.lt.s32 %p2, %r1, 10;      // 5\n\
           @%p2 bra LOOP;                 // 6\n\
           st.global.u32 [%rd1], %r1;     // 7  B3\n\
         DONE:\n  ret;                     // 8  B4\n",
    );
    assert_eq!(
        blocks(&a),
        vec![
            (0, vec![1], false),
            (1, vec![2, 4], false),
            (4, vec![3, 1], false),
            (7, vec![4], false),
            (8, vec![], true)
        ]
    );
    assert_eq!(ipdoms(&a), vec![Some(1), Some(4), Some(4), Some(4), None]);
    assert_eq!(loops(&a), vec![(1, vec![1, 2], 1, None, 1, 6)]);
}

#[test]
fn break_out_of_two_loops() {
    let a = analyse(
        "  mov.u32 %r1, 0;               // 0  B0\n\
         OUTER:\n  mov.u32 %r2, 0;         // 1  B1\n\
         INNER:\n  setp.eq.s32 %p1, %r2, %r4; // 2 B2\n\
           @%p1 bra FOUND;                // 3\n\
           add.s32 %r2, %r2, 1;           // 4  B3\n\
           setp.lt.s32 %p2, %r2, 8;       // 5\n\
           @%p2 bra INNER;                // 6\n\
           add.s32 %r1, %r1, 1;           // 7  B4\n\
           setp.lt.s32 %p3, %r1, 8;       // 8\n\
           @%p3 bra OUTER;                // 9\n\
           mov.u32 %r2, -1;               // 10 B5\n\
         FOUND:\n  ret;                    // 11 B6\n",
    );
    assert_eq!(
        blocks(&a),
        vec![
            (0, vec![1], false),
            (1, vec![2], false),
            (2, vec![3, 6], false),
            (4, vec![4, 2], false),
            (7, vec![5, 1], false),
            (10, vec![6], false),
            (11, vec![], true)
        ]
    );
    // Every path from inside either loop meets only at FOUND.
    assert_eq!(
        ipdoms(&a),
        vec![Some(1), Some(2), Some(6), Some(6), Some(6), Some(6), None]
    );
    assert_eq!(
        loops(&a),
        vec![
            (1, vec![1, 2, 3, 4], 1, None, 1, 9),
            (2, vec![2, 3], 2, Some(0), 2, 6)
        ]
    );
}

#[test]
fn dead_block_after_ret_inside_a_branch() {
    let a = analyse(
        "  setp.lt.s32 %p1, %r1, 0;      // 0  B0\n\
           @%p1 bra ELSE;                 // 1\n\
           st.global.u32 [%rd1], %r1;     // 2  B1\n\
           ret;                           // 3\n\
           add.s32 %r1, %r1, 1;           // 4  B2 (dead: after ret, no label)\n\
         ELSE:\n  st.global.u32 [%rd1], %r2; // 5 B3\n\
           ret;                           // 6\n",
    );
    assert_eq!(
        blocks(&a),
        vec![
            (0, vec![1, 3], false),
            (2, vec![], true),
            (4, vec![3], false),
            (5, vec![], true)
        ]
    );
    // The two paths of B0 only meet at exit; the dead block still has an ipdom.
    assert_eq!(ipdoms(&a), vec![None, None, Some(3), None]);
    assert_eq!(a.reconvergence_pc(InstId(1)), None);
}

#[test]
fn unreachable_block() {
    let a = analyse(
        "  mov.u32 %r1, 1;               // 0  B0\n\
           bra.uni L2;                    // 1\n\
           add.s32 %r1, %r1, 1;           // 2  B1 (unreachable)\n\
         L2:\n  ret;                       // 3  B2\n",
    );
    assert_eq!(
        blocks(&a),
        vec![(0, vec![2], false), (2, vec![2], false), (3, vec![], true)]
    );
    assert_eq!(a.cfg.blocks[2].preds, vec![BlockId(0), BlockId(1)]);
    assert_eq!(ipdoms(&a), vec![Some(2), Some(2), None]);
    assert!(loops(&a).is_empty());
}

#[test]
fn infinite_loop() {
    let a = analyse(
        "  setp.lt.s32 %p1, %r1, 0;      // 0  B0\n\
           @%p1 bra SPIN;                 // 1\n\
           st.global.u32 [%rd1], %r1;     // 2  B1\n\
           ret;                           // 3\n\
         SPIN:\n  add.s32 %r2, %r2, 1;     // 4  B2\n\
           bra.uni SPIN;                  // 5\n",
    );
    assert_eq!(
        blocks(&a),
        vec![
            (0, vec![1, 2], false),
            (2, vec![], true),
            (4, vec![2], false)
        ]
    );
    // B2 never exits; it gets a virtual exit edge so everything has an ipdom.
    assert_eq!(a.postdom.virtual_exits, vec![BlockId(2)]);
    assert_eq!(ipdoms(&a), vec![None, None, None]);
    assert_eq!(loops(&a), vec![(2, vec![2], 1, None, 4, 5)]);
}

#[test]
fn diamond_inside_an_infinite_loop_still_reconverges() {
    let a = analyse(
        "  mov.u32 %r1, 0;               // 0  B0\n\
         TOP:\n  setp.lt.s32 %p1, %r1, 0;  // 1  B1\n\
           @%p1 bra ELSE;                 // 2\n\
           add.s32 %r1, %r1, 1;           // 3  B2\n\
           bra.uni JOIN;                  // 4\n\
         ELSE:\n  sub.s32 %r1, %r1, 1;      // 5  B3\n\
         JOIN:\n  bra.uni TOP;              // 6  B4\n",
    );
    assert_eq!(
        blocks(&a),
        vec![
            (0, vec![1], false),
            (1, vec![2, 3], false),
            (3, vec![4], false),
            (5, vec![4], false),
            (6, vec![1], false)
        ]
    );
    // The latch B4 (highest block of the terminal SCC) gets the virtual edge.
    assert_eq!(a.postdom.virtual_exits, vec![BlockId(4)]);
    assert_eq!(ipdoms(&a), vec![Some(1), Some(4), Some(4), Some(4), None]);
    assert_eq!(a.reconvergence_pc(InstId(2)), Some(InstId(6)));
    assert_eq!(loops(&a), vec![(1, vec![1, 2, 3, 4], 1, None, 1, 6)]);
}

#[test]
fn guarded_ret_falls_through_and_exits() {
    let a = analyse(
        "  setp.lt.s32 %p1, %r1, 0;      // 0  B0\n\
           @%p1 ret;                      // 1\n\
           st.global.u32 [%rd1], %r1;     // 2  B1\n\
           ret;                           // 3\n",
    );
    assert_eq!(blocks(&a), vec![(0, vec![1], true), (2, vec![], true)]);
    assert_eq!(ipdoms(&a), vec![None, None]);
}

#[test]
fn falling_off_the_end_returns() {
    // No `ret`: lowering appends one, so the last block exits.
    let a = analyse("  mov.u32 %r1, 0;\n");
    assert_eq!(blocks(&a), vec![(0, vec![], true)]);
    assert_eq!(a.cfg.blocks[0].end, InstId(2));
}
