//! Long-operation-first warp scheduling, `lfws` [Liu et al., "LFWS:
//! Long-Operation First Warp Scheduling Algorithm to Effectively Hide the
//! Latency for GPUs", IEICE Trans. Fundamentals E106-A(8), 2023, §2.2–2.3,
//! Alg. 1–2].
//!
//! Each cycle the ready warps (a valid instruction in the I-buffer, not
//! waiting at a barrier, a memory barrier, an atomic or its launch) are
//! split by their next instruction: the *long* group — a load or store to
//! global, local or texture memory — goes before the *short* group. Inside
//! each group the warp issued last comes first (if it is in that group),
//! then the rest by ascending warp id (GPGPU-Sim's dynamic warp id: age,
//! then slot, as in `gto`).
//!
//! Warps the filter removes cannot issue this cycle anyway, so they are
//! listed after the ready queue (in age order): the issue outcome is the
//! same and the issue stage can keep its incremental bookkeeping.

use crate::sched::{IssuePolicy, Issued, LaunchInfo, SchedView};
use crate::timing::units::TimingInst;

/// Per PC of a kernel's timing table: a long operation
/// ([`TimingInst::long_op`]).
pub fn long_ops(table: &[TimingInst]) -> Vec<bool> {
    table.iter().map(|t| t.long_op).collect()
}

/// True if the warp in `slot` is next to run a long operation.
fn is_long(view: &SchedView<'_>, long: &[bool], slot: u32) -> bool {
    long.get(view.info[slot as usize].pc as usize)
        .copied()
        .unwrap_or(false)
}

/// Writes `members` (in their given order, which is the id order) as the
/// long group then the short group, each with `last` first when it is a
/// member of that group (Alg. 2 lines 17–24, `sort_by_greedy_then_warpID_asc`).
pub(crate) fn long_first(
    view: &SchedView<'_>,
    long: &[bool],
    last: Option<u32>,
    members: &[u32],
    out: &mut Vec<u32>,
) {
    let last = last.filter(|l| members.contains(l));
    for want_long in [true, false] {
        if let Some(l) = last.filter(|&l| is_long(view, long, l) == want_long) {
            out.push(l);
        }
        out.extend(
            members
                .iter()
                .copied()
                .filter(|&w| Some(w) != last && is_long(view, long, w) == want_long),
        );
    }
}

/// The `lfws` issue policy.
#[derive(Debug, Default)]
pub struct Lfws {
    /// Per PC of the current kernel: a long operation.
    long: Vec<bool>,
    /// The warp issued last.
    last: Option<u32>,
    /// Scratch: the ready warps in age order.
    ready: Vec<u32>,
}

impl IssuePolicy for Lfws {
    fn orders_every_warp(&self) -> bool {
        true
    }
    fn order(&mut self, view: &SchedView<'_>, out: &mut Vec<u32>) {
        // Alg. 1: exited and barrier-waiting warps are pending. (Memory
        // barriers, atomics and empty I-buffers keep a warp from issuing
        // too, which the issue stage checks; they cannot change the order
        // of the warps that can issue.)
        let pending = |w: u32| {
            let i = &view.info[w as usize];
            i.done || i.at_barrier
        };
        self.ready.clear();
        self.ready
            .extend(view.warps.iter().copied().filter(|&w| !pending(w)));
        long_first(view, &self.long, self.last, &self.ready, out);
        out.extend(view.warps.iter().copied().filter(|&w| pending(w)));
    }
    fn on_issue(&mut self, slot: u32, _v: &SchedView<'_>, _i: &TimingInst, _w: &Issued) {
        self.last = Some(slot);
    }
    fn on_launch(&mut self, launch: &LaunchInfo<'_>) {
        self.long = long_ops(launch.table);
        self.last = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::WarpView;

    /// Six warps of one CTA (same age), next PCs as given; PC 0 is long.
    fn info(pcs: &[u32]) -> Vec<WarpView> {
        pcs.iter()
            .map(|&pc| WarpView {
                live: true,
                pc,
                ..WarpView::default()
            })
            .collect()
    }

    fn order(p: &mut Lfws, info: &[WarpView]) -> Vec<u32> {
        let ids: Vec<u32> = (0..info.len() as u32).collect();
        let view = SchedView {
            warps: &ids,
            by_slot: &ids,
            info,
            ..SchedView::default()
        };
        let mut out = Vec::new();
        p.order(&view, &mut out);
        out
    }

    fn policy() -> Lfws {
        Lfws {
            long: vec![true, false],
            ..Lfws::default()
        }
    }

    #[test]
    fn long_group_goes_first_in_id_order() {
        let mut p = policy();
        // Warps 0, 2, 4, 5 next run a long op; 1 and 3 a short one (the
        // paper's Fig. 1 at its first cycle, ids from 0).
        let v = info(&[0, 1, 0, 1, 0, 0]);
        assert_eq!(order(&mut p, &v), vec![0, 2, 4, 5, 1, 3]);
    }

    #[test]
    fn the_last_issued_warp_leads_its_own_group_only() {
        let mut p = policy();
        let v = info(&[0, 1, 0, 1, 0, 0]);
        // Warp 3 issued last: it leads the short group, not the long one.
        p.last = Some(3);
        assert_eq!(order(&mut p, &v), vec![0, 2, 4, 5, 3, 1]);
        // Warp 4 issued last: it leads the long group.
        p.last = Some(4);
        assert_eq!(order(&mut p, &v), vec![4, 0, 2, 5, 1, 3]);
    }

    #[test]
    fn pending_warps_come_after_the_ready_queue() {
        let mut p = policy();
        let mut v = info(&[0, 1, 0, 1]);
        v[0].at_barrier = true;
        v[3].done = true;
        p.last = Some(0);
        // Warp 0 waits at a barrier: neither greedy nor in the long group.
        assert_eq!(order(&mut p, &v), vec![2, 1, 0, 3]);
    }

    #[test]
    fn id_order_is_age_order() {
        let mut p = policy();
        let v = info(&[0, 0, 1]);
        // Slot 2's CTA is older than slots 0 and 1's.
        let ages = [2, 0, 1];
        let slots = [0, 1, 2];
        let view = SchedView {
            warps: &ages,
            by_slot: &slots,
            info: &v,
            ..SchedView::default()
        };
        let mut out = Vec::new();
        p.order(&view, &mut out);
        assert_eq!(out, vec![0, 1, 2]);
        let v = info(&[0, 1, 0]);
        let view = SchedView {
            warps: &ages,
            by_slot: &slots,
            info: &v,
            ..SchedView::default()
        };
        out.clear();
        p.order(&view, &mut out);
        assert_eq!(out, vec![2, 0, 1]);
    }

    #[test]
    fn long_ops_are_global_and_local_loads_and_stores() {
        let src = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry k(.param .u64 p) {
  .reg .b64 %rd<3>; .reg .b32 %r<4>; .shared .b32 s[32]; .local .b32 l[4];
  ld.param.u64 %rd1, [p];
  ld.global.u32 %r1, [%rd1];
  st.global.u32 [%rd1], %r1;
  ld.shared.u32 %r2, [s];
  ld.local.u32 %r3, [l];
  ld.u32 %r2, [%rd1];
  atom.global.add.u32 %r2, [%rd1], 1;
  add.u32 %r1, %r1, 1;
  ret;
}
"#;
        let p = crate::program::compile_bytes("k.ptx", src.as_bytes()).expect("compiles");
        let i = p.entry(Some("k")).expect("entry");
        let cfg = crate::config::load_config("tiny", &[]).expect("tiny");
        let info = crate::func::layout::KernelInfo::new(p.kernel(i), &p.analyses[i], &|_| None);
        let table = crate::timing::units::timing_table(p.kernel(i), &info, &cfg);
        assert_eq!(
            long_ops(&table),
            vec![false, true, true, false, true, false, false, false, false]
        );
    }
}
