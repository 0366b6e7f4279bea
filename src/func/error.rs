//! Run-time errors of the functional core: each names the kernel, the
//! instruction (PC, source line), the CTA, warp and lane, and the address.

use std::fmt;

use crate::ir::Space;

/// What went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimErrorKind {
    /// A memory access outside every allocation / the space's size.
    OutOfBounds {
        /// State space.
        space: Space,
        /// Bytes accessed.
        size: u32,
        /// A store (or atomic write).
        write: bool,
        /// Where the address lies relative to the allocations.
        detail: String,
    },
    /// An access not aligned to its size.
    Misaligned {
        /// State space.
        space: Space,
        /// Bytes accessed.
        size: u32,
    },
    /// A store to `.const` or `.param` space.
    ReadOnly {
        /// State space.
        space: Space,
    },
    /// Every live warp waits at a barrier that can no longer complete.
    BarrierDeadlock,
    /// The run executed more warp instructions than the limit allows
    /// (a spin loop that never ends, or a runaway kernel).
    StepLimit {
        /// The limit.
        limit: u64,
    },
    /// The timing model ran more cycles than `sim.max_cycles` allows.
    CycleLimit {
        /// The limit.
        limit: u64,
    },
    /// The timing model saw no warp exit and no CTA retire for
    /// `sim.progress_window` cycles (a livelock).
    NoProgress {
        /// The window.
        window: u64,
        /// CTAs resident when it stopped.
        resident: u64,
        /// CTAs of the grid not yet started.
        waiting: u64,
    },
    /// Work-groups wait on synchronization that no one can satisfy: no
    /// waiting instruction succeeded, no warp exited and no CTA retired or
    /// started for `window` cycles (or nothing at all can happen).
    Deadlock {
        /// The no-progress window (`sim.progress_window`), 0 when nothing
        /// could happen any more.
        window: u64,
        /// The waiting (or switched-out) work-groups.
        wgs: Vec<WaitingWg>,
    },
    /// The functional interpreter found the launch's whole state (warps,
    /// shared and global memory) equal to an earlier state with nothing
    /// retired in between: it would loop forever (e.g. an intra-warp spin
    /// lock).
    Repeating {
        /// Warp instructions between the two equal states.
        period: u64,
        /// Warp instructions since a warp last exited, reached a barrier or
        /// a CTA retired.
        quiet: u64,
    },
    /// The run was stopped by its observer (`gpusim trace --limit`).
    Stopped,
    /// A `tex` fetch from a texture reference the host never bound.
    TextureUnbound {
        /// The reference's name.
        name: String,
    },
    /// A call nested deeper than [`crate::func::call::MAX_CALL_DEPTH`]
    /// (unbounded recursion).
    CallStackOverflow {
        /// The function being called.
        func: String,
        /// The limit.
        limit: usize,
    },
    /// An indirect call through a value that is no function's address.
    BadCallTarget,
    /// An indirect call whose target takes other parameters than the call
    /// passes.
    CallSignature {
        /// The target.
        func: String,
    },
    /// The launch itself is invalid (sizes, parameters).
    BadLaunch {
        /// Why.
        reason: String,
    },
}

/// A run-time error with its location (boxed, so the interpreter's
/// `Result<DynInst, SimError>` stays small on the hot path; fields are
/// reached through `Deref`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimError(Box<SimErrorData>);

impl std::ops::Deref for SimError {
    type Target = SimErrorData;
    fn deref(&self) -> &SimErrorData {
        &self.0
    }
}

impl std::ops::DerefMut for SimError {
    fn deref_mut(&mut self) -> &mut SimErrorData {
        &mut self.0
    }
}

impl From<SimErrorData> for SimError {
    fn from(d: SimErrorData) -> SimError {
        SimError(Box::new(d))
    }
}

/// A work-group named in a [`SimErrorKind::Deadlock`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaitingWg {
    /// CTA index.
    pub cta: [u32; 3],
    /// Its SM, `None` when switched out.
    pub sm: Option<u32>,
    /// Its last waiting instruction.
    pub pc: Option<u32>,
    /// That instruction's source line (filled in by the host).
    pub line: u32,
    /// The word it waits on.
    pub addr: Option<u64>,
    /// The value it waits for.
    pub expected: Option<u32>,
    /// The value the word holds.
    pub value: Option<u32>,
    /// The policy holds it (sleeping, stalled, waiting on the SyncMon);
    /// else it spins.
    pub blocked: bool,
}

impl fmt::Display for WaitingWg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [x, y, z] = self.cta;
        write!(f, "WG ({x},{y},{z})")?;
        match self.sm {
            Some(s) => write!(f, " on SM {s}")?,
            None => f.write_str(" switched out")?,
        }
        if self.line > 0 {
            write!(f, " at line {}", self.line)?;
        } else if let Some(pc) = self.pc {
            write!(f, " at pc {:#x}", u64::from(pc) * 8)?;
        }
        if let (Some(a), Some(e), Some(v)) = (self.addr, self.expected, self.value) {
            write!(f, " waits for [{a:#x}] == {e:#x} (holds {v:#x})")?;
        }
        if self.sm.is_some() {
            f.write_str(if self.blocked {
                ", blocked"
            } else {
                ", spinning"
            })?;
        }
        Ok(())
    }
}

/// The contents of a [`SimError`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimErrorData {
    /// What happened.
    pub kind: SimErrorKind,
    /// Kernel name.
    pub kernel: String,
    /// Instruction id (PC = id × 8), if an instruction caused it.
    pub inst: Option<u32>,
    /// Source line of that instruction.
    pub line: u32,
    /// The instruction's source text.
    pub text: String,
    /// CTA index.
    pub cta: [u32; 3],
    /// Warp index within the CTA.
    pub warp: u32,
    /// Lane, for per-lane errors.
    pub lane: Option<u32>,
    /// Address, for memory errors.
    pub addr: Option<u64>,
}

impl SimError {
    /// An error not tied to an instruction.
    pub fn launch(kernel: &str, reason: impl Into<String>) -> SimError {
        SimError::from(SimErrorData {
            kind: SimErrorKind::BadLaunch {
                reason: reason.into(),
            },
            kernel: kernel.to_string(),
            inst: None,
            line: 0,
            text: String::new(),
            cta: [0; 3],
            warp: 0,
            lane: None,
            addr: None,
        })
    }
}

fn space_name(s: Space) -> &'static str {
    match s {
        Space::Generic => "generic",
        Space::Global => "global",
        Space::Shared => "shared",
        Space::Local => "local",
        Space::Param => "param",
        Space::Const => "const",
    }
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            SimErrorKind::OutOfBounds {
                space,
                size,
                write,
                detail,
            } => write!(
                f,
                "out-of-bounds {} {} of {} bytes at address {:#x} ({})",
                space_name(*space),
                if *write { "store" } else { "load" },
                size,
                self.addr.unwrap_or(0),
                detail
            )?,
            SimErrorKind::Misaligned { space, size } => write!(
                f,
                "misaligned {} access of {} bytes at address {:#x}",
                space_name(*space),
                size,
                self.addr.unwrap_or(0)
            )?,
            SimErrorKind::ReadOnly { space } => write!(
                f,
                "store to read-only {} space at address {:#x}",
                space_name(*space),
                self.addr.unwrap_or(0)
            )?,
            SimErrorKind::BarrierDeadlock => write!(
                f,
                "deadlock: every live warp waits at a barrier that cannot complete"
            )?,
            SimErrorKind::StepLimit { limit } => write!(
                f,
                "stopped after {limit} warp instructions (sim.max_insts; a spin loop that never ends?)"
            )?,
            SimErrorKind::CycleLimit { limit } => write!(
                f,
                "stopped after {limit} cycles (sim.max_cycles; a spin loop that never ends?)"
            )?,
            SimErrorKind::NoProgress {
                window,
                resident,
                waiting,
            } => {
                write!(
                    f,
                    "no progress for {window} cycles (sim.progress_window): no warp exited \
                     and no CTA retired"
                )?;
                if *waiting > 0 {
                    write!(
                        f,
                        "; {resident} CTAs are resident and {waiting} cannot start until one \
                         finishes (a grid-wide barrier or lock needs every CTA resident: \
                         use fewer CTAs or a machine with more room)"
                    )?;
                }
            }
            SimErrorKind::Deadlock { window, wgs } => {
                if *window > 0 {
                    write!(
                        f,
                        "deadlock: no work-group made progress for {window} cycles \
                         (sim.progress_window): no waiting instruction succeeded, no warp \
                         exited, no CTA retired or started"
                    )?;
                } else {
                    f.write_str("deadlock: every work-group waits and nothing can wake one")?;
                }
                let shown = 8;
                write!(f, "; {} work-group(s) wait", wgs.len())?;
                for w in wgs.iter().take(shown) {
                    write!(f, "; {w}")?;
                }
                if wgs.len() > shown {
                    write!(f, "; and {} more", wgs.len() - shown)?;
                }
            }
            SimErrorKind::Repeating { period, quiet } => write!(
                f,
                "no progress: the launch repeats the same state every {period} warp \
                 instructions, forever (no store or atomic changed memory over a \
                 repetition, and no warp exited or reached a barrier for {quiet} warp \
                 instructions; an intra-warp spin lock? the lanes holding a lock wait at \
                 the reconvergence point while the warp's other lanes spin); the warp \
                 named below loops at this PC"
            )?,
            SimErrorKind::Stopped => write!(f, "stopped by the trace's consumer")?,
            SimErrorKind::TextureUnbound { name } => {
                write!(f, "texture reference `{name}` is not bound")?
            }
            SimErrorKind::CallStackOverflow { func, limit } => write!(
                f,
                "call stack overflow: calling `{func}` would nest more than {limit} calls \
                 (unbounded recursion?)"
            )?,
            SimErrorKind::BadCallTarget => write!(
                f,
                "indirect call to {:#x}, which is not the address of a function of this kernel",
                self.addr.unwrap_or(0)
            )?,
            SimErrorKind::CallSignature { func } => write!(
                f,
                "indirect call to `{func}` passes arguments or return values of other sizes \
                 than it declares"
            )?,
            SimErrorKind::BadLaunch { reason } => {
                return write!(f, "cannot launch kernel `{}`: {reason}", self.kernel);
            }
        }
        write!(f, "\n  in kernel `{}`", self.kernel)?;
        if let Some(i) = self.inst {
            write!(
                f,
                ", PC {:#x} (instruction {i}, line {}: `{}`)",
                u64::from(i) * 8,
                self.line,
                self.text
            )?;
        }
        write!(
            f,
            "\n  CTA ({}, {}, {}), warp {}",
            self.cta[0], self.cta[1], self.cta[2], self.warp
        )?;
        if let Some(l) = self.lane {
            write!(f, ", lane {l}")?;
        }
        Ok(())
    }
}

impl std::error::Error for SimError {}
