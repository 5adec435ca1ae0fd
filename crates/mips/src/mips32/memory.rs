//! Byte-addressed big-endian memory made of a few regions (the loaded sections and the
//! stack). Everything outside them is unmapped: an access there faults, as it does
//! under Linux. Resetting restores only the bytes written since the last reset, so
//! thousands of runs cost what they touch.

use std::sync::Arc;

use super::abi::{STACK_SIZE, STACK_TOP};
use super::image::Image;

/// Why an access failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessError {
    /// No region holds the address (or the access runs past a region's end).
    Unmapped,
    /// A store to a read-only section (code, `.rodata`).
    ReadOnly,
}

#[derive(Clone, Debug)]
struct Region {
    base: u32,
    /// The bytes at the start of a run (empty for the zeroed stack).
    initial: Arc<[u8]>,
    bytes: Vec<u8>,
    writable: bool,
    /// The bytes `[dirty.0, dirty.1)` may differ from `initial`.
    dirty: (usize, usize),
}

impl Region {
    /// The offset of `len` bytes at `addr` when they lie in the region.
    #[inline(always)]
    fn offset(&self, addr: u32, len: u32) -> Option<usize> {
        let off = addr.wrapping_sub(self.base) as usize;
        (addr >= self.base && off + len as usize <= self.bytes.len()).then_some(off)
    }

    fn restore(&mut self) {
        let (lo, hi) = self.dirty;
        if lo < hi {
            if self.initial.is_empty() {
                self.bytes[lo..hi].fill(0);
            } else {
                self.bytes[lo..hi].copy_from_slice(&self.initial[lo..hi]);
            }
        }
        self.dirty = (usize::MAX, 0);
    }
}

/// The memory of a MIPS32 run.
#[derive(Clone, Debug)]
pub struct Memory {
    regions: Vec<Region>,
    /// The region the last access used: most accesses hit it again.
    last: usize,
}

impl Memory {
    /// The image's sections and a zeroed stack below [`STACK_TOP`].
    pub fn new(image: &Image) -> Memory {
        Memory::with_stack_top(image, STACK_TOP)
    }

    /// The image's sections and a zeroed stack of [`STACK_SIZE`] bytes below `top`
    /// (a test that replays another machine's run puts it where that stack was).
    pub fn with_stack_top(image: &Image, top: u32) -> Memory {
        let mut regions: Vec<Region> = image
            .sections
            .iter()
            .filter(|s| !s.bytes.is_empty())
            .map(|s| Region {
                base: s.addr,
                initial: s.bytes.clone().into(),
                bytes: s.bytes.clone(),
                writable: s.writable,
                dirty: (usize::MAX, 0),
            })
            .collect();
        regions.push(Region {
            base: top.saturating_sub(STACK_SIZE),
            initial: Arc::from(Vec::new()),
            bytes: vec![0; top.min(STACK_SIZE) as usize],
            writable: true,
            dirty: (usize::MAX, 0),
        });
        Memory { regions, last: 0 }
    }

    /// Back to the state at the start of a run.
    pub fn reset(&mut self) {
        for r in &mut self.regions {
            r.restore();
        }
    }

    /// The region and offset of `len` bytes at `addr`.
    #[inline(always)]
    fn find(&mut self, addr: u32, len: u32) -> Result<(usize, usize), AccessError> {
        // Most accesses hit the region of the last one again.
        if let Some(r) = self.regions.get(self.last) {
            if let Some(off) = r.offset(addr, len) {
                return Ok((self.last, off));
            }
        }
        self.search(addr, len)
    }

    /// [`Memory::find`] past the last region used (not rare: code that uses globals
    /// and the stack in turn comes here at each switch).
    #[inline(never)]
    fn search(&mut self, addr: u32, len: u32) -> Result<(usize, usize), AccessError> {
        for (k, r) in self.regions.iter().enumerate() {
            if let Some(off) = r.offset(addr, len) {
                self.last = k;
                return Ok((k, off));
            }
        }
        Err(AccessError::Unmapped)
    }

    /// Reads `N` bytes at `addr`.
    #[inline(always)]
    pub fn read<const N: usize>(&mut self, addr: u32) -> Result<[u8; N], AccessError> {
        let (k, off) = self.find(addr, N as u32)?;
        let mut out = [0; N];
        out.copy_from_slice(&self.regions[k].bytes[off..off + N]);
        Ok(out)
    }

    /// Writes `bytes` at `addr`.
    #[inline(always)]
    pub fn write(&mut self, addr: u32, bytes: &[u8]) -> Result<(), AccessError> {
        let (k, off) = self.find(addr, bytes.len() as u32)?;
        let r = &mut self.regions[k];
        if !r.writable {
            return Err(AccessError::ReadOnly);
        }
        r.bytes[off..off + bytes.len()].copy_from_slice(bytes);
        r.dirty = (r.dirty.0.min(off), r.dirty.1.max(off + bytes.len()));
        Ok(())
    }

    /// Whether the `n` bytes (1, 2 or 4) at `addr` lie in one region, as every access
    /// of that width requires.
    pub fn holds(&mut self, addr: u32, n: u32) -> bool {
        self.find(addr, n).is_ok()
    }

    /// The byte at `addr`, if mapped (for display; no fault).
    pub fn peek(&mut self, addr: u32) -> Option<u8> {
        self.read::<1>(addr).ok().map(|b| b[0])
    }

    /// The big-endian word at `addr`, if mapped.
    pub fn peek_word(&mut self, addr: u32) -> Option<u32> {
        self.read::<4>(addr).ok().map(u32::from_be_bytes)
    }

    /// Whether `addr` is mapped and writable (the stack, `.data`, `.bss`).
    pub fn is_writable(&mut self, addr: u32) -> bool {
        self.find(addr, 1)
            .is_ok_and(|(k, _)| self.regions[k].writable)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mips32::image::Section;

    fn image() -> Image {
        Image {
            sections: vec![
                Section {
                    name: ".rodata".into(),
                    addr: 0x1000_0000,
                    bytes: vec![1, 2, 3, 4],
                    writable: false,
                    executable: false,
                },
                Section {
                    name: ".data".into(),
                    addr: 0x1000_0010,
                    bytes: vec![9; 8],
                    writable: true,
                    executable: false,
                },
            ],
            ..Image::default()
        }
    }

    #[test]
    fn big_endian_and_regions() {
        let mut m = Memory::new(&image());
        assert_eq!(m.peek_word(0x1000_0000), Some(0x0102_0304));
        assert_eq!(m.read::<2>(0x1000_0002), Ok([3, 4]));
        assert_eq!(m.read::<4>(0x1000_0002), Err(AccessError::Unmapped));
        assert_eq!(m.write(0x1000_0000, &[0]), Err(AccessError::ReadOnly));
        assert_eq!(m.read::<1>(0), Err(AccessError::Unmapped));
        assert_eq!(m.read::<1>(STACK_TOP), Err(AccessError::Unmapped));
        assert_eq!(m.read::<4>(STACK_TOP - 4), Ok([0; 4]));
    }

    #[test]
    fn reset_restores_what_was_written() {
        let mut m = Memory::new(&image());
        m.write(0x1000_0012, &[7, 7]).unwrap();
        m.write(STACK_TOP - 8, &[5; 4]).unwrap();
        assert_eq!(m.peek_word(0x1000_0010), Some(0x0909_0707));
        m.reset();
        assert_eq!(m.peek_word(0x1000_0010), Some(0x0909_0909));
        assert_eq!(m.peek_word(STACK_TOP - 8), Some(0));
    }
}
