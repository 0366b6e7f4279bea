//! Texture references of the older CUDA model (`.texref` / `.tex`
//! declarations, `tex.1d/.2d.v4` fetches): what the host binds to a
//! reference ([`TextureDesc`]) and the texel a fetch returns
//! ([`fetch_texel`]).
//!
//! Supported: linear memory in global space, 1 or 2 dimensions, 1, 2 or 4
//! channels of one element type, unnormalized coordinates, point (nearest)
//! filtering and clamp addressing. An integer coordinate is the texel index;
//! a float coordinate `x` samples texel `floor(x)`; indices are clamped to
//! `0..width` and `0..height`. Channels the format lacks read as 0. Integer
//! texels read by an integer fetch (`tex….s32/.u32`) are sign- or
//! zero-extended by the element type; 8- and 16-bit integer texels read by
//! a float fetch (`tex….f32`) are normalized (unsigned: `x / MAX`; signed:
//! `max(x / MAX, -1)`), as CUDA's `cudaReadModeNormalizedFloat`; 32-bit
//! integer texels read as floats convert by value; float texels read by an
//! integer fetch are their bit patterns.

/// Element type of a texture's channels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TexelType {
    /// `u8`
    U8,
    /// `s8`
    S8,
    /// `u16`
    U16,
    /// `s16`
    S16,
    /// `u32`
    U32,
    /// `s32`
    S32,
    /// `f32`
    F32,
}

impl TexelType {
    /// Parses `u8`, `s8`, `u16`, `s16`, `u32`, `s32`, `f32`.
    pub fn from_name(s: &str) -> Option<TexelType> {
        Some(match s {
            "u8" => TexelType::U8,
            "s8" => TexelType::S8,
            "u16" => TexelType::U16,
            "s16" => TexelType::S16,
            "u32" => TexelType::U32,
            "s32" => TexelType::S32,
            "f32" => TexelType::F32,
            _ => return None,
        })
    }

    /// Bytes per channel.
    pub fn bytes(self) -> u32 {
        match self {
            TexelType::U8 | TexelType::S8 => 1,
            TexelType::U16 | TexelType::S16 => 2,
            _ => 4,
        }
    }
}

/// What the host binds to a texture reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextureDesc {
    /// Global address of texel (0, 0).
    pub addr: u64,
    /// Texels per row.
    pub width: u32,
    /// Rows (1 for a 1-D texture).
    pub height: u32,
    /// Bytes from one row to the next (`width × texel bytes` for packed rows).
    pub pitch: u64,
    /// Channels per texel: 1, 2 or 4.
    pub channels: u32,
    /// Element type of every channel.
    pub texel: TexelType,
}

impl TextureDesc {
    /// A packed texture (`pitch = width × texel bytes`).
    pub fn packed(addr: u64, width: u32, height: u32, channels: u32, texel: TexelType) -> Self {
        TextureDesc {
            addr,
            width,
            height,
            pitch: u64::from(width) * u64::from(channels * texel.bytes()),
            channels,
            texel,
        }
    }

    /// Bytes per texel.
    pub fn texel_bytes(&self) -> u32 {
        self.channels * self.texel.bytes()
    }

    /// Checks the shape; `Err` says what is wrong.
    pub fn validate(&self) -> Result<(), String> {
        if !matches!(self.channels, 1 | 2 | 4) {
            return Err(format!("{} channels (1, 2 or 4 allowed)", self.channels));
        }
        if self.width == 0 || self.height == 0 {
            return Err(format!("an empty texture ({}×{})", self.width, self.height));
        }
        if self.pitch < u64::from(self.width) * u64::from(self.texel_bytes()) {
            return Err(format!(
                "pitch {} is less than a row ({} texels of {} bytes)",
                self.pitch,
                self.width,
                self.texel_bytes()
            ));
        }
        Ok(())
    }

    /// Bytes from `addr` to the end of the last texel.
    pub fn extent(&self) -> u64 {
        self.pitch
            .saturating_mul(u64::from(self.height.saturating_sub(1)))
            .saturating_add(u64::from(self.width) * u64::from(self.texel_bytes()))
    }

    /// The address of the texel a fetch at coordinate `(x, y)` reads
    /// (coordinates as bit patterns of `coord_float ? f32 : s32`).
    pub fn texel_addr(&self, x: u32, y: u32, coord_float: bool) -> u64 {
        let index = |c: u32, n: u32| -> u64 {
            let i = if coord_float {
                let f = f32::from_bits(c).floor();
                // NaN → 0; saturating conversion, then clamp.
                if f.is_nan() { 0 } else { f as i64 }
            } else {
                i64::from(c as i32)
            };
            i.clamp(0, i64::from(n) - 1) as u64
        };
        // Wrapping: a binding is checked to lie inside an allocation, so
        // these sums stay in range for every clamped index.
        self.addr
            .wrapping_add(index(y, self.height).wrapping_mul(self.pitch))
            .wrapping_add(index(x, self.width) * u64::from(self.texel_bytes()))
    }
}

/// The four 32-bit results of `tex.….v4.dtype` from the texel's bytes:
/// `float_result` for `.f32`, `signed_result` for `.s32`.
pub fn fetch_texel(desc: &TextureDesc, bytes: &[u8], float_result: bool) -> [u32; 4] {
    let n = desc.texel.bytes() as usize;
    let mut out = [0u32; 4];
    for (c, o) in out.iter_mut().enumerate().take(desc.channels as usize) {
        let Some(raw) = bytes.get(c * n..c * n + n) else {
            break;
        };
        let mut le = [0u8; 4];
        le[..n].copy_from_slice(raw);
        let u = u32::from_le_bytes(le);
        *o = match (desc.texel, float_result) {
            (TexelType::F32, _) => u,
            (TexelType::U8, true) => (u as f32 / 255.0).to_bits(),
            (TexelType::U16, true) => (u as f32 / 65535.0).to_bits(),
            (TexelType::S8, true) => (f32::from(u as u8 as i8) / 127.0).max(-1.0).to_bits(),
            (TexelType::S16, true) => (f32::from(u as u16 as i16) / 32767.0).max(-1.0).to_bits(),
            (TexelType::U32, true) => (u as f32).to_bits(),
            (TexelType::S32, true) => (u as i32 as f32).to_bits(),
            (TexelType::S8, false) => u as u8 as i8 as i32 as u32,
            (TexelType::S16, false) => u as u16 as i16 as i32 as u32,
            (_, false) => u,
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_clamp_and_floor() {
        let d = TextureDesc::packed(0x1000, 10, 4, 4, TexelType::F32);
        assert_eq!(d.texel_bytes(), 16);
        assert_eq!(d.pitch, 160);
        assert_eq!(d.texel_addr(3, 2, false), 0x1000 + 2 * 160 + 3 * 16);
        // Clamp: -5 → 0, 99 → 9 (x) and 3 (y).
        assert_eq!(d.texel_addr(-5i32 as u32, 99, false), 0x1000 + 3 * 160);
        assert_eq!(d.texel_addr(99, 0, false), 0x1000 + 9 * 16);
        // Float coordinates: 2.99 → texel 2, -0.5 → texel 0, NaN → 0.
        let f = |v: f32| v.to_bits();
        assert_eq!(d.texel_addr(f(2.99), f(1.0), true), 0x1000 + 160 + 2 * 16);
        assert_eq!(d.texel_addr(f(-0.5), f(f32::NAN), true), 0x1000);
        assert_eq!(d.texel_addr(f(1e30), f(0.0), true), 0x1000 + 9 * 16);
        assert_eq!(d.extent(), 3 * 160 + 160);
    }

    #[test]
    fn texel_conversions() {
        let d = TextureDesc::packed(0, 1, 1, 4, TexelType::U8);
        let b = [0u8, 255, 51, 1];
        assert_eq!(fetch_texel(&d, &b, false), [0, 255, 51, 1]);
        let f = fetch_texel(&d, &b, true);
        assert_eq!(f[1], 1.0f32.to_bits());
        assert_eq!(f[2], 0.2f32.to_bits());
        let d = TextureDesc::packed(0, 1, 1, 2, TexelType::S8);
        let r = fetch_texel(&d, &[0x80, 0x7f], false);
        assert_eq!(r, [(-128i32) as u32, 127, 0, 0]);
        let r = fetch_texel(&d, &[0x80, 0x7f], true);
        assert_eq!(r[0], (-1.0f32).to_bits());
        assert_eq!(r[1], 1.0f32.to_bits());
        let d = TextureDesc::packed(0, 1, 1, 1, TexelType::F32);
        assert_eq!(
            fetch_texel(&d, &2.5f32.to_le_bytes(), true),
            [2.5f32.to_bits(), 0, 0, 0]
        );
        let d = TextureDesc::packed(0, 1, 1, 1, TexelType::S16);
        assert_eq!(
            fetch_texel(&d, &(-2i16).to_le_bytes(), false)[0],
            (-2i32) as u32
        );
    }

    #[test]
    fn validation() {
        assert!(
            TextureDesc::packed(0, 4, 1, 3, TexelType::U8)
                .validate()
                .is_err()
        );
        assert!(
            TextureDesc::packed(0, 0, 1, 1, TexelType::U8)
                .validate()
                .is_err()
        );
        let mut d = TextureDesc::packed(0, 4, 2, 1, TexelType::F32);
        assert!(d.validate().is_ok());
        d.pitch = 8;
        assert!(d.validate().is_err());
    }
}
