//! A sort for the short lists the engine orders (an ISR, an ELR, an object's keys):
//! an insertion sort. The standard library's unstable sort is ~3 KB of the page's
//! WebAssembly per element type (`twiggy monos`, docs/performance.md) and is no
//! faster on five elements. Every caller's order is total, so the result is the
//! one any sort gives.

/// Sorts `items` in place by `less`, keeping equal items in their order.
pub fn sort_by<T>(items: &mut [T], mut less: impl FnMut(&T, &T) -> bool) {
    for i in 1..items.len() {
        let mut j = i;
        while j > 0 && less(&items[j], &items[j - 1]) {
            items.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// Sorts broker ids ascending.
pub fn ids(ids: &mut [u32]) {
    sort_by(ids, |a, b| a < b);
}

#[cfg(test)]
mod tests {
    #[test]
    fn sorts_like_the_standard_library() {
        let mut seed = 7u64;
        for len in 0..40 {
            let mut v: Vec<u32> = (0..len)
                .map(|_| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    (seed >> 59) as u32
                })
                .collect();
            let mut want = v.clone();
            want.sort();
            super::ids(&mut v);
            assert_eq!(v, want);
        }
        let mut pairs = vec![(2, 'a'), (1, 'b'), (2, 'c'), (1, 'd')];
        super::sort_by(&mut pairs, |a, b| a.0 < b.0);
        assert_eq!(pairs, [(1, 'b'), (1, 'd'), (2, 'a'), (2, 'c')], "stable among equals");
    }
}
