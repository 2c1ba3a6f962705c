//! A small HTML reader for `site_check`: tags must balance (void elements
//! aside, script and style read as raw text), attributes must close their
//! quotes, and the page must have a title. It collects what the check
//! compares: the links, the text of `data-contract` elements, the text.

/// Elements that never have a closing tag.
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr",
];

/// Elements whose content is raw text up to their closing tag.
const RAW: &[&str] = &["script", "style"];

/// What a page shows that the check needs.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Page {
    /// `href` and `src` values, entities decoded.
    pub links: Vec<String>,
    /// The text of each element marked `data-contract`.
    pub contracts: Vec<String>,
    /// The page's visible text and attribute values, for stray addresses.
    pub text: String,
    pub title: Option<String>,
}

/// Why a page does not read as HTML: where, and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct HtmlError {
    pub line: usize,
    pub message: String,
}

/// An element still open, and whether its text is collected.
struct Open {
    name: String,
    contract: Option<String>,
    title: bool,
}

/// Reads `source`.
pub fn parse(source: &str) -> Result<Page, HtmlError> {
    let mut page = Page::default();
    let mut stack: Vec<Open> = Vec::new();
    let mut rest = source;
    let line_of = |rest: &str| source[..source.len() - rest.len()].lines().count().max(1);
    while !rest.is_empty() {
        let Some(start) = rest.find('<') else {
            add_text(&mut page, &mut stack, rest);
            break;
        };
        add_text(&mut page, &mut stack, &rest[..start]);
        rest = &rest[start..];
        let error = |message: String| HtmlError {
            line: line_of(rest),
            message,
        };
        if let Some(comment) = rest.strip_prefix("<!--") {
            let end = comment
                .find("-->")
                .ok_or_else(|| error("a comment is never closed".into()))?;
            rest = &comment[end + 3..];
            continue;
        }
        if rest.starts_with("<!") {
            let end = rest
                .find('>')
                .ok_or_else(|| error("a declaration is never closed".into()))?;
            rest = &rest[end + 1..];
            continue;
        }
        if let Some(closing) = rest.strip_prefix("</") {
            let end = closing
                .find('>')
                .ok_or_else(|| error("a closing tag is never closed".into()))?;
            let name = closing[..end].trim().to_ascii_lowercase();
            match stack.pop() {
                Some(open) if open.name == name => close(&mut page, open),
                Some(open) => {
                    return Err(error(format!(
                        "</{name}> closes <{}>, which is still open",
                        open.name
                    )));
                }
                None => return Err(error(format!("</{name}> closes nothing"))),
            }
            rest = &closing[end + 1..];
            continue;
        }
        let (tag, after) = read_tag(&rest[1..]).map_err(error)?;
        rest = after;
        for (name, value) in &tag.attributes {
            if matches!(name.as_str(), "href" | "src") {
                page.links.push(value.clone());
            }
            page.text.push(' ');
            page.text.push_str(value);
        }
        if VOID.contains(&tag.name.as_str()) || tag.self_closing {
            continue;
        }
        if RAW.contains(&tag.name.as_str()) {
            let end_tag = format!("</{}", tag.name);
            let end = rest
                .to_ascii_lowercase()
                .find(&end_tag)
                .ok_or_else(|| error(format!("<{}> is never closed", tag.name)))?;
            rest = &rest[end..];
            let close = rest
                .find('>')
                .ok_or_else(|| error(format!("</{}> is never closed", tag.name)))?;
            rest = &rest[close + 1..];
            continue;
        }
        let contract = tag
            .attributes
            .iter()
            .any(|(name, _)| name == "data-contract")
            .then(String::new);
        stack.push(Open {
            title: tag.name == "title",
            name: tag.name,
            contract,
        });
    }
    if let Some(open) = stack.last() {
        return Err(HtmlError {
            line: source.lines().count().max(1),
            message: format!("<{}> is never closed", open.name),
        });
    }
    if page.title.as_deref().is_none_or(|t| t.trim().is_empty()) {
        return Err(HtmlError {
            line: 1,
            message: "the page has no <title>".into(),
        });
    }
    Ok(page)
}

fn add_text(page: &mut Page, stack: &mut [Open], text: &str) {
    if text.is_empty() {
        return;
    }
    let text = decode(text);
    page.text.push_str(&text);
    for open in stack.iter_mut() {
        if let Some(contract) = open.contract.as_mut() {
            contract.push_str(&text);
        }
        if open.title {
            page.title.get_or_insert_with(String::new).push_str(&text);
        }
    }
}

fn close(page: &mut Page, open: Open) {
    if let Some(contract) = open.contract {
        page.contracts.push(contract.trim().to_owned());
    }
    if open.title && page.title.is_none() {
        page.title = Some(String::new());
    }
}

struct Tag {
    name: String,
    attributes: Vec<(String, String)>,
    self_closing: bool,
}

/// Reads a start tag after its `<`; returns it and what follows its `>`.
fn read_tag(source: &str) -> Result<(Tag, &str), String> {
    let name_end = source
        .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
        .ok_or("a tag is never closed")?;
    let name = source[..name_end].to_ascii_lowercase();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        return Err(format!("`<{}` is not a tag", &source[..name_end]));
    }
    let mut tag = Tag {
        name,
        attributes: Vec::new(),
        self_closing: false,
    };
    let mut rest = &source[name_end..];
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix("/>") {
            tag.self_closing = true;
            return Ok((tag, after));
        }
        if let Some(after) = rest.strip_prefix('>') {
            return Ok((tag, after));
        }
        if rest.is_empty() {
            return Err(format!("<{}> is never closed", tag.name));
        }
        let end = rest
            .find(|c: char| c.is_whitespace() || matches!(c, '=' | '>' | '/'))
            .unwrap_or(rest.len());
        if end == 0 {
            return Err(format!("a stray `{}` in <{}>", &rest[..1], tag.name));
        }
        let attribute = rest[..end].to_ascii_lowercase();
        rest = rest[end..].trim_start();
        let Some(after) = rest.strip_prefix('=') else {
            tag.attributes.push((attribute, String::new()));
            continue;
        };
        let after = after.trim_start();
        let (value, after) = match after.chars().next() {
            Some(quote @ ('"' | '\'')) => {
                let body = &after[1..];
                let close = body.find(quote).ok_or_else(|| {
                    format!(
                        "the value of `{attribute}` in <{}> never closes its quote",
                        tag.name
                    )
                })?;
                (&body[..close], &body[close + 1..])
            }
            _ => {
                let end = after
                    .find(|c: char| c.is_whitespace() || c == '>')
                    .unwrap_or(after.len());
                (&after[..end], &after[end..])
            }
        };
        tag.attributes.push((attribute, decode(value)));
        rest = after;
    }
}

/// The common entities, decoded (enough for links and addresses).
fn decode(text: &str) -> String {
    if !text.contains('&') {
        return text.to_owned();
    }
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#34;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&#x2f;", "/")
        .replace("&#x2F;", "/")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_balanced_page_gives_its_links_contracts_and_title() {
        let page = parse(
            "<!DOCTYPE html><html><head><title>Hi &amp; all</title><link rel=stylesheet href=\"style.css\"></head>\
             <body><!-- note --><p>Buy <a href='how.html?a=1&amp;b=2'>here</a><br>\
             <code data-contract>0xAB</code></p><script>if (a < b) {}</script></body></html>",
        )
        .unwrap();
        assert_eq!(page.title.as_deref(), Some("Hi & all"));
        assert_eq!(page.links, ["style.css", "how.html?a=1&b=2"]);
        assert_eq!(page.contracts, ["0xAB"]);
    }

    #[test]
    fn an_unbalanced_page_names_the_line_and_the_tag() {
        let error =
            parse("<html><head><title>t</title></head>\n<body><div><p>x</div></body></html>")
                .unwrap_err();
        assert_eq!(error.line, 2);
        assert!(error.message.contains("</div> closes <p>"), "{error}");
        let unclosed = parse("<html><title>t</title><body>").unwrap_err();
        assert!(
            unclosed.message.contains("<body> is never closed"),
            "{unclosed}"
        );
        let quote = parse("<html><title>t</title><a href=\"x>y</a></html>").unwrap_err();
        assert!(quote.message.contains("never closes its quote"), "{quote}");
        let untitled = parse("<html><body></body></html>").unwrap_err();
        assert!(untitled.message.contains("no <title>"), "{untitled}");
    }
}
