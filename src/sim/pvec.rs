//! A vector of shared chunks: cloning it copies one pointer per 256 items, and
//! writing copies only the chunk written to. Checkpoints of a long run stay cheap.

use std::rc::Rc;

const CHUNK: usize = 256;

#[derive(Debug, Clone)]
pub struct PVec<T: Clone> {
    chunks: Vec<Rc<Vec<T>>>,
    len: usize,
}

impl<T: Clone> Default for PVec<T> {
    fn default() -> Self {
        PVec { chunks: Vec::new(), len: 0 }
    }
}

impl<T: Clone> PVec<T> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn push(&mut self, item: T) {
        if self.len % CHUNK == 0 {
            self.chunks.push(Rc::new(Vec::with_capacity(CHUNK)));
        }
        if let Some(last) = self.chunks.last_mut() {
            Rc::make_mut(last).push(item);
        }
        self.len += 1;
    }

    pub fn get(&self, i: usize) -> Option<&T> {
        if i >= self.len {
            return None;
        }
        self.chunks[i / CHUNK].get(i % CHUNK)
    }

    pub fn set(&mut self, i: usize, item: T) {
        if i < self.len {
            Rc::make_mut(&mut self.chunks[i / CHUNK])[i % CHUNK] = item;
        }
    }

    pub fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        self.chunks.truncate(len.div_ceil(CHUNK));
        if len % CHUNK != 0 {
            if let Some(last) = self.chunks.last_mut() {
                Rc::make_mut(last).truncate(len % CHUNK);
            }
        }
        self.len = len;
    }

    pub fn clear(&mut self) {
        self.chunks.clear();
        self.len = 0;
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        self.chunks.iter().flat_map(|c| c.iter())
    }

    /// Items from index `from` on.
    pub fn iter_from(&self, from: usize) -> impl Iterator<Item = &T> + '_ {
        let skip = from % CHUNK;
        self.chunks.iter().skip(from / CHUNK).flat_map(|c| c.iter()).skip(skip)
    }

    /// All items, with a known length.
    pub fn iter_exact(&self) -> ExactIter<'_, T> {
        ExactIter { vec: self, next: 0 }
    }

    pub fn last(&self) -> Option<&T> {
        self.len.checked_sub(1).and_then(|i| self.get(i))
    }
}

pub struct ExactIter<'a, T: Clone> {
    vec: &'a PVec<T>,
    next: usize,
}

impl<'a, T: Clone> Iterator for ExactIter<'a, T> {
    type Item = &'a T;

    fn next(&mut self) -> Option<&'a T> {
        let item = self.vec.get(self.next)?;
        self.next += 1;
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.vec.len() - self.next;
        (n, Some(n))
    }

    fn nth(&mut self, n: usize) -> Option<&'a T> {
        self.next = self.next.saturating_add(n);
        self.next()
    }
}

impl<T: Clone> ExactSizeIterator for ExactIter<'_, T> {}

#[cfg(test)]
mod tests {
    use super::PVec;

    #[test]
    fn shares_until_written() {
        let mut a = PVec::new();
        for i in 0..1000 {
            a.push(i);
        }
        let mut b = a.clone();
        b.set(3, -1);
        b.truncate(600);
        b.push(7);
        assert_eq!(a.get(3), Some(&3));
        assert_eq!(a.len(), 1000);
        assert_eq!(b.get(3), Some(&-1));
        assert_eq!(b.get(600), Some(&7));
        assert_eq!(b.len(), 601);
        assert_eq!(a.iter_from(998).copied().collect::<Vec<_>>(), vec![998, 999]);
        assert_eq!(a.iter().count(), 1000);
    }
}
