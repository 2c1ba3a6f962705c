//! Pages released into an operation's site by its utilities (a mini-game,
//! a leaderboard): each under `<data_dir>/sites/operation-<id>/utilities/<template>/`,
//! served at `/<template>/` by every build made after its release. Only
//! what a browser reads is served (no build scripts).

use std::path::{Path, PathBuf};

use super::SiteError;

/// The folder of released pages, beside the operation's builds.
const PAGES: &str = "utilities";

/// What a site serves, by extension.
const SERVED: &[&str] = &[
    "html", "htm", "css", "js", "json", "png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "txt",
    "woff2",
];

/// Where a utility's page `template` is released for `operation`.
pub fn page_dir(data_dir: &Path, operation: i64, template: &str) -> PathBuf {
    super::build::operation_dir(data_dir, operation)
        .join(PAGES)
        .join(template)
}

/// The released pages' served files: each path in the site
/// (`web-minigame/index.html`) with the file it is copied from, sorted.
pub(super) fn released(
    data_dir: &Path,
    operation: i64,
) -> Result<Vec<(String, PathBuf)>, SiteError> {
    let root = super::build::operation_dir(data_dir, operation).join(PAGES);
    let mut found = Vec::new();
    let mut pending = vec![root.clone()];
    while let Some(dir) = pending.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(SiteError::io("cannot list", &dir)(e)),
        };
        for entry in entries {
            let entry = entry.map_err(SiteError::io("cannot list", &dir))?;
            let path = entry.path();
            let kind = entry
                .file_type()
                .map_err(SiteError::io("cannot read", &path))?;
            if kind.is_dir() {
                pending.push(path);
            } else if kind.is_file()
                && served(&path)
                && let Some(inside) = relative(&root, &path)
            {
                found.push((inside, path));
            }
        }
    }
    found.sort();
    Ok(found)
}

fn served(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| SERVED.contains(&e.to_ascii_lowercase().as_str()))
}

/// `path` under `root`, with `/` between its parts.
fn relative(root: &Path, path: &Path) -> Option<String> {
    let inside = path.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = inside.iter().map(|part| part.to_str()).collect();
    Some(parts?.join("/"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn released_pages_are_read_without_their_build_scripts() {
        let data = tempfile::tempdir().unwrap();
        let game = page_dir(data.path(), 7, "web-minigame");
        std::fs::create_dir_all(game.join("img")).unwrap();
        std::fs::write(game.join("index.html"), "<p>game</p>").unwrap();
        std::fs::write(game.join("img/token.svg"), "<svg/>").unwrap();
        let board = page_dir(data.path(), 7, "holders-leaderboard");
        std::fs::create_dir_all(&board).unwrap();
        std::fs::write(board.join("index.html"), "<p>board</p>").unwrap();
        std::fs::write(board.join("rank.py"), "print()").unwrap();

        let found: Vec<String> = released(data.path(), 7)
            .unwrap()
            .into_iter()
            .map(|(inside, _)| inside)
            .collect();
        assert_eq!(
            found,
            [
                "holders-leaderboard/index.html",
                "web-minigame/img/token.svg",
                "web-minigame/index.html"
            ]
        );
        assert!(released(data.path(), 8).unwrap().is_empty());
    }
}
