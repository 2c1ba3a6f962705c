//! The Designer's tools: `brand_render` (a direction's preview sheet, or
//! the approved direction's whole kit) and `image_generate` (one meme),
//! drawn by [`crate::brand`] and written under the data folder
//! (`operation-<id>/brand/task-<id>-<attempt>/`), each file recorded as an
//! `assets` row. Without a data folder (offline) they refuse.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use ulias_core::store::NewAsset;

use super::{AgentsAllowed, Effect, Tool, ToolContext, ToolError, Toolbox, Typed, TypedTool};
use crate::brand::templates::preview_sheet;
use crate::brand::{Brand, BrandError, Meme, MemeLayout, Rendered, Template, memes};

/// The brand tools, writing under the toolbox's data folder.
pub(super) fn tools(toolbox: &Toolbox) -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(Typed::new(BrandRender(toolbox.data_dir.clone()))),
        Arc::new(Typed::new(ImageGenerate(toolbox.data_dir.clone()))),
    ]
}

const DESIGNER: &[&str] = &["designer"];
/// A kit's fewest and most memes.
const KIT_MEMES: std::ops::RangeInclusive<usize> = 20..=40;

/// A brand direction, as the Designer wrote it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct DirectionArgs {
    pub name: String,
    /// Four colours as #RRGGBB: background, main, accent, text.
    #[schemars(length(min = 4, max = 4))]
    pub palette: Vec<String>,
    #[serde(default)]
    pub mood: String,
    /// Names the logo's shape when it says circle, square, diamond or hexagon.
    #[serde(default)]
    pub logo_prompt: String,
}

/// One meme's texts.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MemeText {
    /// classic, caption_bar, split_panel, quote_card or stamp; left out,
    /// the kit cycles through them.
    #[serde(default)]
    pub layout: Option<MemeLayout>,
    pub top: String,
    #[serde(default)]
    pub bottom: String,
}

/// What `brand_render` draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RenderWhat {
    /// One sheet with the banner, the profile picture and one meme.
    Preview,
    /// Logos 512/256/128, profile picture, X banner, OG image, Telegram
    /// group photo, and the memes.
    Kit,
}

/// Arguments of `brand_render`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BrandRenderArgs {
    pub what: RenderWhat,
    pub direction: DirectionArgs,
    /// The line under the name; left out, the mood's first sentence.
    #[serde(default)]
    pub tagline: Option<String>,
    /// Meme texts: a preview shows the first; a kit needs 20 to 40.
    #[serde(default)]
    pub memes: Vec<MemeText>,
    /// The token's name; left out, the operation's.
    #[serde(default)]
    pub name: Option<String>,
    /// The ticker; left out, the operation's.
    #[serde(default)]
    pub ticker: Option<String>,
}

/// One file made and recorded.
#[derive(Debug, Serialize, JsonSchema)]
pub struct MadeAsset {
    /// The asset id, to cite in outputs and posts.
    pub id: i64,
    /// preview, logo_512, logo_256, logo_128, pfp, banner, og, group_photo, meme or image.
    pub kind: String,
    pub width: u32,
    pub height: u32,
}

/// What `brand_render` and `image_generate` return.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Made {
    /// The preview sheet's asset id (`what: preview`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preview: Option<i64>,
    pub assets: Vec<MadeAsset>,
}

/// Renders a direction's preview sheet, or the approved direction's kit.
pub struct BrandRender(pub Option<PathBuf>);

#[async_trait]
impl TypedTool for BrandRender {
    const NAME: &'static str = "brand_render";
    const DESCRIPTION: &'static str = "Render a brand direction to PNG images, stored as assets. \
        what=preview: one sheet (X banner, profile picture, one meme, palette) for the team and \
        the vote; what=kit (the approved direction): logos 512/256/128, profile picture 400, X \
        banner 1500x500, OG image 1200x630, Telegram group photo 640, and one meme per text \
        (20 to 40 texts).";
    const EFFECT: Effect = Effect::Write;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(DESIGNER);
    type Args = BrandRenderArgs;
    type Output = Made;

    async fn call(&self, ctx: &ToolContext, args: BrandRenderArgs) -> Result<Made, ToolError> {
        let folder = folder(self.0.as_deref(), ctx, Self::NAME)?;
        let brand = brand_of(ctx, &args.direction, args.name, args.ticker, args.tagline).await?;
        let memes = meme_list(&args.memes);
        if args.what == RenderWhat::Kit && !KIT_MEMES.contains(&memes.len()) {
            return Err(ToolError::InvalidArgs {
                tool: Self::NAME,
                message: format!(
                    "a kit has 20 to 40 memes: give that many `memes` texts, not {}",
                    memes.len()
                ),
            });
        }
        let what = args.what;
        let slug = slug(&args.direction.name);
        let images = render_blocking(move || match what {
            RenderWhat::Preview => {
                let sample = memes
                    .into_iter()
                    .next()
                    .unwrap_or_else(|| default_meme(&brand));
                let sheet = preview_sheet(&brand, &sample)?;
                Ok(vec![(
                    "preview".to_owned(),
                    format!("preview-{slug}"),
                    sheet,
                )])
            }
            RenderWhat::Kit => kit(&brand, &memes),
        })
        .await?;
        let assets = store_all(ctx, &folder, images).await?;
        let preview = (what == RenderWhat::Preview)
            .then(|| assets.first().map(|a| a.id))
            .flatten();
        Ok(Made { preview, assets })
    }
}

/// Arguments of `image_generate`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImageArgs {
    pub direction: DirectionArgs,
    pub layout: MemeLayout,
    pub top: String,
    #[serde(default)]
    pub bottom: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub ticker: Option<String>,
}

/// Renders one meme in a direction's colours.
pub struct ImageGenerate(pub Option<PathBuf>);

#[async_trait]
impl TypedTool for ImageGenerate {
    const NAME: &'static str = "image_generate";
    const DESCRIPTION: &'static str = "Render one meme (1080x1080 PNG, stored as an asset) in a \
        direction's colours with its logo: a layout (classic, caption_bar, split_panel, \
        quote_card, stamp) and its top and bottom texts, wrapped to fit.";
    const EFFECT: Effect = Effect::Write;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(DESIGNER);
    type Args = ImageArgs;
    type Output = Made;

    async fn call(&self, ctx: &ToolContext, args: ImageArgs) -> Result<Made, ToolError> {
        let folder = folder(self.0.as_deref(), ctx, Self::NAME)?;
        let brand = brand_of(ctx, &args.direction, args.name, args.ticker, None).await?;
        let made = ctx.store.assets_of_task(ctx.task.id).await?.len() + 1;
        let meme = Meme {
            layout: args.layout,
            top: args.top,
            bottom: args.bottom,
        };
        let file = format!("image-{made:02}-{}", meme.layout.as_str());
        let images = render_blocking(move || {
            Ok(vec![(
                "image".to_owned(),
                file,
                memes::meme(&brand, &meme)?,
            )])
        })
        .await?;
        let assets = store_all(ctx, &folder, images).await?;
        Ok(Made {
            preview: None,
            assets,
        })
    }
}

/// `(asset kind, file stem, image)`.
type Drawn = (String, String, Rendered);

fn kit(brand: &Brand, memes: &[Meme]) -> Result<Vec<Drawn>, BrandError> {
    let mut drawn = Vec::new();
    for template in Template::KIT {
        let kind = template.kind();
        drawn.push((kind.clone(), kind, template.render(brand)?));
    }
    for (i, meme) in memes.iter().enumerate() {
        let stem = format!("meme-{:02}-{}", i + 1, meme.layout.as_str());
        drawn.push(("meme".to_owned(), stem, memes::meme(brand, meme)?));
    }
    Ok(drawn)
}

/// Draws off the async threads (a kit takes a while), then encodes.
async fn render_blocking(
    draw: impl FnOnce() -> Result<Vec<Drawn>, BrandError> + Send + 'static,
) -> Result<Vec<(String, String, Rendered, Vec<u8>)>, ToolError> {
    let done = tokio::task::spawn_blocking(move || {
        draw()?
            .into_iter()
            .map(|(kind, stem, image)| {
                let png = image.png()?;
                Ok((kind, stem, image, png))
            })
            .collect::<Result<Vec<_>, BrandError>>()
    })
    .await
    .map_err(|e| ToolError::Failed(format!("rendering stopped: {e}")))?;
    done.map_err(|e| match e {
        BrandError::Palette(bad) => ToolError::InvalidArgs {
            tool: "brand_render/image_generate",
            message: bad.to_string(),
        },
        other => ToolError::Failed(other.to_string()),
    })
}

/// Writes each image and records it; the rows in order.
async fn store_all(
    ctx: &ToolContext,
    folder: &Path,
    images: Vec<(String, String, Rendered, Vec<u8>)>,
) -> Result<Vec<MadeAsset>, ToolError> {
    tokio::fs::create_dir_all(folder)
        .await
        .map_err(|e| ToolError::Failed(format!("cannot create {}: {e}", folder.display())))?;
    let mut made = Vec::new();
    for (kind, stem, image, png) in images {
        let path = folder.join(format!("{stem}.png"));
        tokio::fs::write(&path, &png)
            .await
            .map_err(|e| ToolError::Failed(format!("cannot write {}: {e}", path.display())))?;
        let (width, height) = (image.image.width(), image.image.height());
        let new = NewAsset {
            operation_id: ctx.task.operation_id,
            task_id: Some(ctx.task.id),
            kind: kind.clone(),
            path: path.display().to_string(),
            mime: "image/png".to_owned(),
            width: Some(width),
            height: Some(height),
            bytes: png.len() as u64,
            sha256: Some(hex(&Sha256::digest(&png))),
        };
        let id = ctx.store.insert_asset(&new, ctx.clock.now()).await?;
        made.push(MadeAsset {
            id,
            kind,
            width,
            height,
        });
    }
    Ok(made)
}

/// This run's folder: `<data_dir>/operation-<id>/brand/task-<id>-<attempt>`.
fn folder(data_dir: Option<&Path>, ctx: &ToolContext, tool: &str) -> Result<PathBuf, ToolError> {
    let data_dir = data_dir.ok_or_else(|| {
        ToolError::Failed(format!(
            "{tool} cannot write images: no data folder is configured (`data_dir`)"
        ))
    })?;
    let operation = ctx.task.operation_id.ok_or_else(|| {
        ToolError::Failed(format!(
            "{tool} makes images for an operation; this task has none"
        ))
    })?;
    Ok(data_dir
        .join(format!("operation-{operation}"))
        .join("brand")
        .join(format!("task-{}-{}", ctx.task.id, ctx.task.attempts)))
}

/// The brand a direction describes, named after the operation's token.
async fn brand_of(
    ctx: &ToolContext,
    direction: &DirectionArgs,
    name: Option<String>,
    ticker: Option<String>,
    tagline: Option<String>,
) -> Result<Brand, ToolError> {
    let operation = match ctx.task.operation_id {
        Some(id) => Some(ctx.store.operation(id).await?),
        None => None,
    };
    let name = name
        .or_else(|| operation.as_ref().map(|o| o.name.clone()))
        .unwrap_or_else(|| direction.name.clone());
    let ticker = ticker
        .or_else(|| operation.and_then(|o| o.token_symbol))
        .unwrap_or_default();
    let tagline = tagline.unwrap_or_else(|| first_sentence(&direction.mood));
    Brand::new(
        &name,
        &ticker,
        &tagline,
        &direction.palette,
        &direction.logo_prompt,
    )
    .map_err(|e| ToolError::InvalidArgs {
        tool: "brand_render/image_generate",
        message: e.to_string(),
    })
}

/// The memes the texts ask for, layouts cycling where none is given.
fn meme_list(texts: &[MemeText]) -> Vec<Meme> {
    let layouts = MemeLayout::ALL;
    texts
        .iter()
        .enumerate()
        .map(|(i, text)| Meme {
            layout: text.layout.unwrap_or(layouts[i % layouts.len()]),
            top: text.top.clone(),
            bottom: text.bottom.clone(),
        })
        .collect()
}

fn default_meme(brand: &Brand) -> Meme {
    Meme {
        layout: MemeLayout::Classic,
        top: "GM".to_owned(),
        bottom: format!("${}", brand.ticker),
    }
}

fn first_sentence(text: &str) -> String {
    let end = text.find(['.', ':', ';', '!']).unwrap_or(text.len());
    text[..end].chars().take(80).collect()
}

fn slug(name: &str) -> String {
    let slug: String = name
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let slug = slug.trim_matches('-').to_owned();
    if slug.is_empty() {
        "direction".to_owned()
    } else {
        slug
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
