//! Small ordered maps and sets on a sorted `Vec`: the collections here hold a
//! handful of entries (brokers, requests in flight, timers), and a sorted vector
//! is faster, cheaper to clone for a checkpoint, and much smaller in WebAssembly
//! than a B-tree.

#[derive(Debug, Clone, PartialEq)]
pub struct VecMap<K, V> {
    entries: Vec<(K, V)>,
}

impl<K: Ord, V> Default for VecMap<K, V> {
    fn default() -> Self {
        VecMap { entries: Vec::new() }
    }
}

impl<K: Ord, V> VecMap<K, V> {
    pub fn new() -> Self {
        Self::default()
    }

    // The page's core is built for size (Cargo.toml, profile `page`), where the
    // compiler inlines next to nothing: these few lookups, on every step's path,
    // are inlined by request (docs/performance.md, "The page's core built for size").
    #[inline(always)]
    fn find(&self, key: &K) -> Result<usize, usize> {
        let (mut lo, mut hi) = (0, self.entries.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.entries[mid].0.cmp(key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Ok(mid),
            }
        }
        Err(lo)
    }

    #[inline(always)]
    pub fn get(&self, key: &K) -> Option<&V> {
        self.find(key).ok().map(|i| &self.entries[i].1)
    }

    #[inline(always)]
    pub fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        match self.find(key) {
            Ok(i) => Some(&mut self.entries[i].1),
            Err(_) => None,
        }
    }

    #[inline(always)]
    pub fn contains_key(&self, key: &K) -> bool {
        self.find(key).is_ok()
    }

    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.find(&key) {
            Ok(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            Err(i) => {
                self.entries.insert(i, (key, value));
                None
            }
        }
    }

    /// `insert` for a key that is usually the greatest (a new message's id): then
    /// appended without a search.
    pub fn insert_last(&mut self, key: K, value: V) -> Option<V> {
        if self.entries.last().is_none_or(|(last, _)| *last < key) {
            self.entries.push((key, value));
            return None;
        }
        self.insert(key, value)
    }

    pub fn remove(&mut self, key: &K) -> Option<V> {
        match self.find(key) {
            Ok(i) => Some(self.entries.remove(i).1),
            Err(_) => None,
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&K, &mut V)> {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.entries.iter().map(|(_, v)| v)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn retain(&mut self, mut f: impl FnMut(&K, &V) -> bool) {
        self.entries.retain(|(k, v)| f(k, v));
    }
}

impl<K: Ord, V> FromIterator<(K, V)> for VecMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut m = VecMap::new();
        for (k, v) in iter {
            m.insert(k, v);
        }
        m
    }
}

/// A sorted set of small values.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VecSet<K> {
    items: Vec<K>,
}

impl<K: Ord + Copy> VecSet<K> {
    pub fn new() -> Self {
        VecSet { items: Vec::new() }
    }

    pub fn contains(&self, k: &K) -> bool {
        self.items.binary_search(k).is_ok()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn insert(&mut self, k: K) -> bool {
        match self.items.binary_search(&k) {
            Ok(_) => false,
            Err(i) => {
                self.items.insert(i, k);
                true
            }
        }
    }

    pub fn remove(&mut self, k: &K) -> bool {
        match self.items.binary_search(k) {
            Ok(i) => {
                self.items.remove(i);
                true
            }
            Err(_) => false,
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &K> {
        self.items.iter()
    }
}

impl<K: Ord + Copy> FromIterator<K> for VecSet<K> {
    fn from_iter<I: IntoIterator<Item = K>>(iter: I) -> Self {
        let mut s = VecSet::new();
        for k in iter {
            s.insert(k);
        }
        s
    }
}

/// A set of brokers (ids below 8: a scenario has at most 7) as a bitmask: a
/// typed event carries an ISR by value, without allocating.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct BrokerSet(u8);

impl BrokerSet {
    pub fn of(ids: &[u32]) -> BrokerSet {
        BrokerSet(ids.iter().fold(0, |m, &b| m | (1 << b)))
    }

    pub fn contains(self, id: u32) -> bool {
        self.0 & (1 << id) != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The members in ascending order.
    pub fn iter(self) -> impl Iterator<Item = u32> {
        (0..8).filter(move |&b| self.contains(b))
    }

    pub fn to_vec(self) -> Vec<u32> {
        self.iter().collect()
    }
}

impl FromIterator<u32> for BrokerSet {
    fn from_iter<I: IntoIterator<Item = u32>>(iter: I) -> Self {
        BrokerSet(iter.into_iter().fold(0, |m, b| m | (1 << b)))
    }
}

// Last in the file, so that the lines above (the page's panic locations) keep their numbers.
impl<K, V> VecMap<K, V> {
    /// The entries in key order, to be read by place (the explorer's fingerprint).
    pub fn as_slice(&self) -> &[(K, V)] {
        &self.entries
    }
}

// Also last, for the same reason: the explorer's reused worlds (`check::reuse`).
impl<K: Clone, V: Clone> VecMap<K, V> {
    /// Becomes a copy of `other` in the room this map has (no allocation where it fits).
    pub fn copy_from(&mut self, other: &Self) {
        self.entries.clone_from(&other.entries);
    }

    /// Empties the map, keeping its room.
    pub fn clear(&mut self) {
        self.entries.clear();
    }
}
