//! What a public output says, typed: the one value the team's preview shows
//! and the publisher sends, so the team approves exactly what goes out, the
//! whole of it. A validation's payload carries it under `content`, written
//! when the validation is created (from a publish tool's arguments, checked
//! against their schema, or from a step's output); [`Content::of`] is the
//! one reader, for the preview and the publishers alike.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use ulias_core::domain::{PublicationTarget, ValidationKind};

use crate::schemas::{BrandDirections, BrandKit, FaqAnswer, PostDraft, SiteDraft, UtilityPlan};

/// The payload field the typed content lives in.
pub const CONTENT: &str = "content";

/// A public output, by kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Content {
    /// One post (X or Telegram), with its images (asset ids, at most 4)
    /// and the post it answers (an X mention).
    Post {
        text: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<i64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reply_to: Option<String>,
    },
    /// Posts sent in order, each replying to the one before.
    Thread { parts: Vec<String> },
    /// A message pinned in the group.
    Pinned { text: String },
    /// A native poll.
    Poll {
        question: String,
        options: Vec<String>,
    },
    /// Images sent together, with a caption: images by URL, and made
    /// images (asset ids: the brand's previews or its kit), sent as files.
    Album {
        images: Vec<String>,
        caption: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        assets: Vec<i64>,
    },
    /// An account's profile.
    Profile(Profile),
    /// A site, from a template and its fields: the bundle `build` of the
    /// operation's site, checked before it was proposed.
    Site {
        template: String,
        fields: Value,
        url: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        build: Option<u32>,
    },
    /// A utility to release.
    Utility { template: String, config: Value },
    /// A document the team acts on by hand.
    Dossier { text: String },
}

/// An account's new profile: texts, and images from the brand kit (asset
/// ids). The "automated" label has no API: the team sets it by hand.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Profile {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub bio: Option<String>,
    /// The profile picture's asset id (400×400).
    #[serde(default)]
    pub picture: Option<i64>,
    /// The banner's asset id (1500×500).
    #[serde(default)]
    pub banner: Option<i64>,
}

/// X's limits on a profile (characters).
const X_PROFILE_NAME: usize = 50;
const X_PROFILE_BIO: usize = 160;
/// X's limits on a poll: 2–4 options of at most 25 characters.
const X_POLL_OPTIONS: usize = 4;
const X_POLL_OPTION_CHARS: usize = 25;

/// Arguments of a publish tool that cannot become content.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ContentError(String);

/// `x_post`, `tg_post`: one post.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PostArgs {
    pub text: String,
    /// Images to attach: asset ids from the brand kit (at most 4).
    #[serde(default)]
    #[schemars(length(max = 4))]
    pub images: Vec<i64>,
    /// The X account to post from, when the operation has several.
    #[serde(default)]
    pub account: Option<String>,
}

/// `x_thread`: a thread, one text per post.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ThreadArgs {
    #[schemars(length(min = 2, max = 25))]
    pub parts: Vec<String>,
    /// The X account to post from, when the operation has several.
    #[serde(default)]
    pub account: Option<String>,
}

/// `poll_create`: a poll.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PollArgs {
    pub question: String,
    #[schemars(length(min = 2, max = 10))]
    pub options: Vec<String>,
}

/// `x_profile_update`: the profile's new texts.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProfileArgs {
    pub name: Option<String>,
    pub bio: Option<String>,
    /// The profile picture: an asset id from the brand kit.
    #[serde(default)]
    pub picture: Option<i64>,
    /// The banner: an asset id from the brand kit.
    #[serde(default)]
    pub banner: Option<i64>,
}

/// `site_publish`'s content: the checked bundle its `run` vetted.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SiteArgs {
    pub template: String,
    pub fields: Value,
    pub url: Option<String>,
    /// The bundle's number among the operation's builds.
    #[serde(default)]
    pub build: Option<u32>,
}

/// `utility_publish`: the utility to release.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UtilityArgs {
    pub template: String,
    pub config: Value,
}

fn read<T: serde::de::DeserializeOwned>(value: &Value) -> Option<T> {
    serde_json::from_value(value.clone()).ok()
}

/// The input schema of a publish tool, from its arguments' type.
pub fn tool_schema(tool: &str) -> Option<Value> {
    let schema = match tool {
        "x_post" | "tg_post" | "tg_group_setup" => schemars::schema_for!(PostArgs),
        "x_thread" => schemars::schema_for!(ThreadArgs),
        "poll_create" => schemars::schema_for!(PollArgs),
        "x_profile_update" => schemars::schema_for!(ProfileArgs),
        "site_publish" => schemars::schema_for!(SiteArgs),
        "utility_publish" => schemars::schema_for!(UtilityArgs),
        _ => return None,
    };
    serde_json::to_value(schema).ok()
}

impl Content {
    /// The content a publish tool's call proposes, its arguments checked.
    pub fn from_tool(tool: &str, kind: ValidationKind, args: &Value) -> Result<Self, ContentError> {
        fn parse<T: serde::de::DeserializeOwned>(
            tool: &str,
            args: &Value,
        ) -> Result<T, ContentError> {
            serde_json::from_value(args.clone())
                .map_err(|e| ContentError(format!("invalid arguments for {tool}: {e}")))
        }
        Ok(match tool {
            "x_thread" => Self::Thread {
                parts: parse::<ThreadArgs>(tool, args)?.parts,
            },
            "poll_create" => {
                let poll: PollArgs = parse(tool, args)?;
                Self::Poll {
                    question: poll.question,
                    options: poll.options,
                }
            }
            "x_profile_update" => {
                let profile: ProfileArgs = parse(tool, args)?;
                Self::Profile(Profile {
                    name: profile.name,
                    bio: profile.bio,
                    picture: profile.picture,
                    banner: profile.banner,
                })
            }
            "site_publish" => {
                let site: SiteArgs = parse(tool, args)?;
                Self::Site {
                    template: site.template,
                    fields: site.fields,
                    url: site.url,
                    build: site.build,
                }
            }
            "utility_publish" => {
                let utility: UtilityArgs = parse(tool, args)?;
                Self::Utility {
                    template: utility.template,
                    config: utility.config,
                }
            }
            _ if kind == ValidationKind::Pinned => Self::Pinned {
                text: parse::<PostArgs>(tool, args)?.text,
            },
            _ => {
                let post: PostArgs = parse(tool, args)?;
                Self::Post {
                    text: post.text,
                    images: post.images,
                    reply_to: None,
                }
            }
        })
    }

    /// The content a step's output proposes (its schema decides the kind).
    pub fn from_output(kind: ValidationKind, output: &Value) -> Self {
        match kind {
            ValidationKind::Thread | ValidationKind::Post => match read::<PostDraft>(output) {
                Some(PostDraft { parts, .. }) if kind == ValidationKind::Thread => {
                    Self::Thread { parts }
                }
                Some(PostDraft { parts, .. }) => Self::Post {
                    text: parts.join("\n\n"),
                    images: Vec::new(),
                    reply_to: None,
                },
                None => Self::dossier(output),
            },
            ValidationKind::Pinned => match read::<FaqAnswer>(output) {
                Some(answer) => Self::Pinned {
                    text: answer.answer,
                },
                None => Self::dossier(output),
            },
            ValidationKind::Album => {
                if let Some(directions) = read::<BrandDirections>(output) {
                    return Self::Album {
                        images: Vec::new(),
                        caption: directions
                            .directions
                            .iter()
                            .map(|d| format!("{} — {}", d.name, d.palette.join(" ")))
                            .collect::<Vec<_>>()
                            .join("\n"),
                        assets: directions.directions.iter().map(|d| d.preview).collect(),
                    };
                }
                match read::<BrandKit>(output) {
                    Some(kit) => Self::Album {
                        images: Vec::new(),
                        caption: kit.direction,
                        assets: kit.assets,
                    },
                    None => Self::dossier(output),
                }
            }
            ValidationKind::Site => match read::<SiteDraft>(output) {
                Some(site) => Self::Site {
                    template: site.template,
                    fields: site.fields,
                    url: None,
                    build: site.build,
                },
                None => Self::dossier(output),
            },
            ValidationKind::Utility => match read::<UtilityPlan>(output) {
                Some(plan) => Self::Utility {
                    template: plan.template,
                    config: plan.config,
                },
                None => Self::dossier(output),
            },
            ValidationKind::Poll | ValidationKind::Profile | ValidationKind::Dossier => {
                Self::dossier(output)
            }
        }
    }

    fn dossier(output: &Value) -> Self {
        let text = serde_json::to_string_pretty(output).unwrap_or_else(|_| output.to_string());
        Self::Dossier { text }
    }

    /// The content a validation's or a publication's payload carries. A
    /// payload written before contents were typed is read from its tool's
    /// arguments or step's output, as it was then.
    pub fn of(kind: ValidationKind, payload: &Value) -> Result<Self, ContentError> {
        if let Some(content) = payload.get(CONTENT) {
            return serde_json::from_value(content.clone())
                .map_err(|e| ContentError(format!("stored content does not read: {e}")));
        }
        match (
            payload.get("tool").and_then(Value::as_str),
            payload.get("args"),
        ) {
            (Some(tool), Some(args)) => Self::from_tool(tool, kind, args),
            (None, Some(args)) => Self::from_args(kind, args),
            _ => Ok(Self::from_output(
                kind,
                payload.get("output").unwrap_or(payload),
            )),
        }
    }

    /// Arguments named by the validation's kind alone (no tool recorded).
    fn from_args(kind: ValidationKind, args: &Value) -> Result<Self, ContentError> {
        let tool = match kind {
            ValidationKind::Thread => "x_thread",
            ValidationKind::Poll => "poll_create",
            ValidationKind::Profile => "x_profile_update",
            ValidationKind::Site => "site_publish",
            ValidationKind::Utility => "utility_publish",
            ValidationKind::Album => {
                #[derive(Deserialize)]
                struct AlbumArgs {
                    images: Vec<String>,
                    #[serde(default)]
                    caption: String,
                }
                let album: AlbumArgs = serde_json::from_value(args.clone())
                    .map_err(|e| ContentError(format!("invalid album: {e}")))?;
                return Ok(Self::Album {
                    images: album.images,
                    caption: album.caption,
                    assets: Vec::new(),
                });
            }
            ValidationKind::Post | ValidationKind::Pinned | ValidationKind::Dossier => "tg_post",
        };
        Self::from_tool(tool, kind, args)
    }

    /// The payload of a validation: its origin, and the content.
    pub fn payload(&self, origin: Value) -> Value {
        let mut payload = match origin {
            Value::Object(fields) => Value::Object(fields),
            other => json!({"origin": other}),
        };
        if let Value::Object(fields) = &mut payload {
            fields.insert(CONTENT.to_owned(), json!(self));
        }
        payload
    }

    /// Whether it is a new post on the account's timeline (what the
    /// one-post-per-interval rule counts): threads and profiles are not.
    pub fn is_post(&self) -> bool {
        matches!(self, Self::Post { .. } | Self::Poll { .. })
    }

    /// The post it answers, if any.
    pub fn reply_to(&self) -> Option<&str> {
        match self {
            Self::Post { reply_to, .. } => reply_to.as_deref(),
            _ => None,
        }
    }

    /// The asset ids of the images it carries.
    pub fn images(&self) -> &[i64] {
        match self {
            Self::Post { images, .. } => images,
            Self::Album { assets, .. } => assets,
            _ => &[],
        }
    }

    /// Whether `target` takes it as it is: on X, each post within 280
    /// weighted characters (a URL counts 23, emoji and CJK count 2), a poll
    /// of 2–4 options of at most 25 characters, a profile's name and bio
    /// within 50 and 160. Checked when the validation is created, so the
    /// team never approves what the platform would refuse.
    pub fn check_for(&self, target: PublicationTarget) -> Result<(), ContentError> {
        if target != PublicationTarget::X {
            return Ok(());
        }
        match self {
            Self::Poll { options, .. } => {
                if options.len() > X_POLL_OPTIONS {
                    return Err(ContentError(format!(
                        "an X poll has at most {X_POLL_OPTIONS} options, not {}",
                        options.len()
                    )));
                }
                if let Some(long) = options
                    .iter()
                    .find(|o| o.chars().count() > X_POLL_OPTION_CHARS)
                {
                    return Err(ContentError(format!(
                        "X poll options are at most {X_POLL_OPTION_CHARS} characters: \"{long}\""
                    )));
                }
            }
            Self::Profile(profile) => {
                let over = |text: &Option<String>, max: usize| {
                    text.as_ref().is_some_and(|t| t.chars().count() > max)
                };
                if over(&profile.name, X_PROFILE_NAME) || over(&profile.bio, X_PROFILE_BIO) {
                    return Err(ContentError(format!(
                        "an X profile's name is at most {X_PROFILE_NAME} characters and its bio {X_PROFILE_BIO}"
                    )));
                }
                return Ok(());
            }
            _ => {}
        }
        for (index, text) in self.messages().iter().enumerate() {
            let weight = crate::x_text::weighted_length(text);
            if weight > crate::x_text::MAX_WEIGHT {
                return Err(ContentError(format!(
                    "post {} weighs {weight} on X (at most {}; a URL counts 23, emoji and CJK count 2): shorten it",
                    index + 1,
                    crate::x_text::MAX_WEIGHT
                )));
            }
        }
        Ok(())
    }

    /// The texts sent one message each: a thread's parts, else the one text.
    pub fn messages(&self) -> Vec<String> {
        match self {
            Self::Thread { parts } => parts.clone(),
            Self::Post { text, .. } | Self::Pinned { text } | Self::Dossier { text } => {
                vec![text.clone()]
            }
            Self::Album { caption, .. } => vec![caption.clone()],
            Self::Poll { question, .. } => vec![question.clone()],
            Self::Profile(profile) => [&profile.name, &profile.bio]
                .into_iter()
                .flatten()
                .cloned()
                .collect(),
            Self::Site { url, template, .. } => {
                vec![url.clone().unwrap_or_else(|| template.clone())]
            }
            Self::Utility { template, .. } => vec![template.clone()],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_publish_tool_proposes_typed_content_and_refuses_other_arguments() {
        let thread = Content::from_tool(
            "x_thread",
            ValidationKind::Thread,
            &json!({"parts": ["We are back.", "Here is why."]}),
        );
        assert_eq!(
            thread,
            Ok(Content::Thread {
                parts: vec!["We are back.".into(), "Here is why.".into()]
            })
        );
        let wrong = Content::from_tool("x_post", ValidationKind::Post, &json!({"body": "hi"}));
        assert!(
            wrong
                .unwrap_err()
                .0
                .contains("invalid arguments for x_post")
        );
        assert!(tool_schema("x_post").is_some_and(|s| s["required"] == json!(["text"])));
    }

    #[test]
    fn the_stored_content_is_what_is_read_back_for_preview_and_send() {
        let content = Content::Poll {
            question: "Which direction?".into(),
            options: vec!["A".into(), "B".into(), "C".into()],
        };
        let payload = content.payload(json!({"tool": "poll_create", "args": {"x": 1}}));
        assert_eq!(Content::of(ValidationKind::Poll, &payload), Ok(content));
    }

    #[test]
    fn the_designers_outputs_become_albums_of_their_images() {
        let direction = |name: &str, preview: i64| {
            json!({"name": name, "palette": ["#000000", "#111111", "#222222", "#FFFFFF"],
                   "mood": "calm", "logo_prompt": "circle", "preview": preview})
        };
        let directions = json!({"directions": [direction("A", 4), direction("B", 5), direction("C", 6)],
                                "confidence": 0.9});
        let Content::Album {
            assets, caption, ..
        } = Content::from_output(ValidationKind::Album, &directions)
        else {
            panic!("directions are an album");
        };
        assert_eq!(assets, [4, 5, 6], "the three preview sheets");
        assert!(caption.starts_with("A — #000000"), "{caption}");
        let kit = json!({"direction": "A", "assets": [7, 8, 9], "confidence": 0.9});
        let album = Content::from_output(ValidationKind::Album, &kit);
        assert_eq!(album.images(), [7, 8, 9]);
    }

    #[test]
    fn a_step_output_becomes_its_kinds_content() {
        let draft = json!({"kind": "thread", "parts": ["one", "two", "three"], "confidence": 0.9});
        assert_eq!(
            Content::from_output(ValidationKind::Thread, &draft).messages(),
            ["one", "two", "three"]
        );
        let legacy = json!({"step": "cm.comeback_thread", "output": draft});
        assert_eq!(
            Content::of(ValidationKind::Thread, &legacy)
                .unwrap()
                .messages()
                .len(),
            3,
            "a payload from before typed contents reads as it did"
        );
    }
}
