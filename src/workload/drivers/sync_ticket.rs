//! The AWG paper's decentralized ticket lock (Fig. 10,
//! `kernels/sync/ticket_lock.ptx`): `ticket_lock_cmpwait` waits with the
//! compare-and-wait waiting atomic, `ticket_lock_wait` polls and then
//! executes the separate wait instruction. Both run the same host program.
//!
//! Every TB takes `iters` tickets (queue entries 16 words apart, no ring
//! wrap) and in each critical section every thread increments its own word
//! of the protected data with a plain load and store, so a lock that fails
//! to exclude loses increments. The check covers the data, the tail and
//! every queue word (formulas in the manifests' headers).

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::Rng;
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

/// Words between two queue entries (one 64-byte line each).
const ENTRY_WORDS: usize = 16;

/// Most tickets (`grid * iters`) a run may take: the queue never wraps, so
/// it holds one entry per ticket plus one (4 MiB at this bound).
const MAX_TICKETS: u64 = 1 << 16;

/// The workload.
pub struct TicketLock {
    iters: u32,
    seed: u64,
    grid: u32,
}

impl TicketLock {
    /// Reads `iters` (acquisitions per TB, default 8) and `seed` (the
    /// initial data, default 1); the grid is 1-D, one warp per TB.
    pub fn new(args: &mut Args, launch: Launch) -> Result<TicketLock, WorkloadError> {
        let iters = args.u32("iters", 8)?;
        let seed = args.u64("seed", 1)?;
        let grid = super::one_warp_tbs("ticket_lock", &launch)?;
        let tickets = u64::from(grid) * u64::from(iters);
        if tickets > MAX_TICKETS {
            return Err(WorkloadError::Args(format!(
                "ticket_lock: grid {grid} x iters {iters} = {tickets} tickets, but the queue \
                 (one 64-byte entry per ticket, no wrap) is limited to {MAX_TICKETS}"
            )));
        }
        Ok(TicketLock { iters, seed, grid })
    }

    /// Tickets taken in the whole run (`G * iters`).
    fn tickets(&self) -> usize {
        self.grid as usize * self.iters as usize
    }
}

/// The queue before the run: entry 0 unlocked (1), every other word -1.
fn initial_queue(words: usize) -> Vec<u32> {
    (0..words)
        .map(|w| if w == 0 { 1 } else { u32::MAX })
        .collect()
}

impl Workload for TicketLock {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let t = self.tickets();
        let mut rng = Rng::new(self.seed);
        let init: Vec<u32> = (0..32).map(|_| rng.next_u32()).collect();
        let queue_words = (t + 1) * ENTRY_WORDS;
        let queue = upload(host, "queue", &initial_queue(queue_words))?;
        let tail = upload(host, "tail", &[0u32])?;
        let data = upload(host, "data", &init)?;
        host.launch(
            None,
            [self.grid, 1, 1],
            [32, 1, 1],
            &[
                ArgValue::U64(queue),
                ArgValue::U64(tail),
                ArgValue::U64(data),
                ArgValue::U32(self.iters),
            ],
        )?;
        let want_data: Vec<u32> = init.iter().map(|v| v.wrapping_add(t as u32)).collect();
        // Entries 0..t-1 were each unlocked once and set back to -1 by
        // their owner's unlock; the last unlock opened entry t.
        let want_queue: Vec<u32> = (0..queue_words)
            .map(|w| if w == t * ENTRY_WORDS { 1 } else { u32::MAX })
            .collect();
        Ok(Check::all([
            check::exact("data", &want_data, &download::<u32>(host, data, 32)?),
            check::exact(
                "tail",
                &[(t * ENTRY_WORDS) as u32],
                &download::<u32>(host, tail, 1)?,
            ),
            check::exact(
                "queue",
                &want_queue,
                &download::<u32>(host, queue, queue_words)?,
            ),
        ]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_queue_starts_with_only_entry_zero_open() {
        let q = initial_queue(3 * ENTRY_WORDS);
        assert_eq!(q[0], 1);
        assert!(q[1..].iter().all(|&w| w == u32::MAX));
    }

    #[test]
    fn too_many_tickets_is_an_argument_error() {
        let mut args = Args::new(toml::toml! { iters = 4097 });
        let launch = Launch {
            grid: Some([16, 1, 1]),
            ..Launch::default()
        };
        let e = TicketLock::new(&mut args, launch).err().unwrap();
        assert!(e.to_string().contains("65552 tickets"), "{e}");
    }
}
