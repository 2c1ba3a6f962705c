//! Text in a box: the DejaVu fonts the `dejavu` crate ships, rasterised by
//! `ab_glyph`; words wrapped to the box's width, the size shrunk until the
//! lines fit its height, and an outline for memes.

use ab_glyph::{Font, FontRef, PxScale, ScaleFont, point};

use super::BrandError;
use super::canvas::{Canvas, Rect, Rgba};

/// Which DejaVu Sans.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weight {
    Regular,
    Bold,
}

/// Where lines sit across the box.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Center,
}

/// How a text is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextStyle {
    pub color: Rgba,
    /// An outline around each glyph (memes): its colour.
    pub outline: Option<Rgba>,
    pub weight: Weight,
    pub align: Align,
    /// The largest size tried, in pixels; the text shrinks from there.
    pub max_size: f32,
    /// The smallest size; below it the text is drawn anyway and may not fit.
    pub min_size: f32,
}

impl TextStyle {
    /// Centred bold text in `color`, from `max_size` down to a quarter of it.
    pub fn bold(color: Rgba, max_size: f32) -> Self {
        Self {
            color,
            outline: None,
            weight: Weight::Bold,
            align: Align::Center,
            max_size,
            min_size: (max_size / 4.0).max(8.0),
        }
    }

    /// The same, regular weight.
    #[must_use]
    pub fn regular(mut self) -> Self {
        self.weight = Weight::Regular;
        self
    }

    /// The same, left-aligned.
    #[must_use]
    pub fn left(mut self) -> Self {
        self.align = Align::Left;
        self
    }

    /// The same, outlined in `color`.
    #[must_use]
    pub fn outlined(mut self, color: Rgba) -> Self {
        self.outline = Some(color);
        self
    }
}

/// How a text was laid out in its box.
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    /// The size used, in pixels.
    pub size: f32,
    /// The lines, as wrapped.
    pub lines: Vec<String>,
    /// The widest line's width, in pixels.
    pub widest: f32,
    /// Whether every line fits the box at that size.
    pub fits: bool,
    /// Where ink was drawn (`None` for an empty text).
    pub ink: Option<Rect>,
}

/// The DejaVu Sans of `weight`.
pub fn font(weight: Weight) -> Result<FontRef<'static>, BrandError> {
    let data = match weight {
        Weight::Regular => dejavu::sans::regular(),
        Weight::Bold => dejavu::sans::bold(),
    };
    FontRef::try_from_slice(data).map_err(|e| BrandError::Font(e.to_string()))
}

/// The width of `line` at `size` pixels.
pub fn line_width(font: &FontRef<'_>, size: f32, line: &str) -> f32 {
    let scaled = font.as_scaled(PxScale::from(size));
    let mut width = 0.0;
    let mut previous = None;
    for c in line.chars() {
        let id = scaled.glyph_id(c);
        if let Some(previous) = previous {
            width += scaled.kern(previous, id);
        }
        width += scaled.h_advance(id);
        previous = Some(id);
    }
    width
}

/// `text` wrapped at word boundaries to `max_width` pixels at `size` (a word
/// wider than the box is broken between characters); explicit newlines kept.
pub fn wrap(font: &FontRef<'_>, size: f32, text: &str, max_width: f32) -> Vec<String> {
    let mut lines = Vec::new();
    for paragraph in text.lines() {
        let mut line = String::new();
        for word in paragraph.split_whitespace() {
            let candidate = match line.is_empty() {
                true => word.to_owned(),
                false => format!("{line} {word}"),
            };
            if line_width(font, size, &candidate) <= max_width {
                line = candidate;
                continue;
            }
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            for c in word.chars() {
                line.push(c);
                if line_width(font, size, &line) > max_width && line.chars().count() > 1 {
                    line.pop();
                    lines.push(std::mem::replace(&mut line, c.to_string()));
                }
            }
        }
        if !line.is_empty() {
            lines.push(line);
        }
    }
    lines
}

fn line_height(font: &FontRef<'_>, size: f32) -> f32 {
    let scaled = font.as_scaled(PxScale::from(size));
    scaled.height() + scaled.line_gap()
}

/// The largest size (from `style.max_size` down, by 8 % steps) at which
/// `text` wrapped to `width` fits `height`.
pub fn fit(font: &FontRef<'_>, text: &str, width: f32, height: f32, style: &TextStyle) -> Fitted {
    let mut size = style.max_size;
    loop {
        let lines = wrap(font, size, text, width);
        let widest = lines
            .iter()
            .map(|l| line_width(font, size, l))
            .fold(0.0, f32::max);
        let tall = line_height(font, size) * lines.len() as f32;
        let fits = widest <= width && tall <= height;
        if fits || size * 0.92 < style.min_size {
            return Fitted {
                size,
                lines,
                widest,
                fits,
                ink: None,
            };
        }
        size *= 0.92;
    }
}

/// Draws `text` in `area`, wrapped and shrunk to fit, centred vertically.
pub fn draw(
    canvas: &mut Canvas,
    area: Rect,
    text: &str,
    style: &TextStyle,
) -> Result<Fitted, BrandError> {
    let font = font(style.weight)?;
    let probe = fit(&font, text, area.width as f32, area.height as f32, style);
    let stroke = outline_width(probe.size, style);
    let inner = area.inset(stroke);
    let mut fitted = fit(&font, text, inner.width as f32, inner.height as f32, style);
    let mut mask = Mask::new(area.width, area.height);
    let scaled = font.as_scaled(PxScale::from(fitted.size));
    let step = line_height(&font, fitted.size);
    let block = step * fitted.lines.len() as f32;
    let top = stroke as f32 + ((inner.height as f32 - block) / 2.0).max(0.0);
    for (i, line) in fitted.lines.iter().enumerate() {
        let width = line_width(&font, fitted.size, line);
        let left = match style.align {
            Align::Left => stroke as f32,
            Align::Center => stroke as f32 + ((inner.width as f32 - width) / 2.0).max(0.0),
        };
        let baseline = top + i as f32 * step + scaled.ascent();
        mask.line(&font, fitted.size, line, left, baseline);
    }
    let stroke_color = style.outline.filter(|_| stroke > 0);
    if let Some(color) = stroke_color {
        let outline = mask.dilated(stroke);
        outline.paint(canvas, area, color);
        fitted.ink = outline.ink(area);
    } else {
        fitted.ink = mask.ink(area);
    }
    mask.paint(canvas, area, style.color);
    Ok(fitted)
}

fn outline_width(size: f32, style: &TextStyle) -> u32 {
    match style.outline {
        Some(_) => (size / 14.0).round().max(2.0) as u32,
        None => 0,
    }
}

/// Glyph coverage over a box, 0–1 per pixel.
struct Mask {
    width: u32,
    height: u32,
    coverage: Vec<f32>,
}

impl Mask {
    fn new(width: u32, height: u32) -> Self {
        Self {
            width,
            height,
            coverage: vec![0.0; (width as usize) * (height as usize)],
        }
    }

    fn add(&mut self, x: i64, y: i64, c: f32) {
        if x < 0 || y < 0 || x >= i64::from(self.width) || y >= i64::from(self.height) {
            return;
        }
        let index = (y as usize) * (self.width as usize) + x as usize;
        self.coverage[index] = (self.coverage[index] + c).min(1.0);
    }

    fn line(&mut self, font: &FontRef<'_>, size: f32, line: &str, left: f32, baseline: f32) {
        let scaled = font.as_scaled(PxScale::from(size));
        let mut x = left;
        let mut previous = None;
        for c in line.chars() {
            let id = scaled.glyph_id(c);
            if let Some(previous) = previous {
                x += scaled.kern(previous, id);
            }
            let glyph = id.with_scale_and_position(size, point(x, baseline));
            x += scaled.h_advance(id);
            previous = Some(id);
            let Some(outlined) = font.outline_glyph(glyph) else {
                continue;
            };
            let bounds = outlined.px_bounds();
            let (bx, by) = (bounds.min.x as i64, bounds.min.y as i64);
            outlined.draw(|gx, gy, c| self.add(bx + i64::from(gx), by + i64::from(gy), c));
        }
    }

    /// The mask grown by `radius` pixels (a square max filter, in two passes).
    fn dilated(&self, radius: u32) -> Self {
        let (w, h, r) = (self.width as usize, self.height as usize, radius as usize);
        let mut across = vec![0.0_f32; w * h];
        for y in 0..h {
            let row = &self.coverage[y * w..(y + 1) * w];
            for x in 0..w {
                let window = &row[x.saturating_sub(r)..(x + r + 1).min(w)];
                across[y * w + x] = window.iter().copied().fold(0.0, f32::max);
            }
        }
        let mut out = Self::new(self.width, self.height);
        for x in 0..w {
            for y in 0..h {
                let from = y.saturating_sub(r);
                let to = (y + r + 1).min(h);
                out.coverage[y * w + x] =
                    (from..to).map(|yy| across[yy * w + x]).fold(0.0, f32::max);
            }
        }
        out
    }

    fn paint(&self, canvas: &mut Canvas, area: Rect, color: Rgba) {
        for y in 0..self.height {
            for x in 0..self.width {
                let c = self.coverage[(y as usize) * (self.width as usize) + x as usize];
                if c > 0.0 {
                    canvas.blend(i64::from(area.x + x), i64::from(area.y + y), color, c);
                }
            }
        }
    }

    /// The bounding box of the covered pixels, in canvas coordinates.
    fn ink(&self, area: Rect) -> Option<Rect> {
        let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
        for y in 0..self.height {
            for x in 0..self.width {
                if self.coverage[(y as usize) * (self.width as usize) + x as usize] > 0.25 {
                    x0 = x0.min(x);
                    y0 = y0.min(y);
                    x1 = x1.max(x);
                    y1 = y1.max(y);
                }
            }
        }
        (x0 <= x1).then(|| Rect::new(area.x + x0, area.y + y0, x1 - x0 + 1, y1 - y0 + 1))
    }
}
