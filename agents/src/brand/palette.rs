//! A direction's four colours, parsed from `#RRGGBB`.

use super::canvas::Rgba;

/// A colour that is not `#RRGGBB`, or a palette that is not four colours.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PaletteError {
    /// One colour does not read.
    #[error("palette colour {index} (`{value}`) is not a #RRGGBB hex colour")]
    BadHex { index: usize, value: String },
    /// Not four colours.
    #[error("a palette has exactly 4 colours, not {0}")]
    WrongCount(usize),
}

/// Four colours, in the order the Designer gives them: the background, the
/// main colour, the accent, and the text colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Palette {
    pub background: Rgba,
    pub primary: Rgba,
    pub accent: Rgba,
    pub text: Rgba,
}

impl Palette {
    /// Reads four `#RRGGBB` colours.
    pub fn parse<S: AsRef<str>>(colours: &[S]) -> Result<Self, PaletteError> {
        let [background, primary, accent, text] = colours else {
            return Err(PaletteError::WrongCount(colours.len()));
        };
        let read = |index: usize, value: &S| {
            hex(value.as_ref()).ok_or_else(|| PaletteError::BadHex {
                index,
                value: value.as_ref().to_owned(),
            })
        };
        Ok(Self {
            background: read(0, background)?,
            primary: read(1, primary)?,
            accent: read(2, accent)?,
            text: read(3, text)?,
        })
    }

    /// The four colours, in order.
    pub fn colours(&self) -> [Rgba; 4] {
        [self.background, self.primary, self.accent, self.text]
    }
}

/// `#RRGGBB` (the `#` may be left out) as an opaque colour.
pub fn hex(value: &str) -> Option<Rgba> {
    let digits = value.trim().strip_prefix('#').unwrap_or(value.trim());
    if digits.len() != 6 || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let channel = |i: usize| u8::from_str_radix(digits.get(i..i + 2)?, 16).ok();
    Some(Rgba::rgb(channel(0)?, channel(2)?, channel(4)?))
}
