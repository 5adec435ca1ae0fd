//! Sparse, copy-on-write word memory.
//!
//! The machine has 16 MiB, but a run touches a few pages: the program image is shared
//! read-only, and a 4 KiB page is materialised only when a store first writes to it.
//! A [`Memory`] can be reset for the next run without freeing its pages, so the
//! thousands of runs of a comparison allocate almost nothing.

use std::sync::Arc;

/// Bytes of addressable memory: addresses `0 ..= MEM_SIZE - 1`.
pub const MEM_SIZE: u32 = 0x0100_0000;
/// Words per page.
pub const PAGE_WORDS: usize = 1024;
const PAGE_SHIFT: u32 = 12;
const PAGES: usize = (MEM_SIZE >> PAGE_SHIFT) as usize;
const NO_PAGE: u32 = u32::MAX;

/// Word-addressed memory over a shared program image.
#[derive(Clone)]
pub struct Memory {
    image: Arc<[u32]>,
    /// For each page, the index into `pages` of its private copy, or `NO_PAGE`.
    table: Box<[u32]>,
    pages: Vec<Box<[u32; PAGE_WORDS]>>,
    /// Page numbers materialised since the last reset, in order (`pages[k]` backs `touched[k]`).
    touched: Vec<u32>,
}

impl Memory {
    /// Memory holding `image` from address 0 and zero elsewhere.
    pub fn new(image: Arc<[u32]>) -> Memory {
        Memory {
            image,
            table: vec![NO_PAGE; PAGES].into_boxed_slice(),
            pages: Vec::new(),
            touched: Vec::new(),
        }
    }

    /// Forgets every store, keeping the page buffers for reuse.
    pub fn reset(&mut self) {
        for &p in &self.touched {
            self.table[p as usize] = NO_PAGE;
        }
        self.touched.clear();
    }

    /// The program image this memory starts from.
    pub fn image(&self) -> &Arc<[u32]> {
        &self.image
    }

    /// Reads the word at byte address `addr`; the caller guarantees `addr` is aligned
    /// and below [`MEM_SIZE`] (other addresses read as zero).
    #[inline(always)]
    pub fn read(&self, addr: u32) -> u32 {
        let page = (addr >> PAGE_SHIFT) as usize;
        match self.table.get(page) {
            Some(&idx) if idx != NO_PAGE => {
                self.pages[idx as usize][((addr >> 2) as usize) & (PAGE_WORDS - 1)]
            }
            _ => self.image.get((addr >> 2) as usize).copied().unwrap_or(0),
        }
    }

    /// Writes the word at byte address `addr` (aligned, below [`MEM_SIZE`]; others are ignored).
    #[inline(always)]
    pub fn write(&mut self, addr: u32, value: u32) {
        let page = (addr >> PAGE_SHIFT) as usize;
        let Some(&idx) = self.table.get(page) else {
            return;
        };
        let idx = if idx == NO_PAGE {
            self.materialise(page)
        } else {
            idx as usize
        };
        self.pages[idx][((addr >> 2) as usize) & (PAGE_WORDS - 1)] = value;
    }

    #[cold]
    fn materialise(&mut self, page: usize) -> usize {
        let idx = self.touched.len();
        if idx == self.pages.len() {
            self.pages.push(Box::new([0; PAGE_WORDS]));
        }
        let buf = &mut self.pages[idx];
        let first = page * PAGE_WORDS;
        let from_image = self.image.get(first..).unwrap_or(&[]);
        let n = from_image.len().min(PAGE_WORDS);
        buf[..n].copy_from_slice(&from_image[..n]);
        buf[n..].fill(0);
        self.table[page] = idx as u32;
        self.touched.push(page as u32);
        idx
    }

    /// Number of pages materialised by stores since the last reset.
    pub fn pages_in_use(&self) -> usize {
        self.touched.len()
    }

    /// Every word that differs from the initial memory may only lie in these pages:
    /// `(first byte address, words)` for each materialised page.
    pub fn written_pages(&self) -> impl Iterator<Item = (u32, &[u32; PAGE_WORDS])> + '_ {
        self.touched
            .iter()
            .zip(&self.pages)
            .map(|(&p, buf)| (p << PAGE_SHIFT, &**buf))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_image_then_zero() {
        let m = Memory::new(Arc::from(vec![7, 8]));
        assert_eq!(m.read(0), 7);
        assert_eq!(m.read(4), 8);
        assert_eq!(m.read(8), 0);
        assert_eq!(m.read(MEM_SIZE - 4), 0);
    }

    #[test]
    fn copy_on_write_keeps_the_image() {
        let image: Arc<[u32]> = Arc::from(vec![1, 2, 3]);
        let mut m = Memory::new(image.clone());
        m.write(4, 20);
        assert_eq!((m.read(0), m.read(4), m.read(8)), (1, 20, 3));
        assert_eq!(&image[..], &[1, 2, 3]);
        m.reset();
        assert_eq!(m.read(4), 2);
        assert_eq!(m.pages_in_use(), 0);
    }

    #[test]
    fn reset_reuses_pages_and_clears_them() {
        let mut m = Memory::new(Arc::from(vec![]));
        m.write(MEM_SIZE - 4, 9);
        m.write(0x1000, 5);
        assert_eq!(m.pages_in_use(), 2);
        m.reset();
        m.write(0x2000, 1);
        assert_eq!(m.read(MEM_SIZE - 4), 0);
        assert_eq!(m.read(0x1000), 0);
        assert_eq!(m.read(0x2000), 1);
        assert_eq!(m.read(0x2004), 0, "a reused page starts zeroed");
        assert_eq!(m.pages.len(), 2);
    }

    #[test]
    fn out_of_range_is_harmless() {
        let mut m = Memory::new(Arc::from(vec![]));
        m.write(MEM_SIZE, 1);
        assert_eq!(m.read(MEM_SIZE), 0);
    }
}
