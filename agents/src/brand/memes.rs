//! Memes: the direction's scene (its colours, rays and logo) with a top and
//! a bottom text, in five layouts; texts wrapped and shrunk to fit, with an
//! outline where they sit on the picture.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::canvas::{Canvas, Rect, Rgba};
use super::logo::{logo, readable_on};
use super::text::{self, TextStyle};
use super::{Brand, BrandError, Rendered};

/// A meme's side, in pixels (square).
pub const SIDE: u32 = 1080;

/// Where a meme's texts go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MemeLayout {
    /// White outlined text over the picture, top and bottom.
    Classic,
    /// The top text in a white bar above the picture, the bottom over it.
    CaptionBar,
    /// Two panels side by side: before (top text) and after (bottom text).
    SplitPanel,
    /// A quote (top text) and who said it (bottom text) on a plain card.
    QuoteCard,
    /// The top text stamped in a frame across the picture, the bottom under it.
    Stamp,
}

impl MemeLayout {
    /// Every layout, in the order a kit cycles through them.
    pub const ALL: [Self; 5] = [
        Self::Classic,
        Self::CaptionBar,
        Self::SplitPanel,
        Self::QuoteCard,
        Self::Stamp,
    ];

    /// Its name, as the tools take it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Classic => "classic",
            Self::CaptionBar => "caption_bar",
            Self::SplitPanel => "split_panel",
            Self::QuoteCard => "quote_card",
            Self::Stamp => "stamp",
        }
    }
}

/// A meme to draw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Meme {
    pub layout: MemeLayout,
    /// The top text (the quote, on a quote card).
    pub top: String,
    /// The bottom text (who said it, on a quote card); may be empty.
    #[serde(default)]
    pub bottom: String,
}

const WHITE: Rgba = Rgba::rgb(255, 255, 255);
const BLACK: Rgba = Rgba::rgb(0, 0, 0);

/// A meme being drawn, and where its texts' ink went.
struct Sheet<'a> {
    brand: &'a Brand,
    image: Canvas,
    inks: Vec<Rect>,
}

impl Sheet<'_> {
    fn text(&mut self, area: Rect, text: &str, style: &TextStyle) -> Result<(), BrandError> {
        let fitted = text::draw(&mut self.image, area, text, style)?;
        self.inks.extend(fitted.ink);
        Ok(())
    }

    fn scene(&mut self, area: Rect, tone: Rgba) -> Result<(), BrandError> {
        scene(&mut self.image, self.brand, area, tone)
    }
}

/// White bold text outlined in black, the classic meme lettering.
fn impact(max_size: f32) -> TextStyle {
    TextStyle::bold(WHITE, max_size).outlined(BLACK)
}

/// Draws `meme` for `brand`, `SIDE`×`SIDE`.
pub fn meme(brand: &Brand, meme: &Meme) -> Result<Rendered, BrandError> {
    let mut sheet = Sheet {
        brand,
        image: Canvas::new(SIDE, SIDE, brand.palette.background),
        inks: Vec::new(),
    };
    let (top, bottom) = (meme.top.as_str(), meme.bottom.as_str());
    match meme.layout {
        MemeLayout::Classic => classic(&mut sheet, top, bottom)?,
        MemeLayout::CaptionBar => caption_bar(&mut sheet, top, bottom)?,
        MemeLayout::SplitPanel => split_panel(&mut sheet, top, bottom)?,
        MemeLayout::QuoteCard => quote_card(&mut sheet, top, bottom)?,
        MemeLayout::Stamp => stamp(&mut sheet, top, bottom)?,
    }
    Ok(Rendered {
        image: sheet.image,
        text: sheet.inks,
    })
}

fn classic(sheet: &mut Sheet<'_>, top: &str, bottom: &str) -> Result<(), BrandError> {
    sheet.scene(Rect::new(0, 0, SIDE, SIDE), sheet.brand.palette.primary)?;
    sheet.text(Rect::new(30, 24, 1020, 270), top, &impact(120.0))?;
    sheet.text(Rect::new(30, 786, 1020, 270), bottom, &impact(120.0))
}

fn caption_bar(sheet: &mut Sheet<'_>, top: &str, bottom: &str) -> Result<(), BrandError> {
    sheet.image.rect(Rect::new(0, 0, SIDE, 300), WHITE);
    sheet.scene(Rect::new(0, 300, SIDE, 780), sheet.brand.palette.primary)?;
    let caption = TextStyle::bold(BLACK, 90.0).regular();
    sheet.text(Rect::new(40, 20, 1000, 260), top, &caption)?;
    sheet.text(Rect::new(30, 850, 1020, 210), bottom, &impact(120.0))
}

fn split_panel(sheet: &mut Sheet<'_>, top: &str, bottom: &str) -> Result<(), BrandError> {
    let p = sheet.brand.palette;
    let half = SIDE / 2;
    let dull = p.background.mix(Rgba::rgb(128, 128, 128), 0.6);
    sheet.scene(Rect::new(0, 0, half, SIDE), dull)?;
    sheet.scene(Rect::new(half, 0, half, SIDE), p.primary)?;
    sheet.image.rect(Rect::new(half - 4, 0, 8, SIDE), WHITE);
    sheet.text(Rect::new(20, 700, half - 40, 340), top, &impact(90.0))?;
    sheet.text(
        Rect::new(half + 20, 700, half - 40, 340),
        bottom,
        &impact(90.0),
    )
}

fn quote_card(sheet: &mut Sheet<'_>, top: &str, bottom: &str) -> Result<(), BrandError> {
    let p = sheet.brand.palette;
    sheet
        .image
        .gradient(p.background, p.background.mix(p.primary, 0.25), 90.0);
    // Decoration, not one of the meme's texts.
    let mark = TextStyle::bold(p.accent, 260.0);
    text::draw(
        &mut sheet.image,
        Rect::new(80, 40, 300, 260),
        "\u{201c}",
        &mark,
    )?;
    let quote = TextStyle::bold(readable_on(p.text, p.background), 96.0)
        .regular()
        .left();
    sheet.text(Rect::new(120, 260, 840, 500), top, &quote)?;
    let who = TextStyle::bold(readable_on(p.accent, p.background), 56.0).left();
    let signed = match bottom.trim() {
        "" => String::new(),
        name => format!("\u{2014} {name}"),
    };
    sheet.text(Rect::new(120, 800, 620, 140), &signed, &who)?;
    let small = logo(sheet.brand, 200)?;
    sheet.image.blit(&small.image, 820, 820);
    Ok(())
}

fn stamp(sheet: &mut Sheet<'_>, top: &str, bottom: &str) -> Result<(), BrandError> {
    let p = sheet.brand.palette;
    sheet.scene(Rect::new(0, 0, SIDE, SIDE), p.primary)?;
    let frame = Rect::new(110, 360, 860, 300);
    sheet.image.rect(frame, p.background.with_alpha(200));
    sheet.image.frame(frame, 16, p.accent);
    let ink = TextStyle::bold(readable_on(p.accent, p.background), 130.0);
    sheet.text(frame.inset(30), &top.to_uppercase(), &ink)?;
    sheet.text(Rect::new(30, 800, 1020, 250), bottom, &impact(120.0))
}

/// The picture under a meme's texts, in `area`: rays from the centre in
/// `tone` and the background, and the logo in the middle.
fn scene(image: &mut Canvas, brand: &Brand, area: Rect, tone: Rgba) -> Result<(), BrandError> {
    let p = &brand.palette;
    let mut picture = Canvas::new(area.width, area.height, tone);
    let (cx, cy) = (area.width as f32 / 2.0, area.height as f32 / 2.0);
    let light = tone.mix(p.background, 0.45);
    for y in 0..area.height {
        for x in 0..area.width {
            let angle = (y as f32 - cy).atan2(x as f32 - cx);
            let ray = ((angle * 8.0).sin() + 1.0) / 2.0;
            if ray > 0.5 {
                picture.blend(i64::from(x), i64::from(y), light, (ray - 0.5) * 2.0);
            }
        }
    }
    let side = area.width.min(area.height) * 9 / 20;
    let mark = logo(brand, side)?;
    picture.blit(
        &mark.image,
        i64::from((area.width - side) / 2),
        i64::from((area.height - side) / 2),
    );
    image.blit(&picture, i64::from(area.x), i64::from(area.y));
    Ok(())
}
