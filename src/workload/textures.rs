//! `[[textures]]` of a manifest: texture references bound to buffers of the
//! `buffers` workload before its launch.
//!
//! ```toml
//! [[textures]]
//! name = "tex_in"      # the module's `.texref` / `.tex` name
//! buffer = "in"        # a `[[buffers]]` name: the texels
//! type = "f32"         # channel type: u8 s8 u16 s16 u32 s32 f32
//! channels = 4         # 1 (default), 2 or 4
//! width = 16           # texels per row
//! height = 8           # rows (default 1: a 1-D texture)
//! pitch = 256          # bytes per row (default width × texel bytes)
//! ```
//!
//! Coordinates are unnormalized, filtering is point (nearest), addressing
//! clamps ([`crate::func::texture`]).

use crate::func::texture::{TexelType, TextureDesc};
use crate::workload::host::WorkloadError;

/// One `[[textures]]` entry, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct TextureSpec {
    /// Texture reference name.
    pub name: String,
    /// The buffer holding the texels.
    pub buffer: String,
    /// Channel type.
    pub texel: TexelType,
    /// Channels per texel.
    pub channels: u32,
    /// Texels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// Bytes per row, if not packed.
    pub pitch: Option<u64>,
}

const KEYS: &[&str] = &[
    "name", "buffer", "type", "channels", "width", "height", "pitch",
];

impl TextureSpec {
    /// Parses entry `i` of `[[textures]]`.
    pub fn parse(t: &toml::Table, i: usize) -> Result<TextureSpec, WorkloadError> {
        let bad = |what: String| WorkloadError::Args(format!("textures[{i}]: {what}"));
        if let Some(k) = t.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(bad(format!("unknown key `{k}` (keys: {})", KEYS.join(" "))));
        }
        let string = |k: &str| -> Result<String, WorkloadError> {
            t.get(k)
                .and_then(toml::Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| bad(format!("`{k}` (a string) is required")))
        };
        let uint = |k: &str, default: Option<u64>| -> Result<u64, WorkloadError> {
            match t.get(k) {
                None => default.ok_or_else(|| bad(format!("`{k}` is required"))),
                Some(v) => v
                    .as_integer()
                    .and_then(|x| u64::try_from(x).ok())
                    .ok_or_else(|| bad(format!("`{k}` must be a non-negative integer, not {v}"))),
            }
        };
        let ty = string("type")?;
        let texel = TexelType::from_name(&ty)
            .ok_or_else(|| bad(format!("type `{ty}` (u8 s8 u16 s16 u32 s32 f32)")))?;
        let small = |k: &str, default: Option<u64>| -> Result<u32, WorkloadError> {
            u32::try_from(uint(k, default)?).map_err(|_| bad(format!("`{k}` is too large")))
        };
        let spec = TextureSpec {
            name: string("name")?,
            buffer: string("buffer")?,
            texel,
            channels: small("channels", Some(1))?,
            width: small("width", None)?,
            height: small("height", Some(1))?,
            pitch: t.get("pitch").map(|_| uint("pitch", None)).transpose()?,
        };
        spec.desc(0).validate().map_err(bad)?;
        Ok(spec)
    }

    /// The description for texels at `addr`.
    pub fn desc(&self, addr: u64) -> TextureDesc {
        let mut d = TextureDesc::packed(addr, self.width, self.height, self.channels, self.texel);
        if let Some(p) = self.pitch {
            d.pitch = p;
        }
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(s: &str) -> toml::Table {
        s.parse().expect("toml")
    }

    #[test]
    fn parses_and_defaults() {
        let t = table("name = \"t\"\nbuffer = \"b\"\ntype = \"u8\"\nchannels = 4\nwidth = 16\n");
        let s = TextureSpec::parse(&t, 0).unwrap();
        assert_eq!((s.width, s.height, s.channels, s.pitch), (16, 1, 4, None));
        assert_eq!(s.desc(0x100).pitch, 64);
        let t = table(
            "name = \"t\"\nbuffer = \"b\"\ntype = \"f32\"\nwidth = 4\nheight = 2\npitch = 32\n",
        );
        assert_eq!(TextureSpec::parse(&t, 0).unwrap().desc(0).pitch, 32);
    }

    #[test]
    fn rejects_bad_entries() {
        let e = |s: &str| TextureSpec::parse(&table(s), 3).unwrap_err().to_string();
        assert!(
            e("name = \"t\"\nbuffer = \"b\"\ntype = \"f16\"\nwidth = 4\n")
                .contains("textures[3]: type `f16`")
        );
        assert!(
            e("name = \"t\"\nbuffer = \"b\"\ntype = \"f32\"\n").contains("`width` is required")
        );
        assert!(
            e("name = \"t\"\nbuffer = \"b\"\ntype = \"f32\"\nwidth = 4\nchannels = 3\n")
                .contains("3 channels")
        );
        assert!(
            e("name = \"t\"\nbuffer = \"b\"\ntype = \"f32\"\nwidth = 4\nfilter = 1\n")
                .contains("unknown key `filter`")
        );
        assert!(
            e("name = \"t\"\nbuffer = \"b\"\ntype = \"f32\"\nwidth = 4\npitch = 8\n")
                .contains("pitch 8")
        );
    }
}
