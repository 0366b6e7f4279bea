//! Lowering produces the IR the interpreter will execute: names resolved to
//! dense ids, immediates as bit patterns of the operand type, labels as
//! instruction ids, modifiers decoded. Expected values are computed by hand
//! (or by Rust's own float conversions) from the source text.

use gpusim::ir::*;

fn kernel(body: &str) -> Kernel {
    let src = format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n\
         .global .align 4 .u32 gcount;\n\
         .visible .entry k(.param .u32 k_n, .param .u64 k_ptr, .param .f32 k_x)\n{{\n\
         .reg .pred %p<4>;\n.reg .b32 %r<10>;\n.reg .f32 %f<6>;\n.reg .f64 %fd<3>;\n.reg .b64 %rd<6>;\n\
         .shared .align 16 .f32 tile[64];\n{body}\n}}\n"
    );
    let p =
        gpusim::compile(gpusim::SourceFile::new("t.ptx", src)).unwrap_or_else(|d| panic!("{d}"));
    p.module.kernels[0].clone()
}

fn reg(k: &Kernel, name: &str) -> RegId {
    RegId(
        k.regs
            .iter()
            .position(|r| r.name == name)
            .unwrap_or_else(|| panic!("{name} unused")) as u32,
    )
}

#[test]
fn params_are_laid_out_with_natural_alignment() {
    let k = kernel("ret;");
    let offsets: Vec<(u32, u32)> = k.params.iter().map(|p| (p.offset, p.size)).collect();
    assert_eq!(offsets, vec![(0, 4), (8, 8), (16, 4)]);
    assert_eq!(k.param_bytes, 20);
    assert_eq!(k.shared_bytes(), 256);
    // Module-scope variables come first in the kernel's variable table.
    assert_eq!(k.vars[0].name, "gcount");
    assert!(k.vars[0].module_scope);
    assert_eq!(k.vars[1].name, "tile");
    assert_eq!(
        (k.vars[1].space, k.vars[1].size, k.vars[1].align),
        (Space::Shared, 256, 16)
    );
}

#[test]
fn registers_are_dense_in_first_use_order() {
    let k = kernel("mov.u32 %r7, %tid.x;\nadd.s32 %r3, %r7, %r7;\nmov.f32 %f2, 0f00000000;");
    let names: Vec<&str> = k.regs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, vec!["%r7", "%r3", "%f2"]);
    assert_eq!(k.regs[2].ty, Type::F32);
    assert_eq!(k.insts[0].dst, Operand::Reg(RegId(0)));
    assert_eq!(k.insts[0].src[0], Operand::Special(SpecialReg::Tid(0)));
    assert_eq!(
        k.insts[1].srcs(),
        &[Operand::Reg(RegId(0)), Operand::Reg(RegId(0))]
    );
}

#[test]
fn immediates_become_bit_patterns_of_the_operand_type() {
    let k = kernel(
        "add.s32 %r1, %r2, -1;\n\
         mov.f32 %f1, 0f3F800000;\n\
         mov.f32 %f2, 1.5;\n\
         mov.f64 %fd1, 0f3F800000;\n\
         mov.f64 %fd2, 0d4000000000000000;\n\
         add.u32 %r3, %r2, 0xFFFFFFFF;\n\
         mov.b64 %rd1, -2;\n\
         mov.f32 %f3, 0d3FF0000000000000;\n\
         setp.ne.s32 %p1, %r2, -2147483648;",
    );
    let imm = |i: usize, s: usize| match k.insts[i].src[s] {
        Operand::Imm(b) => b,
        o => panic!("{o:?}"),
    };
    assert_eq!(imm(0, 1), 0xFFFF_FFFF);
    assert_eq!(imm(1, 0), 0x3F80_0000);
    assert_eq!(imm(2, 0), u64::from(1.5f32.to_bits()));
    assert_eq!(imm(3, 0), 1.0f64.to_bits());
    assert_eq!(imm(4, 0), 2.0f64.to_bits());
    assert_eq!(imm(5, 1), 0xFFFF_FFFF);
    assert_eq!(imm(6, 0), (-2i64) as u64);
    assert_eq!(imm(7, 0), u64::from(1.0f32.to_bits()));
    assert_eq!(imm(8, 1), 0x8000_0000);
}

#[test]
fn labels_resolve_to_instruction_ids() {
    let k = kernel(
        "TOP:\nadd.s32 %r1, %r1, 1;\nsetp.lt.s32 %p1, %r1, 4;\n@%p1 bra TOP;\n@!%p1 bra END;\nEND:\nret;",
    );
    assert_eq!(k.insts[2].target(), Some(InstId(0)));
    assert_eq!(k.insts[2].guard.map(|g| g.negate), Some(false));
    assert_eq!(k.insts[3].target(), Some(InstId(4)));
    assert_eq!(k.insts[3].guard.map(|g| g.negate), Some(true));
    assert_eq!(
        k.labels,
        vec![
            ("TOP".to_string(), InstId(0)),
            ("END".to_string(), InstId(4))
        ]
    );
}

#[test]
fn address_forms() {
    let k = kernel(
        "ld.param.u64 %rd1, [k_ptr];\n\
         ld.global.u32 %r1, [%rd1+-8];\n\
         ld.global.u32 %r2, [%rd1+12];\n\
         ld.shared.f32 %f1, [tile+4];\n\
         ld.global.u32 %r3, [gcount];\n\
         st.global.u32 [0x100], %r3;\n\
         mov.u32 %r4, tile;\n\
         ld.shared.f32 %f2, [%r4];",
    );
    let addr = |i: usize, s: usize| match k.insts[i].src[s] {
        Operand::Addr(a) => a,
        o => panic!("{o:?}"),
    };
    assert_eq!(
        addr(0, 0),
        Address {
            base: AddrBase::Param(ParamId(1)),
            offset: 0
        }
    );
    assert_eq!(
        addr(1, 0),
        Address {
            base: AddrBase::Reg(reg(&k, "%rd1")),
            offset: -8
        }
    );
    assert_eq!(addr(2, 0).offset, 12);
    assert_eq!(
        addr(3, 0),
        Address {
            base: AddrBase::Var(VarId(1)),
            offset: 4
        }
    );
    assert_eq!(
        addr(4, 0),
        Address {
            base: AddrBase::Var(VarId(0)),
            offset: 0
        }
    );
    assert_eq!(
        addr(5, 0),
        Address {
            base: AddrBase::Absolute,
            offset: 0x100
        }
    );
    assert_eq!(k.insts[5].src[1], Operand::Reg(reg(&k, "%r3")));
    assert_eq!(k.insts[6].src[0], Operand::VarAddr(VarId(1)));
    assert_eq!(addr(7, 0).base, AddrBase::Reg(reg(&k, "%r4")));
}

#[test]
fn vectors_pairs_and_negated_predicates() {
    let k = kernel(
        "ld.param.u64 %rd1, [k_ptr];\n\
         ld.global.v4.f32 {%f1, %f2, _, %f4}, [%rd1];\n\
         st.global.v2.f32 [%rd1+8], {%f1, %f2};\n\
         setp.lt.and.s32 %p1|%p2, %r1, %r2, !%p3;\n\
         shfl.sync.down.b32 %r3|%p1, %r1, 1, 31, -1;\n\
         vote.sync.ballot.b32 %r4, %p1, -1;",
    );
    match k.insts[1].dst {
        Operand::Vector { regs, len } => {
            assert_eq!(len, 4);
            assert!(
                regs[0].is_some() && regs[1].is_some() && regs[2].is_none() && regs[3].is_some()
            );
        }
        o => panic!("{o:?}"),
    }
    assert_eq!(k.insts[1].mods.vec, 4);
    assert!(matches!(k.insts[2].src[1], Operand::Vector { len: 2, .. }));
    let setp = &k.insts[3];
    assert_eq!(setp.mods.cmp, CmpOp::Lt);
    assert_eq!(setp.mods.bool_op, Some(BoolOp::And));
    assert!(matches!(setp.dst, Operand::Pred { negate: false, .. }));
    assert!(matches!(setp.dst2, Operand::Pred { negate: false, .. }));
    assert!(matches!(setp.src[2], Operand::Pred { negate: true, .. }));
    let shfl = &k.insts[4];
    assert_eq!(shfl.mods.shfl, ShflMode::Down);
    assert!(matches!(shfl.dst, Operand::Reg(_)));
    assert!(matches!(shfl.dst2, Operand::Pred { .. }));
    assert_eq!(
        shfl.srcs(),
        &[
            Operand::Reg(reg(&k, "%r1")),
            Operand::Imm(1),
            Operand::Imm(31),
            Operand::Imm(0xFFFF_FFFF)
        ]
    );
    assert_eq!(k.insts[5].mods.vote, VoteMode::Ballot);
}

#[test]
fn modifiers_are_decoded() {
    let k = kernel(
        "cvt.rzi.s32.f32 %r1, %f1;\n\
         mul.wide.s32 %rd1, %r1, 4;\n\
         mad.hi.u32 %r2, %r1, %r1, %r1;\n\
         div.approx.ftz.f32 %f2, %f1, %f1;\n\
         atom.global.cas.wait.b32 %r3, [%rd1], 0, 1;\n\
         ld.global.wait.b32 %r4, [%rd1], %r3;\n\
         wait.global.b32 [%rd1], 7;\n\
         atom.shared.inc.u32 %r5, [%r1], 100;\n\
         bar.sync 1, 64;\n\
         membar.gl;\n\
         cvta.to.global.u64 %rd2, %rd1;\n\
         ld.volatile.global.u32 %r6, [%rd2];\n\
         ld.global.u8 %r7, [%rd2];",
    );
    let i = &k.insts;
    assert_eq!(
        (i[0].op, i[0].ty, i[0].ty2, i[0].mods.round),
        (Opcode::Cvt, Type::S32, Type::F32, Round::Rzi)
    );
    assert_eq!((i[1].mods.mul, i[1].ty), (MulMode::Wide, Type::S32));
    assert_eq!(i[2].mods.mul, MulMode::Hi);
    assert!(i[3].mods.has(flag::APPROX) && i[3].mods.has(flag::FTZ));
    assert_eq!(
        (i[4].op, i[4].mods.atom, i[4].mods.space),
        (Opcode::Atom, AtomOp::Cas, Space::Global)
    );
    assert!(i[4].mods.has(flag::WAIT));
    assert_eq!(i[4].nsrc, 3);
    assert!(i[5].mods.has(flag::WAIT) && i[5].op == Opcode::Ld);
    assert_eq!(i[5].nsrc, 2);
    assert_eq!((i[6].op, i[6].src[1]), (Opcode::Wait, Operand::Imm(7)));
    assert_eq!(
        (i[7].mods.atom, i[7].mods.space),
        (AtomOp::Inc, Space::Shared)
    );
    assert_eq!(
        (i[8].mods.bar, i[8].srcs()),
        (BarKind::Sync, &[Operand::Imm(1), Operand::Imm(64)][..])
    );
    assert_eq!((i[9].op, i[9].mods.scope), (Opcode::Membar, Scope::Gpu));
    assert!(i[10].mods.has(flag::TO));
    assert!(i[11].mods.has(flag::VOLATILE));
    // A byte load into a 32-bit register is allowed (ld may widen).
    assert_eq!(i[12].ty, Type::U8);
    // Source lines are recorded (the body starts on line 13 of the module).
    assert_eq!(i[0].line, 13);
    assert_eq!(i[12].line, 25);
}

#[test]
fn predicate_logic_and_moves() {
    let k = kernel(
        "setp.lt.s32 %p1, %r1, 0;\n\
         mov.pred %p2, %p1;\n\
         mov.pred %p3, 1;\n\
         and.pred %p2, %p1, %p3;\n\
         xor.pred %p3, %p2, %p1;\n\
         not.pred %p1, %p2;\n\
         selp.u32 %r2, 1, 0, %p1;\n\
         mov.pred %p3, -1;",
    );
    // nvcc's spelling of true.
    assert_eq!(k.insts[7].src[0], Operand::Imm(1));
    // Any other literal is an error at the operand.
    let src = ".version 7.0\n.target sm_70\n.address_size 64\n\
               .visible .entry k()\n{\n.reg .pred %p<2>;\nmov.pred %p1, 2;\nret;\n}\n";
    let Err(err) = gpusim::compile(gpusim::SourceFile::new("t.ptx", src.to_string())) else {
        panic!("2 is not a predicate");
    };
    let err = err.to_string();
    assert!(err.contains("predicate literal"), "{err}");
    let pred = |o: Operand| match o {
        Operand::Pred { id, negate: false } => id.0,
        o => panic!("{o:?}"),
    };
    assert_eq!(k.preds, vec!["%p1", "%p2", "%p3"]);
    assert_eq!((pred(k.insts[1].dst), pred(k.insts[1].src[0])), (1, 0));
    assert_eq!(k.insts[2].src[0], Operand::Imm(1));
    assert_eq!(
        (
            pred(k.insts[3].dst),
            pred(k.insts[3].src[0]),
            pred(k.insts[3].src[1])
        ),
        (1, 0, 2)
    );
    assert_eq!((k.insts[5].op, pred(k.insts[5].dst)), (Opcode::Not, 0));
    assert_eq!(
        k.insts[6].srcs(),
        &[
            Operand::Imm(1),
            Operand::Imm(0),
            Operand::Pred {
                id: PredId(0),
                negate: false
            }
        ]
    );
}
