//! One stable sort for the whole crate. Every `sort_by` (and every `collect` into a `BTreeMap`, which sorts)
//! with its own element and closure type is its own copy of the standard library's sort, about 4 KB of wasm
//! each: nine of them cost the page (budget 200 KB gzip) more than a feature. Sorting indices through one
//! `dyn` comparator instantiates it once. Stable, as Perl's merge sort is: equal keys keep their order.

use std::cmp::Ordering;

/// The indices `0..len` in the stable order `cmp` gives them.
pub fn stable_order(len: usize, cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|a, b| cmp(*a, *b));
    order
}

/// `items` in the stable order `cmp` gives them.
pub fn sorted_by<T: Copy>(items: &[T], cmp: &dyn Fn(&T, &T) -> Ordering) -> Vec<T> {
    stable_order(items.len(), &|a, b| cmp(&items[a], &items[b])).into_iter().map(|i| items[i]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_order_is_stable() {
        let items = [(2, 'a'), (1, 'b'), (2, 'c'), (1, 'd')];
        assert_eq!(sorted_by(&items, &|a, b| a.0.cmp(&b.0)), [(1, 'b'), (1, 'd'), (2, 'a'), (2, 'c')]);
        assert_eq!(stable_order(3, &|a, b| b.cmp(&a)), [2, 1, 0]);
        assert!(stable_order(0, &|a, b| a.cmp(&b)).is_empty());
    }
}
