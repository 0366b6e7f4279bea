//! The AWG paper's bank-account benchmark (Table 2,
//! `kernels/sync/bank_account.ptx`): every TB performs `per_tb` transfers,
//! each locking both accounts (lower index first) with the waiting CAS and
//! moving the amount with plain loads and stores.
//!
//! The transfers (from, to, amount; from != to) are generated on the host
//! from `seed`, and the CPU replays them in any order (addition commutes).
//! The check: every final balance, the conserved total, and the lock words.

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::Rng;
use crate::workload::host::{ArgValue, Host, WorkloadError, download, upload};
use crate::workload::{Launch, Workload};

/// Most transfers a run may perform (`grid * per_tb`).
const MAX_TRANSFERS: u64 = 1 << 20;

/// Most accounts.
const MAX_ACCOUNTS: u32 = 1 << 20;

/// Initial balances are `BALANCE_BASE + below(BALANCE_BASE)`.
const BALANCE_BASE: u64 = 1000;

/// Amounts are `1..=MAX_AMOUNT`.
const MAX_AMOUNT: u64 = 100;

/// The workload.
pub struct BankAccount {
    accounts: u32,
    per_tb: u32,
    seed: u64,
    grid: u32,
}

impl BankAccount {
    /// Reads `accounts` (at least 2, default 8), `per_tb` (transfers per
    /// TB, default 8) and `seed` (balances and transfers, default 1); the
    /// grid is 1-D, one warp per TB.
    pub fn new(args: &mut Args, launch: Launch) -> Result<BankAccount, WorkloadError> {
        let accounts = args.count("accounts", 8)?;
        let per_tb = args.u32("per_tb", 8)?;
        let seed = args.u64("seed", 1)?;
        let grid = super::one_warp_tbs("bank_account", &launch)?;
        if !(2..=MAX_ACCOUNTS).contains(&accounts) {
            return Err(WorkloadError::Args(format!(
                "bank_account: `accounts` = {accounts}, but a transfer needs two accounts \
                 (2..={MAX_ACCOUNTS})"
            )));
        }
        let n = u64::from(grid) * u64::from(per_tb);
        if n > MAX_TRANSFERS {
            return Err(WorkloadError::Args(format!(
                "bank_account: grid {grid} x per_tb {per_tb} = {n} transfers, at most {MAX_TRANSFERS}"
            )));
        }
        Ok(BankAccount {
            accounts,
            per_tb,
            seed,
            grid,
        })
    }
}

/// The initial balances and `n` transfers `[from, to, amount]` (from != to),
/// from `seed`.
fn inputs(accounts: u32, n: usize, seed: u64) -> (Vec<u32>, Vec<[u32; 3]>) {
    let mut rng = Rng::new(seed);
    let balances = (0..accounts)
        .map(|_| (BALANCE_BASE + rng.below(BALANCE_BASE)) as u32)
        .collect();
    let a = u64::from(accounts);
    let transfers = (0..n)
        .map(|_| {
            let from = rng.below(a) as u32;
            let other = rng.below(a - 1) as u32;
            let to = if other >= from { other + 1 } else { other };
            let amount = (1 + rng.below(MAX_AMOUNT)) as u32;
            [from, to, amount]
        })
        .collect();
    (balances, transfers)
}

/// The balances after every transfer (mod 2^32).
fn replay(balances: &[u32], transfers: &[[u32; 3]]) -> Vec<u32> {
    let mut b = balances.to_vec();
    for &[from, to, amount] in transfers {
        b[from as usize] = b[from as usize].wrapping_sub(amount);
        b[to as usize] = b[to as usize].wrapping_add(amount);
    }
    b
}

/// The sum of the balances (mod 2^32).
fn total(balances: &[u32]) -> u32 {
    balances.iter().fold(0u32, |s, &b| s.wrapping_add(b))
}

impl Workload for BankAccount {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let n = self.grid as usize * self.per_tb as usize;
        let a = self.accounts as usize;
        let (init, transfers) = inputs(self.accounts, n, self.seed);
        let flat: Vec<u32> = transfers.iter().flatten().copied().collect();
        let transfers_d = upload(host, "transfers", &flat)?;
        let locks = upload(host, "locks", &vec![0u32; a])?;
        let balances = upload(host, "balances", &init)?;
        host.launch(
            None,
            [self.grid, 1, 1],
            [32, 1, 1],
            &[
                ArgValue::U64(transfers_d),
                ArgValue::U64(locks),
                ArgValue::U64(balances),
                ArgValue::U32(self.per_tb),
            ],
        )?;
        let got = download::<u32>(host, balances, a)?;
        Ok(Check::all([
            check::exact("balances", &replay(&init, &transfers), &got),
            check::exact("total", &[total(&init)], &[total(&got)]),
            check::exact("locks", &vec![0u32; a], &download::<u32>(host, locks, a)?),
        ]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transfers_name_two_different_accounts_and_a_positive_amount() {
        let (b, t) = inputs(3, 500, 9);
        assert_eq!(b.len(), 3);
        assert!(b.iter().all(|&x| (1000..2000).contains(&x)));
        for &[f, to, amt] in &t {
            assert!(f < 3 && to < 3 && f != to);
            assert!((1..=100).contains(&amt));
        }
        // Every ordered pair of accounts occurs.
        for f in 0..3 {
            for to in (0..3).filter(|&x| x != f) {
                assert!(t.iter().any(|x| x[0] == f && x[1] == to), "{f}->{to}");
            }
        }
    }

    #[test]
    fn a_replay_moves_money_and_keeps_the_total() {
        let init = [10, 20, 30];
        let got = replay(&init, &[[0, 2, 15], [2, 1, 5]]);
        // Account 0 goes below zero: the kernel's u32 arithmetic wraps.
        assert_eq!(got, [10u32.wrapping_sub(15), 25, 40]);
        assert_eq!(total(&got), total(&init));
    }
}
