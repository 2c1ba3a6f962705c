//! The brand kit as images: a direction's palette, name and ticker drawn
//! into the templates at their platforms' exact sizes, memes from a few
//! layouts, and the preview sheet the team votes on. Pure: pixels in,
//! PNG bytes out; the tools write the files.
//!
//! - [`canvas`]: the RGBA buffer, shapes, gradients, scaling, PNG encoding.
//! - [`palette`]: four `#RRGGBB` colours, with a typed error.
//! - [`text`]: DejaVu text wrapped and shrunk to a box, outlined for memes.
//! - [`logo`]: a generated mark (a shape and the ticker's initials).
//! - [`templates`]: banner, OG image, profile picture, group photo, logos,
//!   and the preview sheet.
//! - [`memes`]: image + top/bottom text in five layouts.

pub mod canvas;
pub mod logo;
pub mod memes;
pub mod palette;
pub mod templates;
pub mod text;

pub use canvas::{Canvas, Rect, Rgba};
pub use logo::LogoShape;
pub use memes::{Meme, MemeLayout};
pub use palette::{Palette, PaletteError};
pub use templates::Template;

/// Why an image could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BrandError {
    /// The palette does not read.
    #[error(transparent)]
    Palette(#[from] PaletteError),
    /// The bundled font does not load (a broken build).
    #[error("the font does not load: {0}")]
    Font(String),
    /// PNG encoding failed.
    #[error("PNG encoding failed: {0}")]
    Encode(String),
}

/// What a direction's images are made from.
#[derive(Debug, Clone, PartialEq)]
pub struct Brand {
    /// The token's name, as it is written.
    pub name: String,
    /// The ticker, without `$`.
    pub ticker: String,
    /// One short line under the name (may be empty).
    pub tagline: String,
    pub palette: Palette,
    pub shape: LogoShape,
}

impl Brand {
    /// A brand from a direction's texts and palette; the logo's shape comes
    /// from its logo prompt (a named shape, else one picked from the name).
    pub fn new<S: AsRef<str>>(
        name: &str,
        ticker: &str,
        tagline: &str,
        palette: &[S],
        logo_prompt: &str,
    ) -> Result<Self, BrandError> {
        Ok(Self {
            name: name.trim().to_owned(),
            ticker: ticker.trim().trim_start_matches('$').to_uppercase(),
            tagline: tagline.trim().to_owned(),
            palette: Palette::parse(palette)?,
            shape: LogoShape::from_prompt(logo_prompt, name),
        })
    }
}

/// An image and where its texts were drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    pub image: Canvas,
    /// The boxes holding ink of each text drawn (for checks and tests).
    pub text: Vec<Rect>,
}

impl Rendered {
    /// The image as a PNG file.
    pub fn png(&self) -> Result<Vec<u8>, BrandError> {
        self.image.png()
    }
}
