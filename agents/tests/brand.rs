//! The brand kit as images: each template is a PNG of its platform's exact
//! size whose texts stand out from what is under them; memes come in five
//! layouts; long texts are wrapped and shrunk to their box; a bad palette
//! is refused, naming the colour.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use ulias_agents::brand::templates::{SHEET, preview_sheet};
use ulias_agents::brand::text::{self, TextStyle};
use ulias_agents::brand::{
    Brand, BrandError, Canvas, Meme, MemeLayout, PaletteError, Rect, Rendered, Rgba, Template,
    memes,
};

const PALETTE: [&str; 4] = ["#101820", "#F2AA4C", "#3DDC97", "#FFFFFF"];

fn brand() -> Brand {
    Brand::new(
        "Pepe Two",
        "$PEP2",
        "The frog is back, and so are we",
        &PALETTE,
        "a round coin",
    )
    .unwrap()
}

/// The same brand with no texts: what is under the texts.
fn blank() -> Brand {
    Brand {
        name: String::new(),
        ticker: String::new(),
        tagline: String::new(),
        ..brand()
    }
}

/// Decodes a PNG into its size and RGBA bytes.
fn decode(png_bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut data = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut data).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgba);
    data.truncate(info.buffer_size());
    (info.width, info.height, data)
}

/// The share of `area`'s pixels that differ between two decoded images.
fn changed_share(width: u32, a: &[u8], b: &[u8], area: Rect) -> f64 {
    let mut changed = 0_u32;
    for y in area.y..area.y + area.height {
        for x in area.x..area.x + area.width {
            let i = ((y * width + x) * 4) as usize;
            let differs = (0..4).any(|c| a[i + c].abs_diff(b[i + c]) > 24);
            changed += u32::from(differs);
        }
    }
    f64::from(changed) / f64::from(area.width * area.height)
}

/// Checks a rendering: exact size, and every text box it reports differs
/// (over a tenth of its pixels) from the same image without texts.
fn assert_texts_stand_out(what: &str, with: &Rendered, without: &Rendered, size: (u32, u32)) {
    let (w, h, pixels) = decode(&with.png().unwrap());
    assert_eq!((w, h), size, "{what}: size");
    let (_, _, under) = decode(&without.png().unwrap());
    assert!(!with.text.is_empty(), "{what}: no text drawn");
    for area in &with.text {
        assert!(
            area.x + area.width <= w && area.y + area.height <= h,
            "{what}: {area:?}"
        );
        let share = changed_share(w, &pixels, &under, *area);
        assert!(
            share > 0.1,
            "{what}: text area {area:?} barely differs ({share:.3})"
        );
    }
}

#[test]
fn every_template_renders_a_png_of_its_exact_size_whose_texts_stand_out() {
    let sizes = [
        (Template::Banner, (1500, 500)),
        (Template::Og, (1200, 630)),
        (Template::ProfilePicture, (400, 400)),
        (Template::GroupPhoto, (640, 640)),
        (Template::Logo(512), (512, 512)),
        (Template::Logo(256), (256, 256)),
        (Template::Logo(128), (128, 128)),
    ];
    for (template, size) in sizes {
        assert_eq!(template.size(), size);
        let with = template.render(&brand()).unwrap();
        let without = template.render(&blank()).unwrap();
        assert_texts_stand_out(&template.kind(), &with, &without, size);
    }
    assert_eq!(Template::KIT.len(), 7, "the kit has every template");
}

#[test]
fn five_meme_layouts_each_draw_both_texts_over_the_picture() {
    assert!(MemeLayout::ALL.len() >= 5);
    for layout in MemeLayout::ALL {
        let meme = Meme {
            layout,
            top: "When the dev leaves".into(),
            bottom: "and the community stays".into(),
        };
        let empty = Meme {
            top: String::new(),
            bottom: String::new(),
            ..meme.clone()
        };
        let with = memes::meme(&brand(), &meme).unwrap();
        let without = memes::meme(&brand(), &empty).unwrap();
        assert!(
            with.text.len() >= 2,
            "{}: both texts drawn",
            layout.as_str()
        );
        let side = memes::SIDE;
        assert_texts_stand_out(layout.as_str(), &with, &without, (side, side));
    }
}

#[test]
fn a_long_text_is_wrapped_and_shrunk_to_fit_its_box() {
    let area = Rect::new(20, 20, 600, 200);
    let mut canvas = Canvas::new(640, 240, Rgba::rgb(0, 0, 0));
    let style = TextStyle::bold(Rgba::rgb(255, 255, 255), 100.0).outlined(Rgba::rgb(0, 0, 0));
    let long = "Nobody believed in the frog when the chart went flat, but the holders kept \
                holding and now the whole timeline is green again";
    let fitted = text::draw(&mut canvas, area, long, &style).unwrap();
    assert!(fitted.fits, "{fitted:?}");
    assert!(fitted.lines.len() >= 3, "wrapped: {:?}", fitted.lines);
    assert!(fitted.size < 100.0, "shrunk from 100 px to {}", fitted.size);
    assert!(fitted.widest <= area.width as f32);
    let ink = fitted.ink.unwrap();
    assert!(
        ink.x >= area.x && ink.x + ink.width <= area.x + area.width,
        "{ink:?}"
    );
    assert!(
        ink.y >= area.y && ink.y + ink.height <= area.y + area.height,
        "{ink:?}"
    );
    let font = text::font(text::Weight::Bold).unwrap();
    let joined = fitted.lines.join(" ");
    assert_eq!(
        joined,
        long.split_whitespace().collect::<Vec<_>>().join(" ")
    );
    for line in &fitted.lines {
        assert!(text::line_width(&font, fitted.size, line) <= area.width as f32);
    }
    let short = text::draw(&mut canvas, area, "GM", &style).unwrap();
    assert_eq!(short.lines, ["GM"]);
    assert_eq!(short.size, 100.0, "a short text keeps the largest size");
}

#[test]
fn a_bad_hex_colour_in_the_palette_is_refused_naming_it() {
    let bad = Brand::new("X", "X", "", &["#101820", "#F2AA4G", "#3DDC97", "#FFF"], "");
    match bad {
        Err(BrandError::Palette(PaletteError::BadHex { index, value })) => {
            assert_eq!((index, value.as_str()), (1, "#F2AA4G"));
        }
        other => panic!("expected a bad hex error, got {other:?}"),
    }
    let error = Brand::new("X", "X", "", &["#101820", "teal", "#3DDC97", "#FFFFFF"], "")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("`teal`") && error.contains("#RRGGBB"),
        "{error}"
    );
    let three = Brand::new("X", "X", "", &["#101820", "#F2AA4C", "#3DDC97"], "").unwrap_err();
    assert!(matches!(
        three,
        BrandError::Palette(PaletteError::WrongCount(3))
    ));
}

#[test]
fn the_preview_sheet_shows_the_banner_the_profile_picture_and_a_meme() {
    let sample = Meme {
        layout: MemeLayout::Classic,
        top: "GM".into(),
        bottom: "WAGMI".into(),
    };
    let sheet = preview_sheet(&brand(), &sample).unwrap();
    let (w, h, pixels) = decode(&sheet.png().unwrap());
    assert_eq!((w, h), SHEET);
    let banner = Template::Banner.render(&brand()).unwrap();
    let banner_pixel = banner.image.pixel(10, 250).unwrap();
    let i = ((290 * w + 60) * 4) as usize;
    assert_eq!(
        &pixels[i..i + 4],
        &banner_pixel.0,
        "the banner sits at (50, 40)"
    );
}
