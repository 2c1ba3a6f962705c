//! Photos and media groups.

#[allow(clippy::wildcard_imports)]
use super::*;

impl World {
    pub(super) fn photo_sizes(&mut self) -> Value {
        let serial = self.next_serial();
        json!([
            {"file_id": format!("AgACAgQAAxkBAAI{serial}s"), "file_unique_id": format!("AQAD{serial}s"),
             "width": 90, "height": 90, "file_size": 1_024},
            {"file_id": format!("AgACAgQAAxkBAAI{serial}m"), "file_unique_id": format!("AQAD{serial}m"),
             "width": 800, "height": 800, "file_size": 65_536},
        ])
    }

    pub(super) fn send_photo(
        &mut self,
        params: &Map<String, Value>,
        files: &[UploadedFile],
    ) -> Answer {
        let (chat_id, chat) = self.chat(params)?;
        let uploaded = files.iter().find(|file| file.field == "photo");
        if params.get("photo").is_none_or(Value::is_null) && uploaded.is_none() {
            return Err(bad("there is no photo in the request"));
        }
        check_photos(uploaded.into_iter())?;
        let caption = visible_text(params, "caption");
        if utf16_len(&caption) > MAX_CAPTION {
            return Err(bad("message caption is too long"));
        }
        let mut content = self.common_content(chat_id, params)?;
        content.insert("photo".to_owned(), self.photo_sizes());
        if !caption.is_empty() {
            content.insert("caption".to_owned(), json!(caption));
        }
        Ok(self.bot_message(chat_id, &chat, content))
    }

    /// `setChatPhoto`: a group's or channel's photo, uploaded (Telegram
    /// takes no URL nor file id here), by an administrator that may change
    /// the chat's info.
    pub(super) fn set_chat_photo(
        &mut self,
        params: &Map<String, Value>,
        files: &[UploadedFile],
    ) -> Answer {
        let (chat_id, chat) = self.chat(params)?;
        if chat["type"] == "private" {
            return Err(bad("method is available only for supergroups and channel"));
        }
        // The part is named "photo", or as the parameter's "attach://<name>" says.
        let attached = params
            .get("photo")
            .and_then(Value::as_str)
            .and_then(|value| value.strip_prefix("attach://"));
        let Some(uploaded) = files
            .iter()
            .find(|file| file.field == "photo" || Some(file.field.as_str()) == attached)
        else {
            return Err(bad("photo should be uploaded as an InputFile"));
        };
        check_photos(std::iter::once(uploaded))?;
        self.require(
            chat_id,
            Right::ChangeInfo,
            "not enough rights to change chat photo",
        )?;
        self.chat_photos.insert(chat_id, uploaded.bytes.clone());
        Ok(json!(true))
    }

    pub(super) fn send_media_group(
        &mut self,
        params: &Map<String, Value>,
        files: &[UploadedFile],
    ) -> Answer {
        let (chat_id, chat) = self.chat(params)?;
        let media = params
            .get("media")
            .and_then(Value::as_array)
            .cloned()
            .ok_or_else(|| bad("parameter \"media\" is required"))?;
        if !(2..=10).contains(&media.len()) {
            return Err(bad("media group must include 2-10 items"));
        }
        let photos: Vec<&str> = media
            .iter()
            .filter(|item| item["type"].as_str().unwrap_or("photo") == "photo")
            .filter_map(|item| item["media"].as_str()?.strip_prefix("attach://"))
            .collect();
        check_photos(files.iter().filter(|f| photos.contains(&f.field.as_str())))?;
        for item in &media {
            if let Some(name) = item["media"]
                .as_str()
                .and_then(|m| m.strip_prefix("attach://"))
                && !files.iter().any(|file| file.field == name)
            {
                return Err(bad("can't parse InputMedia: media not found"));
            }
            if utf16_len(&visible_text(
                item.as_object().unwrap_or(&Map::new()),
                "caption",
            )) > MAX_CAPTION
            {
                return Err(bad("message caption is too long"));
            }
        }
        let common = self.common_content(chat_id, params)?;
        let group = format!("{}", 13_000_000_000_000_000_u64 + self.next_serial());
        let mut sent = Vec::new();
        for item in &media {
            let mut content = common.clone();
            content.remove("reply_markup");
            content.insert("media_group_id".to_owned(), json!(group));
            let serial = self.next_serial();
            match item["type"].as_str().unwrap_or("photo") {
                "photo" => {
                    content.insert("photo".to_owned(), self.photo_sizes());
                }
                "video" => {
                    content.insert(
                        "video".to_owned(),
                        json!({"file_id": format!("BAACAgQAAxkBAAI{serial}"), "file_unique_id": format!("AgAD{serial}"),
                               "width": 640, "height": 360, "duration": 1}),
                    );
                }
                kind => {
                    content.insert(
                        kind.to_owned(),
                        json!({"file_id": format!("BQACAgQAAxkBAAI{serial}"), "file_unique_id": format!("AgAD{serial}")}),
                    );
                }
            }
            let caption = visible_text(item.as_object().unwrap_or(&Map::new()), "caption");
            if !caption.is_empty() {
                content.insert("caption".to_owned(), json!(caption));
            }
            sent.push(self.bot_message(chat_id, &chat, content));
        }
        Ok(Value::Array(sent))
    }
}

/// Telegram refuses an uploaded photo over 10 MB.
fn check_photos<'a>(files: impl Iterator<Item = &'a UploadedFile>) -> Result<(), Refusal> {
    for file in files {
        if file.bytes.len() > MAX_PHOTO {
            return Err(bad("file is too big"));
        }
    }
    Ok(())
}

/// Telegram downloads media given by URL before sending it: a URL it
/// cannot fetch (refused, unreachable, not a success) fails the send.
pub(super) async fn unreachable_media(params: &Map<String, Value>) -> Option<Refusal> {
    let mut urls: Vec<String> = ["photo", "document", "video", "animation"]
        .iter()
        .filter_map(|field| params.get(*field).and_then(Value::as_str))
        .map(str::to_owned)
        .collect();
    urls.extend(
        params
            .get("media")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|item| item["media"].as_str().map(str::to_owned)),
    );
    urls.retain(|url| url.starts_with("http://") || url.starts_with("https://"));
    if urls.is_empty() {
        return None;
    }
    // reqwest is built without a default TLS provider: ours is ring.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(3))
        .build()
        .ok()?;
    for url in &urls {
        let fetched = client.get(url).send().await;
        if !fetched.is_ok_and(|answer| answer.status().is_success()) {
            return Some(bad("failed to get HTTP URL content"));
        }
    }
    None
}
