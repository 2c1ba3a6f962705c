//! The kit's templates at their platforms' exact sizes, and the preview
//! sheet the team votes on.

use super::canvas::{Canvas, Rect, Rgba};
use super::logo::{logo, readable_on};
use super::memes::{Meme, meme};
use super::text::{self, TextStyle};
use super::{Brand, BrandError, Rendered};

/// One image of the kit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Template {
    /// X's header, 1500×500.
    Banner,
    /// The Open Graph image shown when a link is shared, 1200×630.
    Og,
    /// The profile picture, 400×400.
    ProfilePicture,
    /// The Telegram group's photo, 640×640.
    GroupPhoto,
    /// The logo alone, square, transparent around it.
    Logo(u32),
}

impl Template {
    /// Every template of the kit (the logo at 512, 256 and 128).
    pub const KIT: [Self; 7] = [
        Self::Logo(512),
        Self::Logo(256),
        Self::Logo(128),
        Self::ProfilePicture,
        Self::Banner,
        Self::Og,
        Self::GroupPhoto,
    ];

    /// Its width and height in pixels.
    pub fn size(self) -> (u32, u32) {
        match self {
            Self::Banner => (1500, 500),
            Self::Og => (1200, 630),
            Self::ProfilePicture => (400, 400),
            Self::GroupPhoto => (640, 640),
            Self::Logo(side) => (side, side),
        }
    }

    /// The asset kind it is stored as (`logo_512`, `banner`, …).
    pub fn kind(self) -> String {
        match self {
            Self::Banner => "banner".to_owned(),
            Self::Og => "og".to_owned(),
            Self::ProfilePicture => "pfp".to_owned(),
            Self::GroupPhoto => "group_photo".to_owned(),
            Self::Logo(side) => format!("logo_{side}"),
        }
    }

    /// Draws it for `brand`.
    pub fn render(self, brand: &Brand) -> Result<Rendered, BrandError> {
        match self {
            Self::Banner => banner(brand),
            Self::Og => og(brand),
            Self::ProfilePicture => badge(brand, 400),
            Self::GroupPhoto => badge(brand, 640),
            Self::Logo(side) => logo(brand, side),
        }
    }
}

/// Draws `text` in `area` and records where its ink went.
fn write(
    image: &mut Canvas,
    inks: &mut Vec<Rect>,
    area: Rect,
    text: &str,
    style: &TextStyle,
) -> Result<(), BrandError> {
    let fitted = text::draw(image, area, text, style)?;
    inks.extend(fitted.ink);
    Ok(())
}

/// Soft discs of the accent colour, for depth.
fn bubbles(image: &mut Canvas, accent: Rgba) {
    let (w, h) = (image.width() as f32, image.height() as f32);
    for (fx, fy, fr) in [(0.92, 0.1, 0.35), (0.8, 0.95, 0.22), (0.05, 0.9, 0.18)] {
        image.circle(w * fx, h * fy, h * fr, accent.with_alpha(46));
    }
}

fn banner(brand: &Brand) -> Result<Rendered, BrandError> {
    let p = &brand.palette;
    let mut image = Canvas::new(1500, 500, p.background);
    image.gradient(p.background, p.primary.mix(p.background, 0.35), 20.0);
    bubbles(&mut image, p.accent);
    let mark = logo(brand, 320)?;
    image.blit(&mark.image, 90, 90);
    let mut inks: Vec<Rect> = mark.text.iter().map(|r| offset(*r, 90, 90)).collect();
    let ink = readable_on(p.text, p.background);
    let name = TextStyle::bold(ink, 130.0).left();
    write(
        &mut image,
        &mut inks,
        Rect::new(470, 100, 960, 170),
        &brand.name,
        &name,
    )?;
    let ticker = TextStyle::bold(readable_on(p.accent, p.background), 72.0).left();
    let dollar = format!("${}", brand.ticker);
    write(
        &mut image,
        &mut inks,
        Rect::new(470, 280, 960, 90),
        &dollar,
        &ticker,
    )?;
    let line = TextStyle::bold(ink, 44.0).regular().left();
    write(
        &mut image,
        &mut inks,
        Rect::new(470, 380, 960, 70),
        &brand.tagline,
        &line,
    )?;
    Ok(Rendered { image, text: inks })
}

fn og(brand: &Brand) -> Result<Rendered, BrandError> {
    let p = &brand.palette;
    let mut image = Canvas::new(1200, 630, p.background);
    image.gradient(p.background, p.primary.mix(p.background, 0.4), 90.0);
    bubbles(&mut image, p.accent);
    let mark = logo(brand, 250)?;
    image.blit(&mark.image, 475, 40);
    let mut inks: Vec<Rect> = mark.text.iter().map(|r| offset(*r, 475, 40)).collect();
    let ink = readable_on(p.text, p.background);
    let title = format!("{} · ${}", brand.name, brand.ticker);
    let name = TextStyle::bold(ink, 110.0);
    write(
        &mut image,
        &mut inks,
        Rect::new(60, 310, 1080, 150),
        &title,
        &name,
    )?;
    let line = TextStyle::bold(ink, 50.0).regular();
    write(
        &mut image,
        &mut inks,
        Rect::new(60, 470, 1080, 110),
        &brand.tagline,
        &line,
    )?;
    image.rect(Rect::new(0, 600, 1200, 30), p.accent);
    Ok(Rendered { image, text: inks })
}

/// The logo on the direction's background, for round-cropped avatars.
fn badge(brand: &Brand, side: u32) -> Result<Rendered, BrandError> {
    let p = &brand.palette;
    let mut image = Canvas::new(side, side, p.background);
    image.gradient(p.background, p.primary.mix(p.background, 0.5), 135.0);
    let mark = logo(brand, side * 17 / 20)?;
    let at = i64::from((side - mark.image.width()) / 2);
    image.blit(&mark.image, at, at);
    let text = mark.text.iter().map(|r| offset(*r, at, at)).collect();
    Ok(Rendered { image, text })
}

fn offset(rect: Rect, x: i64, y: i64) -> Rect {
    let shift = |v: u32, by: i64| u32::try_from(i64::from(v) + by).unwrap_or(0);
    Rect::new(shift(rect.x, x), shift(rect.y, y), rect.width, rect.height)
}

/// The preview sheet's size.
pub const SHEET: (u32, u32) = (1600, 1040);

/// One image with the banner, the profile picture, one meme and the
/// palette, for the team to compare directions.
pub fn preview_sheet(brand: &Brand, sample: &Meme) -> Result<Rendered, BrandError> {
    let p = &brand.palette;
    let backdrop = Rgba::rgb(24, 24, 28);
    let mut image = Canvas::new(SHEET.0, SHEET.1, backdrop);
    let banner = banner(brand)?;
    image.blit(&banner.image, 50, 40);
    let mut inks: Vec<Rect> = banner.text.iter().map(|r| offset(*r, 50, 40)).collect();
    let pfp = badge(brand, 400)?;
    image.blit(&pfp.image, 50, 590);
    inks.extend(pfp.text.iter().map(|r| offset(*r, 50, 590)));
    let sample = meme(brand, sample)?;
    image.blit(&sample.image.scaled(400, 400), 500, 590);
    let swatch = 100;
    for (i, colour) in p.colours().into_iter().enumerate() {
        let x = 980 + (swatch + 20) * i as u32;
        image.rect(Rect::new(x, 600, swatch, swatch), colour);
        image.frame(
            Rect::new(x, 600, swatch, swatch),
            2,
            Rgba::rgb(255, 255, 255),
        );
    }
    let white = Rgba::rgb(255, 255, 255);
    let title = format!("{} · ${}", brand.name, brand.ticker);
    let heading = TextStyle::bold(white, 60.0).left();
    write(
        &mut image,
        &mut inks,
        Rect::new(980, 740, 570, 110),
        &title,
        &heading,
    )?;
    let line = TextStyle::bold(white, 34.0).regular().left();
    write(
        &mut image,
        &mut inks,
        Rect::new(980, 870, 570, 110),
        &brand.tagline,
        &line,
    )?;
    Ok(Rendered { image, text: inks })
}
