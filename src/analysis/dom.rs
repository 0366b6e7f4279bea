//! Dominator trees by the Cooper–Harvey–Kennedy algorithm.
//!
//! K. D. Cooper, T. J. Harvey, K. Kennedy, "A Simple, Fast Dominance
//! Algorithm", Software Practice & Experience, 2001. Nodes are numbered in
//! reverse postorder of a depth-first search from the root; `idom` is
//! refined by intersecting the dominator-tree paths of already-processed
//! predecessors until a fixed point. For the reducible graphs compilers emit
//! this converges in two passes, and it needs only dense vectors.

/// Immediate dominators of a graph given by successor lists.
///
/// Returns `idom[v]`: `Some(root)` for the root itself, `Some(d)` for every
/// other node reachable from the root, `None` for unreachable nodes. Results
/// are deterministic: successors are visited in list order.
pub fn immediate_dominators(succs: &[Vec<usize>], root: usize) -> Vec<Option<usize>> {
    let n = succs.len();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (v, ss) in succs.iter().enumerate() {
        for &s in ss {
            preds[s].push(v);
        }
    }
    // Iterative DFS postorder from the root.
    let mut post_index = vec![usize::MAX; n];
    let mut order = Vec::with_capacity(n); // postorder
    let mut visited = vec![false; n];
    let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
    visited[root] = true;
    while let Some(&mut (v, ref mut next)) = stack.last_mut() {
        if let Some(&s) = succs[v].get(*next) {
            *next += 1;
            if !visited[s] {
                visited[s] = true;
                stack.push((s, 0));
            }
        } else {
            post_index[v] = order.len();
            order.push(v);
            stack.pop();
        }
    }
    let mut idom: Vec<Option<usize>> = vec![None; n];
    idom[root] = Some(root);
    let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| {
        while a != b {
            while post_index[a] < post_index[b] {
                a = idom[a].expect("processed node has an idom");
            }
            while post_index[b] < post_index[a] {
                b = idom[b].expect("processed node has an idom");
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &v in order.iter().rev() {
            if v == root {
                continue;
            }
            let mut new_idom: Option<usize> = None;
            for &p in &preds[v] {
                if idom[p].is_none() {
                    continue;
                }
                new_idom = Some(match new_idom {
                    None => p,
                    Some(cur) => intersect(&idom, p, cur),
                });
            }
            if new_idom.is_some() && idom[v] != new_idom {
                idom[v] = new_idom;
                changed = true;
            }
        }
    }
    idom
}

/// A dominator tree with constant-time dominance queries: each node's
/// interval in a depth-first numbering of the tree contains exactly the
/// intervals of the nodes it dominates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DomTree {
    /// Immediate dominators as from [`immediate_dominators`].
    pub idom: Vec<Option<usize>>,
    pre: Vec<u32>,
    post: Vec<u32>,
}

impl DomTree {
    /// Builds the tree for `succs` rooted at `root`.
    pub fn new(succs: &[Vec<usize>], root: usize) -> DomTree {
        let idom = immediate_dominators(succs, root);
        let n = idom.len();
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (v, d) in idom.iter().enumerate() {
            if let Some(d) = *d
                && d != v
            {
                children[d].push(v);
            }
        }
        let mut pre = vec![u32::MAX; n];
        let mut post = vec![0u32; n];
        let mut clock = 0u32;
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        pre[root] = clock;
        clock += 1;
        while let Some(&mut (v, ref mut k)) = stack.last_mut() {
            if let Some(&c) = children[v].get(*k) {
                *k += 1;
                pre[c] = clock;
                clock += 1;
                stack.push((c, 0));
            } else {
                post[v] = clock;
                clock += 1;
                stack.pop();
            }
        }
        DomTree { idom, pre, post }
    }

    /// Does `a` dominate `b`? (Every node dominates itself; unreachable
    /// nodes dominate and are dominated by nothing else.)
    pub fn dominates(&self, a: usize, b: usize) -> bool {
        if a == b {
            return true;
        }
        if self.idom[a].is_none() || self.idom[b].is_none() {
            return false;
        }
        self.pre[a] <= self.pre[b] && self.post[b] <= self.post[a]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diamond() {
        // 0 -> 1, 2 ; 1 -> 3 ; 2 -> 3
        let g = vec![vec![1, 2], vec![3], vec![3], vec![]];
        assert_eq!(
            immediate_dominators(&g, 0),
            vec![Some(0), Some(0), Some(0), Some(0)]
        );
    }

    #[test]
    fn chain_with_unreachable() {
        let g = vec![vec![1], vec![2], vec![], vec![2]];
        let d = immediate_dominators(&g, 0);
        assert_eq!(d, vec![Some(0), Some(0), Some(1), None]);
        let t = DomTree::new(&g, 0);
        assert!(t.dominates(0, 2));
        assert!(t.dominates(1, 2));
        assert!(!t.dominates(2, 1));
        assert!(!t.dominates(3, 2));
        assert!(!t.dominates(0, 3));
    }

    #[test]
    fn loop_header_dominates_body() {
        // 0 -> 1 ; 1 -> 2, 4 ; 2 -> 3 ; 3 -> 1
        let g = vec![vec![1], vec![2, 4], vec![3], vec![1], vec![]];
        let d = immediate_dominators(&g, 0);
        assert_eq!(d, vec![Some(0), Some(0), Some(1), Some(2), Some(1)]);
    }
}
