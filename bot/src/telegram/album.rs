//! Albums: images by URL and made images (the brand kit's files, sent as
//! uploads), in as many `sendMediaGroup` calls as Telegram's 2–10 items
//! per group require; a single image goes as a photo. The caption rides on
//! the first image of the first group.

use std::ops::Range;
use std::path::PathBuf;

use teloxide::prelude::*;
use teloxide::types::{InputFile, InputMedia, InputMediaPhoto};
use ulias_core::domain::OperationId;
use ulias_core::store::{Store, StoreError};

use super::TgBot;
use super::edge::{MAX_CAPTION, clip_to};

/// Telegram's most items in one media group.
const MAX_GROUP: usize = 10;

/// One image of an album.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AlbumItem {
    /// Telegram fetches it.
    Url(url::Url),
    /// We upload it.
    File(PathBuf),
}

/// An album that cannot be put together.
#[derive(Debug, thiserror::Error)]
pub enum AlbumError {
    /// An asset of another operation: an output cannot send someone else's.
    #[error("asset #{0} belongs to another operation")]
    OtherOperation(i64),
    /// The asset's file is gone.
    #[error("asset #{id}'s file {path} is missing")]
    Missing { id: i64, path: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The album's items: the URLs (those that parse), then the assets' files,
/// each checked to belong to `operation` and to exist.
pub async fn items(
    store: &Store,
    operation: Option<OperationId>,
    urls: &[String],
    assets: &[i64],
) -> Result<Vec<AlbumItem>, AlbumError> {
    let mut items: Vec<AlbumItem> = urls
        .iter()
        .filter_map(|u| u.parse().ok())
        .map(AlbumItem::Url)
        .collect();
    for &id in assets {
        let file = store.asset_file(id).await?;
        if file.operation_id.is_some() && file.operation_id != operation {
            return Err(AlbumError::OtherOperation(id));
        }
        if !tokio::fs::try_exists(&file.path).await.unwrap_or(false) {
            return Err(AlbumError::Missing {
                id,
                path: file.path,
            });
        }
        items.push(AlbumItem::File(PathBuf::from(file.path)));
    }
    Ok(items)
}

/// How `count` items split into groups Telegram takes: as few groups as
/// possible, sizes within one of each other, so none is left with a
/// single item (`11` → 6 + 5).
pub fn groups(count: usize) -> Vec<Range<usize>> {
    if count == 0 {
        return Vec::new();
    }
    let n = count.div_ceil(MAX_GROUP);
    let (base, extra) = (count / n, count % n);
    let mut start = 0;
    (0..n)
        .map(|i| {
            let len = base + usize::from(i < extra);
            let range = start..start + len;
            start += len;
            range
        })
        .collect()
}

/// Sends one group (its caption on the first item, if any); a lone item
/// goes as a photo. The messages Telegram made.
pub async fn send_group(
    bot: &TgBot,
    chat: ChatId,
    items: &[AlbumItem],
    caption: Option<&str>,
) -> Result<Vec<Message>, teloxide::RequestError> {
    let caption = caption
        .filter(|c| !c.is_empty())
        .map(|c| clip_to(c, MAX_CAPTION));
    let file = |item: &AlbumItem| match item {
        AlbumItem::Url(url) => InputFile::url(url.clone()),
        AlbumItem::File(path) => InputFile::file(path.clone()),
    };
    if let [only] = items {
        let mut photo = bot.send_photo(chat, file(only));
        if let Some(caption) = caption {
            photo = photo.caption(caption);
        }
        return Ok(vec![photo.await?]);
    }
    let media = items.iter().enumerate().map(|(index, item)| {
        let photo = InputMediaPhoto::new(file(item));
        InputMedia::Photo(match (index, &caption) {
            (0, Some(caption)) => photo.caption(caption.clone()),
            _ => photo,
        })
    });
    bot.send_media_group(chat, media).await
}

/// Sends the whole album, group after group; the first message.
pub async fn send(
    bot: &TgBot,
    chat: ChatId,
    items: &[AlbumItem],
    caption: &str,
) -> Result<Option<Message>, teloxide::RequestError> {
    let mut first = None;
    for (index, range) in groups(items.len()).into_iter().enumerate() {
        let caption = (index == 0).then_some(caption);
        let sent = send_group(bot, chat, &items[range], caption).await?;
        if first.is_none() {
            first = sent.into_iter().next();
        }
    }
    Ok(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_album_splits_into_groups_telegram_accepts() {
        let sizes = |n: usize| groups(n).iter().map(|r| r.len()).collect::<Vec<_>>();
        assert_eq!(sizes(0), Vec::<usize>::new());
        assert_eq!(sizes(1), [1]);
        assert_eq!(sizes(3), [3]);
        assert_eq!(sizes(10), [10]);
        assert_eq!(sizes(11), [6, 5]);
        assert_eq!(sizes(27), [9, 9, 9]);
        assert_eq!(sizes(31), [8, 8, 8, 7]);
        for n in 2..=60 {
            let split = groups(n);
            assert_eq!(split.iter().map(|r| r.len()).sum::<usize>(), n);
            assert!(split.iter().all(|r| (2..=10).contains(&r.len())), "{n}");
            assert_eq!(split.last().unwrap().end, n);
        }
    }
}
