//! The checks a product tree passes before anything of it is meshed, the same for both readers: at
//! most [`MAX_COMPONENTS`] products, no product that uses itself (the usage that closes the cycle
//! is named), at most [`MAX_ASSEMBLY_DEPTH`] levels and at most [`MAX_OCCURRENCES`] occurrences
//! once each usage is expanded by its quantity. Counted on the graph of usages without expanding
//! it (a walk with an explicit stack and sums that saturate), so a tree of a thousand levels or a
//! million occurrences is refused in microseconds.

use super::{MAX_ASSEMBLY_DEPTH, MAX_COMPONENTS, MAX_OCCURRENCES};
use crate::GeometryError;

/// A product tree reduced to what its limits are about.
pub(crate) struct TreeShape<'a> {
    /// How each product is named in a refusal (`'NUT' (#2310)`).
    pub names: &'a [String],
    /// Each usage: parent, child, quantity, and how the refusal names it
    /// (`NEXT_ASSEMBLY_USAGE_OCCURRENCE #2341`).
    pub usages: &'a [(usize, usize, u64, String)],
}

/// Refuses a tree over a limit of the module doc or with a cycle.
pub(crate) fn check_tree_shape(tree: &TreeShape<'_>) -> Result<(), GeometryError> {
    let count = tree.names.len();
    if count > MAX_COMPONENTS {
        return Err(GeometryError::OverLimit(format!(
            "the assembly has {count} products, more than {MAX_COMPONENTS}"
        )));
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); count];
    let mut used = vec![false; count];
    for (index, &(parent, child, _, _)) in tree.usages.iter().enumerate() {
        if parent >= count || child >= count {
            return Err(GeometryError::Malformed(
                "a usage names a product the tree does not have".to_owned(),
            ));
        }
        children[parent].push(index);
        used[child] = true;
    }
    let mut walk = Walk {
        tree,
        children: &children,
        state: vec![State::Unseen; count],
    };
    let mut occurrences = 0_u64;
    for (product, &is_used) in used.iter().enumerate() {
        let (_, below) = walk.finish(product)?;
        if !is_used {
            occurrences = occurrences.saturating_add(below);
        }
    }
    if occurrences > MAX_OCCURRENCES as u64 {
        return Err(too_many_occurrences(occurrences));
    }
    Ok(())
}

#[derive(Clone, Copy)]
enum State {
    Unseen,
    /// On the walk's path.
    Open,
    /// Levels below it and occurrences it stands for (itself included).
    Done(usize, u64),
}

struct Walk<'a> {
    tree: &'a TreeShape<'a>,
    children: &'a [Vec<usize>],
    state: Vec<State>,
}

impl Walk<'_> {
    /// The depth and occurrence count of `root`, walking what is below it first.
    fn finish(&mut self, root: usize) -> Result<(usize, u64), GeometryError> {
        if let State::Done(depth, occurrences) = self.state[root] {
            return Ok((depth, occurrences));
        }
        // Each frame: the product and how many of its usages were looked at.
        let mut path: Vec<(usize, usize)> = vec![(root, 0)];
        self.state[root] = State::Open;
        while let Some(top) = path.last_mut() {
            let product = top.0;
            if let Some(&usage) = self.children[product].get(top.1) {
                top.1 += 1;
                let child = self.tree.usages[usage].1;
                match self.state[child] {
                    State::Open => return Err(self.cycle(usage)),
                    State::Done(..) => {}
                    State::Unseen => {
                        if path.len() > MAX_ASSEMBLY_DEPTH {
                            return Err(too_deep());
                        }
                        self.state[child] = State::Open;
                        path.push((child, 0));
                    }
                }
                continue;
            }
            path.pop();
            let (depth, occurrences) = self.summed(product);
            if depth > MAX_ASSEMBLY_DEPTH {
                return Err(too_deep());
            }
            if occurrences > MAX_OCCURRENCES as u64 {
                return Err(too_many_occurrences(occurrences));
            }
            self.state[product] = State::Done(depth, occurrences);
        }
        match self.state[root] {
            State::Done(depth, occurrences) => Ok((depth, occurrences)),
            _ => unreachable!("the walk finishes its root"),
        }
    }

    /// Depth and occurrences of `product` from its children's (all done).
    fn summed(&self, product: usize) -> (usize, u64) {
        let mut depth = 0;
        let mut occurrences = 1_u64;
        for &usage in &self.children[product] {
            let (_, child, quantity, _) = self.tree.usages[usage];
            if let State::Done(child_depth, child_occurrences) = self.state[child] {
                depth = depth.max(child_depth + 1);
                occurrences =
                    occurrences.saturating_add(quantity.saturating_mul(child_occurrences));
            }
        }
        (depth, occurrences)
    }

    fn cycle(&self, usage: usize) -> GeometryError {
        let (parent, child, _, ref entity) = self.tree.usages[usage];
        let names = self.tree.names;
        GeometryError::Malformed(if parent == child {
            format!("{entity} makes {} a component of itself", names[child])
        } else {
            format!(
                "{entity} makes {} a component of {}, which is inside it: the assembly contains itself",
                names[child], names[parent]
            )
        })
    }
}

fn too_deep() -> GeometryError {
    GeometryError::OverLimit(format!(
        "the assembly nests more than {MAX_ASSEMBLY_DEPTH} levels deep"
    ))
}

fn too_many_occurrences(count: u64) -> GeometryError {
    let count = if count == u64::MAX {
        "more than 18 quintillion".to_owned()
    } else {
        count.to_string()
    };
    GeometryError::OverLimit(format!(
        "the assembly holds at least {count} component occurrences, more than {MAX_OCCURRENCES}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(count: usize, usages: &[(usize, usize, u64)]) -> Result<(), GeometryError> {
        let names: Vec<String> = (0..count).map(|p| format!("'P{p}'")).collect();
        let usages: Vec<(usize, usize, u64, String)> = usages
            .iter()
            .enumerate()
            .map(|(n, &(parent, child, quantity))| (parent, child, quantity, format!("usage {n}")))
            .collect();
        check_tree_shape(&TreeShape {
            names: &names,
            usages: &usages,
        })
    }

    #[test]
    fn a_sound_tree_passes_and_cycles_are_named() {
        // AS1's shape: top, plate, two bracket sets of three nut-and-bolt sets, a rod set.
        check(
            8,
            &[
                (0, 1, 1),
                (0, 2, 2),
                (2, 3, 1),
                (2, 4, 3),
                (4, 5, 1),
                (4, 6, 1),
                (0, 7, 1),
                (7, 6, 2),
            ],
        )
        .unwrap();
        let itself = check(1, &[(0, 0, 1)]).unwrap_err();
        assert!(
            itself
                .to_string()
                .contains("usage 0 makes 'P0' a component of itself"),
            "{itself}"
        );
        let around = check(3, &[(0, 1, 1), (1, 2, 1), (2, 1, 1)]).unwrap_err();
        assert!(
            around
                .to_string()
                .contains("usage 2 makes 'P1' a component of 'P2'"),
            "{around}"
        );
        // A cycle no root leads to is found too.
        let apart = check(3, &[(1, 2, 1), (2, 1, 1)]).unwrap_err();
        assert!(matches!(apart, GeometryError::Malformed(_)), "{apart}");
    }

    #[test]
    fn depth_occurrences_and_products_are_bounded() {
        let chain: Vec<(usize, usize, u64)> = (0..1000).map(|p| (p, p + 1, 1)).collect();
        let deep = check(1001, &chain).unwrap_err();
        assert!(deep.to_string().contains("levels deep"), "{deep}");
        let fifty: Vec<(usize, usize, u64)> =
            (0..MAX_ASSEMBLY_DEPTH).map(|p| (p, p + 1, 1)).collect();
        check(MAX_ASSEMBLY_DEPTH + 1, &fifty).unwrap();
        // Ten levels of ten: ten billion occurrences from 11 products.
        let tens: Vec<(usize, usize, u64)> = (0..10).map(|p| (p, p + 1, 10)).collect();
        let many = check(11, &tens).unwrap_err();
        assert!(many.to_string().contains("component occurrences"), "{many}");
        let million = check(2, &[(0, 1, 1_000_000)]).unwrap_err();
        assert!(million.to_string().contains("1000001"), "{million}");
        let huge = check(2, &[(0, 1, u64::MAX)]).unwrap_err();
        assert!(
            huge.to_string().contains("more than 18 quintillion"),
            "{huge}"
        );
        assert!(check(MAX_COMPONENTS + 1, &[]).is_err());
    }
}
