//! Memories of the functional core: global (an allocator of buffers, every
//! access bounds-checked), and the address windows of generic addressing.
//!
//! Global memory is sparse: each allocation is its own byte vector at an
//! address handed out by a bump allocator (256-byte aligned, by default
//! with an unmapped guard gap between buffers), so any access that does not
//! fall entirely inside one allocation is an error rather than a silent
//! read of a neighbour. Lookups go through a sorted base table plus a
//! one-entry cache. The module's variables come first, from
//! [`GLOBAL_BASE`]; the host's allocations follow them or start at an
//! [`AllocLayout`]'s base (GPGPU-Sim's `cudaMalloc` hands out consecutive
//! 256-byte-rounded buffers from `0xC0000000`, and the caches, memory
//! partitions and DRAM rows see those addresses).
//! Shared memory (per CTA), local memory (per thread) and the parameter
//! buffer are plain byte vectors owned by the launch.

/// First address the global allocator hands out.
pub const GLOBAL_BASE: u64 = 0x1000_0000;
/// Generic addresses `SHARED_WINDOW + offset` name shared memory.
pub const SHARED_WINDOW: u64 = 0x7f00_0000_0000;
/// Generic addresses `LOCAL_WINDOW + offset` name local memory.
pub const LOCAL_WINDOW: u64 = 0x7e00_0000_0000;
/// Size of each generic window.
pub const WINDOW_SIZE: u64 = 0x0100_0000_0000;
/// Unmapped bytes between consecutive allocations (module variables, and
/// the host's under the default [`AllocLayout`]).
const GUARD: u64 = 256;

/// Where the host's allocations go (`sim.alloc_base`, `sim.alloc_guard`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllocLayout {
    /// Address of the first allocation (rounded up to 256 bytes); 0, or an
    /// address below the end of the module's variables: right after them.
    pub base: u64,
    /// Unmapped bytes left after each allocation before the next is
    /// rounded up to 256 bytes (0: consecutive, as GPGPU-Sim's `cudaMalloc`).
    pub guard: u64,
}

impl Default for AllocLayout {
    /// After the module's variables, 256-byte guards.
    fn default() -> Self {
        AllocLayout {
            base: 0,
            guard: GUARD,
        }
    }
}

/// One buffer in global memory.
#[derive(Clone, Debug)]
struct Allocation {
    base: u64,
    bytes: Vec<u8>,
    name: String,
}

/// Global memory: allocations, their contents, and the allocator.
#[derive(Clone, Debug, Default)]
pub struct GlobalMemory {
    allocs: Vec<Allocation>,
    next: u64,
    /// Where the host's allocations go.
    layout: AllocLayout,
    /// True once the host has allocated (module variables come before).
    heap_started: bool,
    last_hit: usize,
    /// Texture references bound by the host, by name.
    textures: std::collections::BTreeMap<String, crate::func::texture::TextureDesc>,
}

impl GlobalMemory {
    /// Empty memory.
    pub fn new() -> GlobalMemory {
        GlobalMemory {
            allocs: Vec::new(),
            next: GLOBAL_BASE,
            layout: AllocLayout::default(),
            heap_started: false,
            last_hit: 0,
            textures: Default::default(),
        }
    }

    /// Feeds every allocation's address and contents to `h` (the
    /// functional no-progress detector compares memory by this hash).
    pub fn hash_contents(&self, h: &mut impl std::hash::Hasher) {
        for a in &self.allocs {
            h.write_u64(a.base);
            h.write(&a.bytes);
        }
    }

    /// Binds texture reference `name` to `desc` (replacing an earlier
    /// binding). `Err` says why the description does not fit memory.
    pub fn bind_texture(
        &mut self,
        name: &str,
        desc: crate::func::texture::TextureDesc,
    ) -> Result<(), String> {
        desc.validate()?;
        let last = desc.addr.checked_add(desc.extent().saturating_sub(1));
        let inside = |a: u64| {
            self.allocs
                .iter()
                .any(|x| a >= x.base && a - x.base < x.bytes.len() as u64)
        };
        match last {
            Some(l) if inside(desc.addr) && inside(l) => {}
            _ => {
                return Err(format!(
                    "texture `{name}` ({} bytes at {:#x}) is not inside an allocation",
                    desc.extent(),
                    desc.addr
                ));
            }
        }
        self.textures.insert(name.to_string(), desc);
        Ok(())
    }

    /// The binding of texture reference `name`, if bound.
    pub fn texture(&self, name: &str) -> Option<&crate::func::texture::TextureDesc> {
        self.textures.get(name)
    }

    /// Sets where the host's allocations go; only before the first
    /// ([`GlobalMemory::alloc`]).
    pub fn set_layout(&mut self, layout: AllocLayout) {
        debug_assert!(!self.heap_started, "the layout is set before allocating");
        self.layout = layout;
    }

    /// Allocates `size` zeroed bytes named `name` (for messages) for the
    /// host, aligned to `align` (at least 256), as the [`AllocLayout`]
    /// places them. Returns the address.
    pub fn alloc(&mut self, name: &str, size: u64, align: u64) -> u64 {
        if !self.heap_started {
            self.heap_started = true;
            self.next = self.next.max(GLOBAL_BASE).max(self.layout.base);
        }
        self.place(name, size, align, self.layout.guard)
    }

    /// Allocates module variable `name` (`size` zeroed bytes aligned to
    /// `align`, at least 256), before any of the host's allocations.
    pub fn alloc_var(&mut self, name: &str, size: u64, align: u64) -> u64 {
        debug_assert!(!self.heap_started, "module variables come first");
        self.place(name, size, align, GUARD)
    }

    /// Puts an allocation at the next free `align`ed address, `guard`
    /// bytes kept free after it.
    fn place(&mut self, name: &str, size: u64, align: u64, guard: u64) -> u64 {
        if self.next == 0 {
            self.next = GLOBAL_BASE;
        }
        let base = self.next.next_multiple_of(align.max(256));
        self.allocs.push(Allocation {
            base,
            bytes: vec![0; size as usize],
            name: name.to_string(),
        });
        self.next = base + size.max(1) + guard;
        base
    }

    /// The allocation holding `[addr, addr+len)`, if one does.
    #[inline]
    fn find(&mut self, addr: u64, len: u64) -> Option<usize> {
        let fits = |a: &Allocation| {
            addr >= a.base
                && addr.wrapping_add(len) <= a.base + a.bytes.len() as u64
                && addr.checked_add(len).is_some()
        };
        if let Some(a) = self.allocs.get(self.last_hit)
            && fits(a)
        {
            return Some(self.last_hit);
        }
        // Allocations are created in increasing address order.
        let i = self.allocs.partition_point(|a| a.base <= addr);
        if i == 0 {
            return None;
        }
        if fits(&self.allocs[i - 1]) {
            self.last_hit = i - 1;
            Some(i - 1)
        } else {
            None
        }
    }

    /// Reads `out.len()` bytes at `addr`; `false` if out of bounds.
    #[inline]
    pub fn read(&mut self, addr: u64, out: &mut [u8]) -> bool {
        match self.find(addr, out.len() as u64) {
            Some(i) => {
                let a = &self.allocs[i];
                let off = (addr - a.base) as usize;
                out.copy_from_slice(&a.bytes[off..off + out.len()]);
                true
            }
            None => false,
        }
    }

    /// Writes `data` at `addr`; `false` if out of bounds.
    #[inline]
    pub fn write(&mut self, addr: u64, data: &[u8]) -> bool {
        match self.find(addr, data.len() as u64) {
            Some(i) => {
                let a = &mut self.allocs[i];
                let off = (addr - a.base) as usize;
                a.bytes[off..off + data.len()].copy_from_slice(data);
                true
            }
            None => false,
        }
    }

    /// Reads a little-endian value of `size` bytes (1, 2, 4, 8).
    #[inline]
    pub fn read_uint(&mut self, addr: u64, size: usize) -> Option<u64> {
        let i = self.find(addr, size as u64)?;
        let a = &self.allocs[i];
        slice_read(&a.bytes, addr - a.base, size)
    }

    /// Reads the 32-bit little-endian word at `addr` without touching the
    /// lookup cache (for observers holding `&self`); `None` if out of
    /// bounds.
    pub fn peek_u32(&self, addr: u64) -> Option<u32> {
        let i = self
            .allocs
            .partition_point(|a| a.base <= addr)
            .checked_sub(1)?;
        let a = &self.allocs[i];
        if addr.checked_add(4)? > a.base + a.bytes.len() as u64 {
            return None;
        }
        slice_read(&a.bytes, addr - a.base, 4).map(|v| v as u32)
    }

    /// Reads an `N`-byte little-endian value (constant size: one load after
    /// the allocation lookup).
    #[inline(always)]
    pub fn read_n<const N: usize>(&mut self, addr: u64) -> Option<u64> {
        let i = self.find(addr, N as u64)?;
        let a = &self.allocs[i];
        slice_read_n::<N>(&a.bytes, addr - a.base)
    }

    /// The allocation holding all of `[lo, end)`, if one does: its base
    /// address and its bytes.
    #[inline]
    pub fn range_mut(&mut self, lo: u64, end: u64) -> Option<(u64, &mut [u8])> {
        let i = self.find(lo, end.checked_sub(lo)?)?;
        let a = &mut self.allocs[i];
        Some((a.base, &mut a.bytes))
    }

    /// Writes the low `size` bytes of `value`, little-endian.
    #[inline]
    pub fn write_uint(&mut self, addr: u64, size: usize, value: u64) -> bool {
        match self.find(addr, size as u64) {
            Some(i) => {
                let a = &mut self.allocs[i];
                slice_write(&mut a.bytes, addr - a.base, size, value)
            }
            None => false,
        }
    }

    /// The name of the allocation nearest below `addr` (for error messages).
    pub fn describe(&self, addr: u64) -> String {
        let i = self.allocs.partition_point(|a| a.base <= addr);
        match i.checked_sub(1).map(|j| &self.allocs[j]) {
            Some(a) if addr < a.base + a.bytes.len() as u64 => format!("inside `{}`", a.name),
            Some(a) => format!(
                "{} bytes past the end of `{}` ({} bytes at {:#x})",
                addr - (a.base + a.bytes.len() as u64),
                a.name,
                a.bytes.len(),
                a.base
            ),
            None => "below every allocation".to_string(),
        }
    }

    /// The most recent allocation named `name`: its address and
    /// contents (`--dump`, manifest `dump`).
    pub fn named(&self, name: &str) -> Option<(u64, &[u8])> {
        self.allocs
            .iter()
            .rev()
            .find(|a| a.name == name)
            .map(|a| (a.base, a.bytes.as_slice()))
    }

    /// The names of all allocations, sorted, without repeats.
    pub fn names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.allocs.iter().map(|a| a.name.as_str()).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Total bytes allocated.
    pub fn allocated_bytes(&self) -> u64 {
        self.allocs.iter().map(|a| a.bytes.len() as u64).sum()
    }
}

/// Reads an `N`-byte little-endian value (N = 1, 2, 4, 8) from a byte
/// slice, bounds-checked; the size is a constant so this is one load.
#[inline(always)]
pub fn slice_read_n<const N: usize>(mem: &[u8], addr: u64) -> Option<u64> {
    let a = usize::try_from(addr).ok()?;
    let b: &[u8; N] = mem.get(a..a.checked_add(N)?)?.try_into().ok()?;
    let mut x = [0u8; 8];
    x[..N].copy_from_slice(b);
    Some(u64::from_le_bytes(x))
}

/// Writes the low `N` bytes (N = 1, 2, 4, 8) of `value` into a byte slice,
/// bounds-checked; constant size, so one store.
#[inline(always)]
pub fn slice_write_n<const N: usize>(mem: &mut [u8], addr: u64, value: u64) -> bool {
    let Ok(a) = usize::try_from(addr) else {
        return false;
    };
    let Some(end) = a.checked_add(N) else {
        return false;
    };
    match mem.get_mut(a..end) {
        Some(dst) => {
            dst.copy_from_slice(&value.to_le_bytes()[..N]);
            true
        }
        None => false,
    }
}

/// Reads a little-endian value of 1, 2, 4 or 8 bytes from a byte slice,
/// bounds-checked (fixed-size reads: no `memcpy` call per lane).
#[inline]
pub fn slice_read(mem: &[u8], addr: u64, size: usize) -> Option<u64> {
    let a = usize::try_from(addr).ok()?;
    let bytes = mem.get(a..a.checked_add(size)?)?;
    Some(match size {
        4 => u64::from(u32::from_le_bytes(bytes.try_into().ok()?)),
        8 => u64::from_le_bytes(bytes.try_into().ok()?),
        2 => u64::from(u16::from_le_bytes(bytes.try_into().ok()?)),
        1 => u64::from(bytes[0]),
        _ => {
            let mut b = [0u8; 8];
            b[..size].copy_from_slice(bytes);
            u64::from_le_bytes(b)
        }
    })
}

/// Writes the low `size` bytes (1, 2, 4 or 8) of `value` into a byte
/// slice, bounds-checked.
#[inline]
pub fn slice_write(mem: &mut [u8], addr: u64, size: usize, value: u64) -> bool {
    let Ok(a) = usize::try_from(addr) else {
        return false;
    };
    let Some(end) = a.checked_add(size) else {
        return false;
    };
    match mem.get_mut(a..end) {
        Some(dst) => {
            match size {
                4 => dst.copy_from_slice(&(value as u32).to_le_bytes()),
                8 => dst.copy_from_slice(&value.to_le_bytes()),
                _ => dst.copy_from_slice(&value.to_le_bytes()[..size]),
            }
            true
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_disjoint_and_bounds_checked() {
        let mut m = GlobalMemory::new();
        let a = m.alloc("a", 16, 4);
        let b = m.alloc("b", 8, 4);
        assert_eq!(a % 256, 0);
        assert!(b >= a + 16 + 256);
        assert!(m.write_uint(a + 12, 4, 0xdead_beef));
        assert_eq!(m.read_uint(a + 12, 4), Some(0xdead_beef));
        assert!(!m.write_uint(a + 13, 4, 1), "straddles the end");
        assert_eq!(m.read_uint(a + 16, 1), None, "guard gap");
        assert_eq!(m.read_uint(GLOBAL_BASE - 4, 4), None);
        assert_eq!(m.read_uint(b, 8), Some(0));
        assert_eq!(m.read_uint(u64::MAX - 2, 4), None);
        assert!(m.describe(a + 20).contains("4 bytes past the end of `a`"));
    }

    /// GPGPU-Sim's `cudaMalloc` layout (`sim.alloc_base = 0xC0000000`,
    /// `sim.alloc_guard = 0`): consecutive buffers, each rounded up to 256
    /// bytes, after the module's variables, which keep their own place.
    #[test]
    fn the_gpgpu_sim_layout_packs_allocations_from_its_base() {
        let mut m = GlobalMemory::new();
        let v = m.alloc_var("table", 1000, 4);
        assert_eq!(v, GLOBAL_BASE);
        m.set_layout(AllocLayout {
            base: 0xC000_0000,
            guard: 0,
        });
        let a = m.alloc("a", 2_359_296, 256);
        let b = m.alloc("b", 100, 256);
        let c = m.alloc("c", 256, 256);
        let d = m.alloc("d", 4, 256);
        assert_eq!(
            (a, b, c, d),
            (0xC000_0000, 0xC024_0000, 0xC024_0100, 0xC024_0200)
        );
        // No guard: the byte past `c` is `d`'s first.
        assert!(m.write_uint(d, 4, 7));
        assert_eq!(m.read_uint(c + 256, 4), Some(7));
        // The default: right after the variables, 256 bytes apart.
        let mut m = GlobalMemory::new();
        let v = m.alloc_var("table", 1000, 4);
        let a = m.alloc("a", 16, 4);
        assert_eq!(a, (v + 1000 + 256).next_multiple_of(256));
    }

    #[test]
    fn slices() {
        let mut s = vec![0u8; 8];
        assert!(slice_write(&mut s, 4, 4, 0x0102_0304));
        assert_eq!(slice_read(&s, 4, 4), Some(0x0102_0304));
        assert!(!slice_write(&mut s, 6, 4, 0));
        assert_eq!(slice_read(&s, u64::MAX, 1), None);
    }
}
