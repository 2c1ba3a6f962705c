//! The X API over HTTP: posts (text, reply, images, poll), media upload,
//! the profile, mentions (100 a page, every page), poll results and the
//! OAuth 2.0 token refresh. Every call takes the account's token for that
//! one request; nothing here stores anything.

use base64::Engine as _;
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use serde_json::{Value, json};
use ulias_core::settings::HttpSettings;
use url::Url;

use super::XError;

/// Mentions asked for per page (X's maximum).
const MENTIONS_PER_PAGE: u32 = 100;
/// Pages read in one look at the mentions: 2,000 mentions. A burst larger
/// than that between two looks is read at the next one.
const MAX_MENTION_PAGES: usize = 20;

/// A mention of an account.
#[derive(Debug, Clone, Deserialize)]
pub struct Mention {
    pub id: String,
    pub text: String,
    #[serde(default)]
    pub author_id: Option<String>,
}

/// A post to create.
#[derive(Debug, Default)]
pub struct NewPost<'a> {
    pub text: &'a str,
    /// The post this one answers (a thread's previous part, a mention).
    pub reply_to: Option<&'a str>,
    /// Media ids from [`XClient::upload_image`] (at most 4).
    pub media_ids: &'a [String],
    /// A poll's options (2–4) and how long it stays open.
    pub poll: Option<(&'a [String], u32)>,
}

/// What a token refresh returns.
#[derive(Debug, Deserialize)]
pub struct Refreshed {
    pub access_token: SecretString,
    /// X rotates refresh tokens: the old one stops working.
    pub refresh_token: SecretString,
    /// Seconds the new access token lasts.
    pub expires_in: i64,
}

/// One option of a poll and its votes.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct PollOption {
    pub position: u32,
    pub label: String,
    pub votes: u64,
}

/// The app's OAuth 2.0 client, for refreshes.
pub struct OAuthClient<'a> {
    pub id: &'a str,
    pub secret: Option<&'a SecretString>,
}

/// The X API.
#[derive(Clone)]
pub struct XClient {
    http: reqwest::Client,
    api: Url,
}

impl XClient {
    pub fn new(api: Url, http: &HttpSettings) -> Result<Self, XError> {
        Ok(Self {
            http: crate::http::client(http)?,
            api,
        })
    }

    /// Creates a post; returns its id.
    pub async fn post(&self, token: &SecretString, post: &NewPost<'_>) -> Result<String, XError> {
        let mut body = json!({"text": post.text});
        if let Some(parent) = post.reply_to {
            body["reply"] = json!({"in_reply_to_tweet_id": parent});
        }
        if !post.media_ids.is_empty() {
            body["media"] = json!({"media_ids": post.media_ids});
        }
        if let Some((options, minutes)) = post.poll {
            body["poll"] = json!({"options": options, "duration_minutes": minutes});
        }
        let response = self
            .http
            .post(self.api.join("2/tweets")?)
            .bearer_auth(token.expose_secret())
            .json(&body)
            .send()
            .await?;
        let answer = checked(response).await?;
        id_in(&answer)
    }

    /// Uploads an image for a post (`POST /2/media/upload`, the bytes
    /// base64-encoded in a JSON body); returns its media id.
    pub async fn upload_image(
        &self,
        token: &SecretString,
        bytes: &[u8],
        mime: &str,
    ) -> Result<String, XError> {
        let body = json!({
            "media": base64::engine::general_purpose::STANDARD.encode(bytes),
            "media_category": "tweet_image",
            "media_type": mime,
        });
        let response = self
            .http
            .post(self.api.join("2/media/upload")?)
            .bearer_auth(token.expose_secret())
            .json(&body)
            .send()
            .await?;
        let answer = checked(response).await?;
        id_in(&answer)
    }

    /// Changes the profile's name and bio (`account/update_profile`).
    pub async fn update_profile(
        &self,
        token: &SecretString,
        name: Option<&str>,
        bio: Option<&str>,
    ) -> Result<(), XError> {
        let body = {
            let mut form = url::form_urlencoded::Serializer::new(String::new());
            if let Some(name) = name {
                form.append_pair("name", name);
            }
            if let Some(bio) = bio {
                form.append_pair("description", bio);
            }
            form.finish()
        };
        self.form(token, "1.1/account/update_profile.json", body)
            .await
    }

    /// Replaces the profile picture (`account/update_profile_image`).
    pub async fn update_profile_image(
        &self,
        token: &SecretString,
        png: &[u8],
    ) -> Result<(), XError> {
        let image = base64::engine::general_purpose::STANDARD.encode(png);
        let form = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("image", &image)
            .finish();
        self.form(token, "1.1/account/update_profile_image.json", form)
            .await
    }

    /// Replaces the profile banner (`account/update_profile_banner`).
    pub async fn update_profile_banner(
        &self,
        token: &SecretString,
        png: &[u8],
    ) -> Result<(), XError> {
        let banner = base64::engine::general_purpose::STANDARD.encode(png);
        let form = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("banner", &banner)
            .finish();
        self.form(token, "1.1/account/update_profile_banner.json", form)
            .await
    }

    async fn form(&self, token: &SecretString, path: &str, body: String) -> Result<(), XError> {
        let response = self
            .http
            .post(self.api.join(path)?)
            .bearer_auth(token.expose_secret())
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await?;
        checked(response).await.map(|_| ())
    }

    /// Every mention of the account newer than `since_id`, oldest first:
    /// 100 a page, following `next_token` (so a burst hides nothing).
    pub async fn mentions(
        &self,
        token: &SecretString,
        user_id: &str,
        since_id: Option<&str>,
    ) -> Result<Vec<Mention>, XError> {
        let mut mentions = Vec::new();
        let mut next: Option<String> = None;
        for _ in 0..MAX_MENTION_PAGES {
            let mut url = self.api.join(&format!("2/users/{user_id}/mentions"))?;
            {
                let mut query = url.query_pairs_mut();
                query.append_pair("max_results", &MENTIONS_PER_PAGE.to_string());
                query.append_pair("tweet.fields", "author_id");
                if let Some(since) = since_id {
                    query.append_pair("since_id", since);
                }
                if let Some(page) = &next {
                    query.append_pair("pagination_token", page);
                }
            }
            let response = self
                .http
                .get(url)
                .bearer_auth(token.expose_secret())
                .send()
                .await?;
            let answer = checked(response).await?;
            let page: Vec<Mention> =
                serde_json::from_value(answer["data"].clone()).unwrap_or_default();
            mentions.extend(page);
            next = answer["meta"]["next_token"].as_str().map(str::to_owned);
            if next.is_none() {
                break;
            }
        }
        // Newest first from X: the oldest must be handled (and recorded) first.
        mentions.sort_by_key(|m| (m.id.len(), m.id.clone()));
        Ok(mentions)
    }

    /// A poll post's options and votes so far.
    pub async fn poll_results(
        &self,
        token: &SecretString,
        post_id: &str,
    ) -> Result<Vec<PollOption>, XError> {
        let mut url = self.api.join(&format!("2/tweets/{post_id}"))?;
        url.query_pairs_mut()
            .append_pair("expansions", "attachments.poll_ids")
            .append_pair("poll.fields", "options,voting_status");
        let response = self
            .http
            .get(url)
            .bearer_auth(token.expose_secret())
            .send()
            .await?;
        let answer = checked(response).await?;
        serde_json::from_value(answer["includes"]["polls"][0]["options"].clone()).map_err(|_| {
            XError::Refused {
                status: 200,
                body: "the post carries no poll".into(),
            }
        })
    }

    /// Trades a refresh token for a new access token (and a new refresh
    /// token: X rotates them).
    pub async fn refresh(
        &self,
        client: &OAuthClient<'_>,
        refresh_token: &SecretString,
    ) -> Result<Refreshed, XError> {
        let form = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("grant_type", "refresh_token")
            .append_pair("refresh_token", refresh_token.expose_secret())
            .append_pair("client_id", client.id)
            .finish();
        let mut request = self
            .http
            .post(self.api.join("2/oauth2/token")?)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form);
        if let Some(secret) = client.secret {
            request = request.basic_auth(client.id, Some(secret.expose_secret()));
        }
        let answer = checked(request.send().await?).await?;
        serde_json::from_value(answer.clone()).map_err(|_| XError::Refused {
            status: 200,
            body: "the token answer lacks access_token, refresh_token or expires_in".into(),
        })
    }
}

fn id_in(answer: &Value) -> Result<String, XError> {
    answer["data"]["id"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| XError::Refused {
            status: 200,
            body: answer.to_string(),
        })
}

async fn checked(response: reqwest::Response) -> Result<Value, XError> {
    let status = response.status();
    let body = response.text().await?;
    if !status.is_success() {
        return Err(XError::Refused {
            status: status.as_u16(),
            body,
        });
    }
    Ok(serde_json::from_str(&body).unwrap_or(Value::Null))
}
