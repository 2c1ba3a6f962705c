//! An RGBA pixel buffer with the few drawing operations the templates use:
//! fills, rectangles, gradients, circles, coverage blending, blits and
//! scaling; and its PNG encoding.

use super::BrandError;

/// A colour, 8 bits per channel, straight alpha.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgba(pub [u8; 4]);

impl Rgba {
    /// An opaque colour.
    pub const fn rgb(r: u8, g: u8, b: u8) -> Self {
        Self([r, g, b, 255])
    }

    /// The same colour with alpha `a`.
    #[must_use]
    pub const fn with_alpha(self, a: u8) -> Self {
        let [r, g, b, _] = self.0;
        Self([r, g, b, a])
    }

    /// The colour `t` of the way from `self` to `other` (0 → self, 1 → other).
    #[must_use]
    pub fn mix(self, other: Self, t: f32) -> Self {
        let t = t.clamp(0.0, 1.0);
        let mut out = [0_u8; 4];
        for (i, channel) in out.iter_mut().enumerate() {
            let a = f32::from(self.0[i]);
            let b = f32::from(other.0[i]);
            *channel = (a + (b - a) * t).round().clamp(0.0, 255.0) as u8;
        }
        Self(out)
    }

    /// Relative luminance, 0 (black) to 1 (white).
    pub fn luminance(self) -> f32 {
        let [r, g, b, _] = self.0;
        (0.2126 * f32::from(r) + 0.7152 * f32::from(g) + 0.0722 * f32::from(b)) / 255.0
    }

    /// Black or white, whichever reads better on `self`.
    pub fn contrasting(self) -> Self {
        if self.luminance() > 0.55 {
            Self::rgb(0, 0, 0)
        } else {
            Self::rgb(255, 255, 255)
        }
    }

    /// Squared distance between two colours (alpha ignored).
    pub fn distance(self, other: Self) -> u32 {
        (0..3)
            .map(|i| {
                let d = i32::from(self.0[i]) - i32::from(other.0[i]);
                d.unsigned_abs().pow(2)
            })
            .sum()
    }
}

/// `color` at opacity `alpha` composited over `under` (Porter-Duff "over",
/// straight alpha), so a translucent edge on a transparent canvas keeps its
/// colour instead of darkening towards black.
fn over(color: Rgba, alpha: f32, under: Rgba) -> Rgba {
    let under_alpha = f32::from(under.0[3]) / 255.0;
    let out_alpha = alpha + under_alpha * (1.0 - alpha);
    if out_alpha <= 0.0 {
        return Rgba([0, 0, 0, 0]);
    }
    let mut out = [0_u8; 4];
    for (i, channel) in out.iter_mut().take(3).enumerate() {
        let top = f32::from(color.0[i]) * alpha;
        let bottom = f32::from(under.0[i]) * under_alpha * (1.0 - alpha);
        *channel = ((top + bottom) / out_alpha).round().clamp(0.0, 255.0) as u8;
    }
    out[3] = (out_alpha * 255.0).round().clamp(0.0, 255.0) as u8;
    Rgba(out)
}

/// An axis-aligned rectangle in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rect {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

impl Rect {
    pub const fn new(x: u32, y: u32, width: u32, height: u32) -> Self {
        Self {
            x,
            y,
            width,
            height,
        }
    }

    /// The same rectangle shrunk by `margin` on every side.
    #[must_use]
    pub fn inset(self, margin: u32) -> Self {
        Self::new(
            self.x + margin,
            self.y + margin,
            self.width.saturating_sub(2 * margin),
            self.height.saturating_sub(2 * margin),
        )
    }
}

/// An image being drawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Canvas {
    width: u32,
    height: u32,
    pixels: Vec<Rgba>,
}

impl Canvas {
    /// A `width`×`height` canvas filled with `color`.
    pub fn new(width: u32, height: u32, color: Rgba) -> Self {
        let len = (width as usize) * (height as usize);
        Self {
            width,
            height,
            pixels: vec![color; len],
        }
    }

    pub fn width(&self) -> u32 {
        self.width
    }

    pub fn height(&self) -> u32 {
        self.height
    }

    /// The pixel at (`x`, `y`); `None` outside.
    pub fn pixel(&self, x: u32, y: u32) -> Option<Rgba> {
        (x < self.width && y < self.height).then(|| self.pixels[self.index(x, y)])
    }

    fn index(&self, x: u32, y: u32) -> usize {
        (y as usize) * (self.width as usize) + x as usize
    }

    /// Paints `color` over the pixel with `coverage` (0–1) times its alpha.
    pub fn blend(&mut self, x: i64, y: i64, color: Rgba, coverage: f32) {
        let (Ok(x), Ok(y)) = (u32::try_from(x), u32::try_from(y)) else {
            return;
        };
        if x >= self.width || y >= self.height {
            return;
        }
        let alpha = coverage.clamp(0.0, 1.0) * f32::from(color.0[3]) / 255.0;
        if alpha <= 0.0 {
            return;
        }
        let index = self.index(x, y);
        self.pixels[index] = over(color, alpha, self.pixels[index]);
    }

    /// Fills the whole canvas.
    pub fn fill(&mut self, color: Rgba) {
        self.pixels.fill(color);
    }

    /// Fills `rect` (clipped to the canvas), blending a translucent colour.
    pub fn rect(&mut self, rect: Rect, color: Rgba) {
        for y in rect.y..(rect.y + rect.height).min(self.height) {
            for x in rect.x..(rect.x + rect.width).min(self.width) {
                self.blend(i64::from(x), i64::from(y), color, 1.0);
            }
        }
    }

    /// Draws the border of `rect`, `thickness` pixels wide, inside it.
    pub fn frame(&mut self, rect: Rect, thickness: u32, color: Rgba) {
        let t = thickness.min(rect.width / 2).min(rect.height / 2);
        let bottom = rect.y + rect.height - t;
        let right = rect.x + rect.width - t;
        self.rect(Rect::new(rect.x, rect.y, rect.width, t), color);
        self.rect(Rect::new(rect.x, bottom, rect.width, t), color);
        self.rect(Rect::new(rect.x, rect.y, t, rect.height), color);
        self.rect(Rect::new(right, rect.y, t, rect.height), color);
    }

    /// A gradient over the whole canvas, from `from` to `to` along the
    /// direction of `angle` (0: left to right; 90: top to bottom).
    pub fn gradient(&mut self, from: Rgba, to: Rgba, angle_degrees: f32) {
        let (sin, cos) = angle_degrees.to_radians().sin_cos();
        let (w, h) = (self.width as f32, self.height as f32);
        let span = (w * cos).abs() + (h * sin).abs();
        let offset = (w * cos).min(0.0) + (h * sin).min(0.0);
        for y in 0..self.height {
            for x in 0..self.width {
                let along = x as f32 * cos + y as f32 * sin - offset;
                let index = self.index(x, y);
                self.pixels[index] = from.mix(to, along / span.max(1.0));
            }
        }
    }

    /// A filled, anti-aliased circle.
    pub fn circle(&mut self, cx: f32, cy: f32, radius: f32, color: Rgba) {
        self.shape(cx, cy, radius, color, |dx, dy| (dx * dx + dy * dy).sqrt());
    }

    /// A filled, anti-aliased regular shape around (`cx`, `cy`) of "radius"
    /// `radius` under the distance `norm` (circle: euclidean; square: max;
    /// diamond: sum).
    pub fn shape(
        &mut self,
        cx: f32,
        cy: f32,
        radius: f32,
        color: Rgba,
        norm: impl Fn(f32, f32) -> f32,
    ) {
        let reach = radius * 1.5 + 2.0;
        let top = (cy - reach).floor().max(0.0) as u32;
        let left = (cx - reach).floor().max(0.0) as u32;
        let bottom = ((cy + reach).ceil() as u32).min(self.height);
        let right = ((cx + reach).ceil() as u32).min(self.width);
        for y in top..bottom {
            for x in left..right {
                let d = norm(x as f32 + 0.5 - cx, y as f32 + 0.5 - cy);
                let coverage = (radius - d + 0.5).clamp(0.0, 1.0);
                self.blend(i64::from(x), i64::from(y), color, coverage);
            }
        }
    }

    /// Draws `other` with its top-left corner at (`x`, `y`), blending its alpha.
    pub fn blit(&mut self, other: &Canvas, x: i64, y: i64) {
        for oy in 0..other.height {
            for ox in 0..other.width {
                let color = other.pixels[other.index(ox, oy)];
                self.blend(x + i64::from(ox), y + i64::from(oy), color, 1.0);
            }
        }
    }

    /// The canvas resampled to `width`×`height` (box filter when shrinking,
    /// nearest when enlarging).
    pub fn scaled(&self, width: u32, height: u32) -> Canvas {
        let mut out = Canvas::new(width.max(1), height.max(1), Rgba([0, 0, 0, 0]));
        let sx = self.width as f32 / out.width as f32;
        let sy = self.height as f32 / out.height as f32;
        for y in 0..out.height {
            let y0 = (y as f32 * sy) as u32;
            let y1 = (((y + 1) as f32 * sy) as u32).clamp(y0 + 1, self.height);
            for x in 0..out.width {
                let x0 = (x as f32 * sx) as u32;
                let x1 = (((x + 1) as f32 * sx) as u32).clamp(x0 + 1, self.width);
                let mut sum = [0_u32; 4];
                let mut n = 0_u32;
                for py in y0..y1 {
                    for px in x0..x1 {
                        let p = self.pixels[self.index(px, py)];
                        for (s, c) in sum.iter_mut().zip(p.0) {
                            *s += u32::from(c);
                        }
                        n += 1;
                    }
                }
                let n = n.max(1);
                let index = out.index(x, y);
                out.pixels[index] = Rgba(sum.map(|s| (s / n) as u8));
            }
        }
        out
    }

    /// The canvas as a PNG file (8-bit RGBA).
    pub fn png(&self) -> Result<Vec<u8>, BrandError> {
        let mut bytes = Vec::new();
        {
            let mut encoder = png::Encoder::new(&mut bytes, self.width, self.height);
            encoder.set_color(png::ColorType::Rgba);
            encoder.set_depth(png::BitDepth::Eight);
            encoder.set_compression(png::Compression::Fast);
            let mut writer = encoder
                .write_header()
                .map_err(|e| BrandError::Encode(e.to_string()))?;
            let data: Vec<u8> = self.pixels.iter().flat_map(|p| p.0).collect();
            writer
                .write_image_data(&data)
                .map_err(|e| BrandError::Encode(e.to_string()))?;
            writer
                .finish()
                .map_err(|e| BrandError::Encode(e.to_string()))?;
        }
        Ok(bytes)
    }
}
