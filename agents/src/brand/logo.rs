//! A generated logo: a shape in the direction's colours with the ticker's
//! initials, on a transparent background.

use super::canvas::{Canvas, Rect, Rgba};
use super::text::{self, TextStyle};
use super::{Brand, BrandError, Rendered};

/// The logo's outline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogoShape {
    Circle,
    Square,
    Diamond,
    Hexagon,
}

impl LogoShape {
    const ALL: [Self; 4] = [Self::Circle, Self::Square, Self::Diamond, Self::Hexagon];

    /// The shape a logo prompt names, else one picked from `name` (the same
    /// name always gets the same shape).
    pub fn from_prompt(prompt: &str, name: &str) -> Self {
        let prompt = prompt.to_lowercase();
        let named = [
            (Self::Circle, ["circle", "round", "coin"]),
            (Self::Square, ["square", "block", "pixel"]),
            (Self::Diamond, ["diamond", "rhombus", "gem"]),
            (Self::Hexagon, ["hexagon", "hex", "honeycomb"]),
        ];
        for (shape, words) in named {
            if words.iter().any(|w| prompt.contains(w)) {
                return shape;
            }
        }
        let sum: usize = name.bytes().map(usize::from).sum();
        Self::ALL[sum % Self::ALL.len()]
    }

    /// The distance whose unit ball is the shape.
    fn norm(self) -> fn(f32, f32) -> f32 {
        match self {
            Self::Circle => |dx, dy| (dx * dx + dy * dy).sqrt(),
            Self::Square => |dx, dy| dx.abs().max(dy.abs()) * 1.12,
            Self::Diamond => |dx, dy| (dx.abs() + dy.abs()) * 0.8,
            Self::Hexagon => |dx, dy| (dy.abs() * 0.866 + dx.abs() * 0.5).max(dx.abs()),
        }
    }
}

/// The ticker's first three characters (letters and digits), else the
/// name's initials.
pub fn initials(brand: &Brand) -> String {
    let from_ticker: String = brand
        .ticker
        .chars()
        .filter(|c| c.is_alphanumeric())
        .take(3)
        .collect();
    if !from_ticker.is_empty() {
        return from_ticker.to_uppercase();
    }
    brand
        .name
        .split_whitespace()
        .filter_map(|w| w.chars().next())
        .take(3)
        .collect::<String>()
        .to_uppercase()
}

/// The logo, `size`×`size`, transparent around the shape.
pub fn logo(brand: &Brand, size: u32) -> Result<Rendered, BrandError> {
    let mut image = Canvas::new(size, size, Rgba([0, 0, 0, 0]));
    let palette = &brand.palette;
    let centre = size as f32 / 2.0;
    let radius = size as f32 * 0.46;
    let norm = brand.shape.norm();
    image.shape(centre, centre, radius, palette.accent, norm);
    image.shape(centre, centre, radius * 0.86, palette.primary, norm);
    let ink = readable_on(palette.text, palette.primary);
    let side = (size as f32 * 0.56) as u32;
    let tall = (size as f32 * 0.36) as u32;
    let area = Rect::new((size - side) / 2, (size - tall) / 2, side, tall);
    let style = TextStyle::bold(ink, size as f32 * 0.36);
    let fitted = text::draw(&mut image, area, &initials(brand), &style)?;
    Ok(Rendered {
        image,
        text: fitted.ink.into_iter().collect(),
    })
}

/// `wanted`, unless it is too close to `under` to read: then black or white.
pub fn readable_on(wanted: Rgba, under: Rgba) -> Rgba {
    if wanted.distance(under) < 90 * 90 {
        under.contrasting()
    } else {
        wanted
    }
}
