//! Bait: what a scam sends people to.

use crate::content::{host_of, is_link, is_wrapping};
use crate::normalize::{skeleton_of, unleet};

/// Digits a phone number has, at least and at most (E.164).
const PHONE_DIGITS: std::ops::RangeInclusive<usize> = 8..=15;

/// Where a message sends its readers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bait {
    /// A link outside the group's allowed domains: its host.
    pub link: Option<String>,
    /// An account (`@name`), not an e-mail.
    pub account: Option<String>,
    /// A phone number in international form.
    pub phone: Option<String>,
    pub email: bool,
    /// Every foreign link goes to a wallet's, an explorer's or an
    /// exchange's own site (or a subdomain of it), not to a lookalike.
    pub well_known: bool,
    /// A foreign link whose host wears a name it does not own: an
    /// exchange's or a wallet's ("binance-tr-listing.com") or the group's
    /// own ("example-airdrop.io" beside example.org). The name.
    pub posing_as: Option<String>,
    /// The only account is the message's first word: someone replied to
    /// ("@anna is the claim page down?", "@anna same problem, clearing
    /// the cache fixed it"), not a contact offered.
    pub addressee: bool,
}

/// Sites a warning points to ("more at support.metamask.io"): wallets,
/// explorers, trackers, large exchanges, code hosting, fraud reporting.
const WELL_KNOWN: &[&str] = &[
    "metamask.io",
    "ledger.com",
    "trezor.io",
    "trustwallet.com",
    "phantom.app",
    "ethereum.org",
    "bitcoin.org",
    "etherscan.io",
    "bscscan.com",
    "polygonscan.com",
    "arbiscan.io",
    "basescan.org",
    "solscan.io",
    "tonscan.org",
    "tronscan.org",
    "coingecko.com",
    "coinmarketcap.com",
    "binance.com",
    "coinbase.com",
    "kraken.com",
    "github.com",
    "revoke.cash",
    "chainabuse.com",
    "ic3.gov",
    // Where a project's news and votes are read.
    "medium.com",
    "snapshot.org",
    "twitter.com",
    "x.com",
    "youtube.com",
    "youtu.be",
    "reddit.com",
    "wikipedia.org",
    "dexscreener.com",
    "dextools.io",
    "defillama.com",
    "debank.com",
    "tradingview.com",
    "uniswap.org",
    "pancakeswap.finance",
];

impl Bait {
    /// The bait in a lowercased message.
    pub fn of(text: &str, allowed_domains: &[String]) -> Self {
        let mut bait = Self::default();
        // A link or an address written so that no filter reads it
        // ("site[.]app", "d a p p - f i x (punkt) org", "t . me / name",
        // "name[at]proton[dot]me") is bait all the same.
        // The text unmasked holds all the plain one does, read as meant.
        if bait.scan(text, allowed_domains) {
            bait = Self::default();
            bait.scan(&unmasked(text), allowed_domains);
        }
        if bait.account.is_none() {
            bait.account = bare_handle(text);
        }
        bait.phone = phone_in(text).or_else(|| local_phone_in(text));
        bait.addressee = bait.account.is_some()
            && text
                .split_whitespace()
                .next()
                .is_some_and(|word| word.starts_with('@'))
            && text.matches('@').count() == 1;
        bait
    }

    /// Reads the bait of `text`, and says whether a link or an address
    /// may hide in it as well (see [`unmasked`]).
    fn scan(&mut self, text: &str, allowed_domains: &[String]) -> bool {
        let bait = self;
        let mut masked = Masked::default();
        for word in text.split_whitespace() {
            // An account or an e-mail has an "@", a link a dot or a
            // scheme: most words have none, and are skipped unread.
            let mut signs = Signs::default();
            for b in word.bytes() {
                signs.at |= b == b'@';
                signs.dot |= b == b'.';
                signs.bracket |= matches!(b, b'(' | b'[' | b'{');
                signs.h |= b == b'h';
                // The second byte of "·" (U+00B7), as in "t·me".
                signs.middle_dot |= b == 0xB7;
            }
            let (marked, dot) = (signs.at || signs.dot, signs.dot);
            masked.read(word, &signs);
            if !marked && !(signs.h && (word.contains("http") || word.contains("hxxp"))) {
                continue;
            }
            let word = word.trim_matches(|c| is_wrapping(c) || matches!(c, '«' | '»' | ':' | ';'));
            // "site[.]net'e gir": a Turkish case ending after the link.
            let word = match word.split_once(['\'', '’']) {
                Some((link, _)) if dot && link.contains('.') => link,
                _ => word,
            };
            if word.starts_with('@') && word.len() > 1 {
                // "@admin please delete": the group's admins are called,
                // nobody is sent anywhere.
                if !is_call_to_admins(word) {
                    bait.account.get_or_insert_with(|| word.to_owned());
                }
            } else if is_email(word) {
                // The group's own address (support@project.org) is no bait.
                let domain = word.rsplit('@').next().unwrap_or_default().to_lowercase();
                let allowed = allowed_domains
                    .iter()
                    .any(|d| domain == *d || domain.ends_with(&format!(".{d}")));
                bait.email |= !allowed;
            } else if is_link(word) {
                let host = host_of(word);
                let allowed = allowed_domains
                    .iter()
                    .any(|d| host == *d || host.ends_with(&format!(".{d}")));
                if !allowed {
                    let first = bait.link.is_none();
                    let well_known = is_well_known(&host);
                    bait.well_known = (first || bait.well_known) && well_known;
                    if !well_known && bait.posing_as.is_none() {
                        bait.posing_as = posing_as(&host, allowed_domains);
                    }
                    bait.link.get_or_insert(host);
                }
            }
        }
        masked.found
    }

    /// Any bait at all.
    pub fn any(&self) -> bool {
        self.link.is_some() || self.contact()
    }

    /// Links only to well-known sites, and no contact: what a warning
    /// may carry ("more at support.metamask.io").
    pub fn only_well_known(&self) -> bool {
        self.well_known && !self.contact()
    }

    /// A way to reach someone: an account, a phone number or an e-mail.
    /// Someone replied to at the start ("@anna same problem here, …") is
    /// not a contact.
    pub fn contact(&self) -> bool {
        (self.account.is_some() && !self.addressee) || self.phone.is_some() || self.email
    }

    /// The bait, said for a verdict.
    pub fn describe(&self) -> Option<String> {
        if let Some(host) = &self.link {
            return Some(format!("a link to {host}"));
        }
        if let Some(account) = &self.account {
            return Some(format!("the account {account}"));
        }
        if let Some(phone) = &self.phone {
            return Some(format!("the phone number {phone}"));
        }
        self.email.then(|| "an e-mail address".to_owned())
    }
}

/// A link to a well-known site: no sign of spam by itself.
pub(crate) fn is_well_known_link(word: &str) -> bool {
    is_link(word) && is_well_known(&host_of(word))
}

/// Names a lookalike site wears: exchanges and wallets people trust,
/// long enough not to be part of an ordinary word.
const BRANDS: &[&str] = &[
    "binance",
    "coinbase",
    "kraken",
    "kucoin",
    "bybit",
    "bitget",
    "metamask",
    "trustwallet",
    "trust-wallet",
    "ledger",
    "trezor",
    "phantom",
    "uniswap",
    "pancakeswap",
    "opensea",
    "etherscan",
    "bscscan",
    "coingecko",
    "coinmarketcap",
    "dexscreener",
    "dextools",
];

/// The name a foreign host wears without owning it: a brand of
/// [`BRANDS`], or the name of one of the group's own domains (its first
/// label, five letters or more: "example" of example.org).
fn posing_as(host: &str, allowed_domains: &[String]) -> Option<String> {
    let own = allowed_domains
        .iter()
        .filter_map(|domain| domain.split('.').next())
        .filter(|name| name.chars().count() >= 5);
    // "examp1e-swap.org", "b1nance": the name read as it looks.
    let (seen, unleet) = (skeleton_of(host), unleet(host));
    let looks_like = |name: &str, skeleton: &str| {
        host.contains(name) || unleet.contains(name) || seen.contains(skeleton)
    };
    brand_skeletons()
        .iter()
        .find(|(name, skeleton)| looks_like(name, skeleton))
        .map(|(name, _)| (*name).to_owned())
        .or_else(|| {
            own.into_iter()
                .find(|name| looks_like(name, &skeleton_of(name)))
                .map(str::to_owned)
        })
}

/// Each of [`BRANDS`] with its skeleton, made once.
fn brand_skeletons() -> &'static [(&'static str, String)] {
    static SKELETONS: std::sync::OnceLock<Vec<(&'static str, String)>> = std::sync::OnceLock::new();
    SKELETONS.get_or_init(|| {
        BRANDS
            .iter()
            .map(|name| (*name, skeleton_of(name)))
            .collect()
    })
}

/// A well-known site or one of its subdomains, not a lookalike
/// ("metamask.io.fix-wallet.com").
fn is_well_known(host: &str) -> bool {
    WELL_KNOWN.iter().any(|domain| {
        host.strip_suffix(domain)
            .is_some_and(|rest| rest.is_empty() || rest.ends_with('.'))
    })
}

/// How a dot or an "@" is written to hide a link or an address: "[.]",
/// "(dot)", "(punkt)", "(точка)", "[at]", "(arroba)", "(собака)".
const MASKS: &[(&str, char)] = &[
    ("[.]", '.'),
    ("(.)", '.'),
    ("{.}", '.'),
    ("[dot]", '.'),
    ("(dot)", '.'),
    ("{dot}", '.'),
    ("[punkt]", '.'),
    ("(punkt)", '.'),
    ("[point]", '.'),
    ("(point)", '.'),
    ("[punto]", '.'),
    ("(punto)", '.'),
    ("[ponto]", '.'),
    ("(ponto)", '.'),
    ("[точка]", '.'),
    ("(точка)", '.'),
    ("[nokta]", '.'),
    ("(nokta)", '.'),
    ("[at]", '@'),
    ("(at)", '@'),
    ("[@]", '@'),
    ("(@)", '@'),
    ("[arroba]", '@'),
    ("(arroba)", '@'),
    ("[собака]", '@'),
    ("(собака)", '@'),
];

/// Dots spelt out as a word, read as a dot only before a top-level domain
/// ("name dot com", "fix punkt org").
const DOT_WORDS: &[&str] = &["dot", "punkt", "point", "punto", "ponto", "точка", "nokta"];

/// Top-level domains a spelt-out or spaced-out link ends in.
const TLDS: &[&str] = &[
    "com", "org", "net", "io", "app", "me", "xyz", "site", "online", "top", "link", "pro", "club",
    "bet", "win", "fun", "shop", "store", "click", "icu", "cfd", "sbs", "lat", "vip", "live",
    "info", "biz", "cc", "co", "ly", "gg", "to", "so", "finance", "network", "ru", "de", "fr",
    "es", "pt", "br", "tr", "uk", "us", "eu",
];

/// The text with masked dots and "@"s written out and spaced-out letters
/// joined: "d a p p - f i x (punkt) org" is "dapp-fix.org", "t . me /
/// name" is "t.me/name". Only for a text [`Masked`] found something in.
fn unmasked(text: &str) -> String {
    let bracketed = text.contains(['(', '[', '{']);
    let letters = has_spaced_letters(text);
    // Spaced-out letters first ("d a p p - f i x"), then masked dots.
    let mut out = if letters {
        join_single_letters(text)
    } else {
        text.to_owned()
    };
    // "t·me/name": a middle dot for the dot.
    if out.contains('·') {
        out = out.replace('·', ".");
    }
    if bracketed {
        for (mask, with) in MASKS {
            if out.contains(mask) {
                out = replace_trimmed(&out, mask, *with);
            }
        }
    }
    // Then dots, slashes and "@"s standing alone, and dots spelt out
    // before a top-level domain.
    let words: Vec<&str> = out.split_whitespace().collect();
    let mut joined = String::with_capacity(out.len());
    let mut attach_next = false;
    for (i, word) in words.iter().enumerate() {
        let next = words.get(i + 1).copied().unwrap_or_default();
        let dot = (*word == "." || DOT_WORDS.contains(word)) && starts_with_tld(next);
        // "t. me/name", "t me / name": Telegram's link, its dot moved or gone.
        let telegram = is_telegram_split(word, next, words.get(i + 2).copied());
        // "revoke-now. net": the space after the dot.
        let spaced_tld = is_spaced_domain(word, next);
        let glue =
            dot || telegram || *word == "@" || (*word == "/" && joined.contains('.')) || spaced_tld;
        // "refund-claim .site": a domain's dot moved to the next word.
        let dotted_tld = word.strip_prefix('.').is_some_and(starts_with_tld);
        let joins_previous = (glue && !telegram && !spaced_tld) || dotted_tld;
        if !attach_next && !joins_previous && !joined.is_empty() {
            joined.push(' ');
        }
        let tld = joined.ends_with('.').then(|| latin_tld(word)).flatten();
        joined.push_str(match (dot, telegram, &tld) {
            (true, _, _) => ".",
            (_, true, _) => "t.",
            (_, _, Some(tld)) => tld,
            _ => word,
        });
        attach_next = glue;
    }
    joined
}

/// What a word's bytes hold, read once: most words hold none of it, and
/// are not searched further.
#[derive(Default)]
struct Signs {
    at: bool,
    dot: bool,
    bracket: bool,
    /// An "h", which "http" and "hxxp" start with.
    h: bool,
    /// A middle dot ("t·me").
    middle_dot: bool,
}

/// Whether a link or an address may hide in a text, read word by word
/// as the bait is: a masked dot or "@", a dot, slash or "@" standing
/// alone, a dot spelt out before a top-level domain, four single
/// characters in a row.
#[derive(Default)]
struct Masked {
    run: u8,
    /// The previous word may be followed by a top-level domain: a dot
    /// spelt out, or a dot standing alone.
    dot_before: bool,
    /// The previous word has a dot ("t.me"), so a slash alone continues it.
    host_before: bool,
    /// The previous word is "t" or "t.", which "me/name" may continue.
    t_before: bool,
    /// The previous word may be a domain cut after its dot ("revoke-now."
    /// before "net").
    domain_cut: bool,
    found: bool,
}

impl Masked {
    fn read(&mut self, word: &str, signs: &Signs) {
        let (dot, bracket) = (signs.dot, signs.bracket);
        if self.found {
            return;
        }
        let slash_after_host = word == "/" && self.host_before;
        let dotted_tld = word.strip_prefix('.').is_some_and(starts_with_tld);
        let telegram = (self.t_before && word.starts_with("me"))
            || (signs.middle_dot && word.contains("t·me"));
        let spaced_tld = self.domain_cut && is_spaced_tld(word);
        if (self.dot_before && starts_with_tld(word))
            || telegram
            || spaced_tld
            || slash_after_host
            || word == "@"
            || dotted_tld
        {
            self.found = true;
            return;
        }
        // "dot", "punkt", "point", "punto", "ponto", "nokta", "точка", ".".
        self.dot_before = word == "."
            || (matches!(word.as_bytes().first(), Some(b'd' | b'p' | b'n' | 0xD1))
                && DOT_WORDS.contains(&word));
        self.host_before = dot;
        self.t_before = matches!(word, "t" | "t.");
        self.domain_cut = is_domain_cut(word);
        self.run = if is_spaced_part(word) {
            self.run + 1
        } else {
            0
        };
        self.found =
            self.run >= 4 || (bracket && MASKS.iter().any(|(mask, _)| word.contains(mask)));
    }
}

/// "revoke-now. net": a hyphenated name, its dot, and a top-level domain
/// alone (an ordinary sentence's end is no domain: "sold. me too").
fn is_spaced_domain(word: &str, next: &str) -> bool {
    is_domain_cut(word) && is_spaced_tld(next)
}

/// A hyphenated name ending in its dot ("revoke-now.").
fn is_domain_cut(word: &str) -> bool {
    word.strip_suffix('.').is_some_and(|name| {
        name.contains('-') && name.chars().all(|c| c.is_alphanumeric() || c == '-')
    })
}

/// One of [`SPACED_TLDS`], punctuation after it aside.
fn is_spaced_tld(word: &str) -> bool {
    SPACED_TLDS.contains(&word.trim_end_matches(|c: char| !c.is_alphanumeric()))
}

/// Top-level domains read after a dot and a space: none of them a word a
/// sentence may start with.
const SPACED_TLDS: &[&str] = &[
    "com", "org", "net", "io", "app", "xyz", "site", "online", "info", "biz", "bet", "finance",
    "ru",
];

/// "@admin", "@admins", "@mods": Telegram's way to call a group's admins.
fn is_call_to_admins(word: &str) -> bool {
    let name = word
        .trim_start_matches('@')
        .trim_end_matches(|c: char| !c.is_alphanumeric());
    ["admin", "admins", "mod", "mods", "moderator", "moderators"]
        .iter()
        .any(|call| name.eq_ignore_ascii_case(call))
}

/// Whether `word` and the words after it are Telegram's link split apart:
/// "t." or "t", then "me/name", or "me" and a slash.
fn is_telegram_split(word: &str, next: &str, after: Option<&str>) -> bool {
    let path = next
        .strip_prefix("me/")
        .is_some_and(|name| !name.is_empty())
        || (next == "me" && after.is_some_and(|word| word.starts_with('/')));
    matches!(word, "t" | "t.") && path
}

/// Every occurrence of `mask` replaced by `with`, the spaces around it gone.
fn replace_trimmed(text: &str, mask: &str, with: char) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(mask) {
        out.push_str(rest[..at].trim_end());
        out.push(with);
        rest = rest[at + mask.len()..].trim_start();
    }
    out.push_str(rest);
    out
}

/// A word of one character, such as a spaced-out link is made of.
fn is_single(word: &str) -> bool {
    // One character is at most four bytes: most words stop here.
    if word.len() > 4 {
        return false;
    }
    let mut chars = word.chars();
    chars
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '-')
        && chars.next().is_none()
}

/// A single character, or a dot or a slash standing alone: what "t . m e
/// / name" is spaced out of.
fn is_spaced_part(word: &str) -> bool {
    is_single(word) || word == "." || word == "/"
}

/// "d a p p", "t . m e": four single characters in a row.
fn has_spaced_letters(text: &str) -> bool {
    let mut run = 0;
    for word in text.split(' ') {
        if is_spaced_part(word) {
            run += 1;
            if run >= 4 {
                return true;
            }
        } else {
            run = 0;
        }
    }
    false
}

/// Runs of four or more single characters joined into one word.
fn join_single_letters(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    // "t . m e / name": a run ending in a slash, a dot or an "@" goes on
    // in the next word.
    let mut attach = false;
    while i < words.len() {
        let run = words[i..].iter().take_while(|w| is_spaced_part(w)).count();
        if !out.is_empty() && !attach {
            out.push(' ');
        }
        attach = false;
        if run >= 4 {
            words[i..i + run].iter().for_each(|w| out.push_str(w));
            attach = out.ends_with(['/', '.', '@']);
            i += run;
        } else {
            out.push_str(words[i]);
            i += 1;
        }
    }
    out
}

/// Words that name an account next ("tg: anna_invest", "её контакт
/// anna_kurator", "o user é anapaula_trader", "signal: thomas.31").
const HANDLE_BEFORE: &[&str] = &[
    "tg",
    "tg:",
    "telegram:",
    "telegram",
    "contact:",
    "contacto:",
    "contato:",
    "kontakt:",
    "контакт",
    "контакт:",
    "тг",
    "тг:",
    "iletişim:",
    "user",
    "user:",
    "username:",
    "usuario:",
    "usuário:",
    "ник:",
    "signal:",
    "discord:",
    "snap:",
    "snapchat:",
    "insta:",
    "instagram:",
    "ig:",
    "wickr:",
    "session:",
];

/// Messengers whose account a message may end with ("… on Discord, add
/// me: tradermax4421").
const MESSENGERS: &[&str] = &[
    "telegram", "discord", "signal", "whatsapp", "wechat", "skype",
];

/// An account written without its "@": after a word that names one (a
/// short word between them allowed: "o user é x"), or as the last word of
/// a message that names a messenger. It must look like a handle (see
/// [`is_handle_shaped`]), as few words do.
fn bare_handle(text: &str) -> Option<String> {
    // Most messages name no account so: they are not read word by word.
    const NAMERS: &[&str] = &[
        "tg",
        "тг",
        "conta",
        "kontakt",
        "контакт",
        "user",
        "ник",
        "signal",
        "discord",
        "telegram",
        "iletişim",
    ];
    if !NAMERS.iter().any(|namer| text.contains(namer)) {
        return None;
    }
    let mut words = text
        .split_whitespace()
        .map(|w| w.trim_end_matches(['.', ',', '!', ')']));
    let (mut two_before, mut before) = ("", words.next()?);
    let mut last = None;
    for word in words {
        if is_handle_shaped(word) {
            let named = HANDLE_BEFORE.contains(&before)
                || (before.chars().count() <= 3 && HANDLE_BEFORE.contains(&two_before));
            if named {
                return Some(format!("@{word}"));
            }
            last = Some(word);
        } else if last.is_some() && word.chars().any(char::is_alphanumeric) {
            last = None;
        }
        (two_before, before) = (before, word);
    }
    let messenger = MESSENGERS.iter().any(|m| text.contains(m));
    last.filter(|_| messenger)
        .map(|handle| format!("@{handle}"))
}

/// 5 to 32 lowercase letters, digits and "_" (a Signal username's ".31"
/// allowed), starting with a letter, with a "_" or a digit.
fn is_handle_shaped(word: &str) -> bool {
    if !(5..=36).contains(&word.len()) || !word.as_bytes()[0].is_ascii_lowercase() {
        return false;
    }
    let name = match word.rsplit_once('.') {
        Some((name, number))
            if !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) =>
        {
            name
        }
        _ => word,
    };
    (5..=32).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        && word.bytes().any(|b| b == b'_' || b.is_ascii_digit())
        && name.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
}

fn starts_with_tld(word: &str) -> bool {
    let end = word
        .bytes()
        .position(|b| !b.is_ascii_alphabetic())
        .unwrap_or(word.len());
    TLDS.contains(&&word[..end]) || latin_tld(word).is_some()
}

/// Top-level domains spelt in Cyrillic after a dot spelt out ("точка
/// орг"), as the Latin ones they stand for.
const CYRILLIC_TLDS: &[(&str, &str)] = &[
    ("ком", "com"),
    ("орг", "org"),
    ("нет", "net"),
    ("ру", "ru"),
    ("ио", "io"),
];

/// The Latin top-level domain a Cyrillic word spells, and what follows it.
fn latin_tld(word: &str) -> Option<String> {
    CYRILLIC_TLDS.iter().find_map(|(cyrillic, latin)| {
        let rest = word.strip_prefix(cyrillic)?;
        (!rest.starts_with(crate::normalize::is_letter)).then(|| format!("{latin}{rest}"))
    })
}

fn is_email(word: &str) -> bool {
    match word.split_once('@') {
        Some((user, domain)) => !user.is_empty() && domain.contains('.') && !domain.contains('@'),
        None => false,
    }
}

/// The first `+` followed by 8 to 15 digits, which may be grouped with
/// spaces, dashes, dots or brackets.
fn phone_in(text: &str) -> Option<String> {
    let mut rest = text;
    while let Some(at) = rest.find('+') {
        let candidate = &rest[at + 1..];
        let mut digits = 0;
        let mut end = 0;
        for (i, c) in candidate.char_indices() {
            if c.is_ascii_digit() {
                digits += 1;
                end = i + 1;
            } else if !" -.()".contains(c) || digits > *PHONE_DIGITS.end() {
                break;
            }
        }
        if PHONE_DIGITS.contains(&digits) {
            return Some(format!("+{}", &candidate[..end]));
        }
        rest = candidate;
    }
    None
}

/// A number in a country's own form: a 0, then 10 to 12 digits in all,
/// grouped with spaces, dashes or brackets ("0800 123 4567", "0170
/// 1234567"); not a price, whose dot or comma breaks the run, nor a part
/// of a word or an address.
fn local_phone_in(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(at) = text[from..].find('0').map(|i| i + from) {
        from = at + 1;
        let glued = at
            .checked_sub(1)
            .and_then(|i| bytes.get(i))
            .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b',' | b'+'));
        // "0800", "06 12": a thousands group ("1 000 000") starts "000".
        if glued || !matches!(bytes.get(at + 1), Some(b'1'..=b'9')) {
            continue;
        }
        let (mut digits, mut end) = (0, at);
        for (i, b) in bytes[at..].iter().enumerate() {
            if b.is_ascii_digit() {
                digits += 1;
                end = at + i + 1;
            } else if !matches!(b, b' ' | b'-' | b'(' | b')') {
                break;
            }
        }
        // Not glued to a word, nor the integer part of "0123456789.5".
        let after = bytes.get(end).copied();
        let decimal = matches!(after, Some(b'.' | b','))
            && bytes.get(end + 1).is_some_and(u8::is_ascii_digit);
        let clean_end = after.is_none_or(|b| !b.is_ascii_alphanumeric()) && !decimal;
        if (10..=12).contains(&digits) && clean_end && introduced(&text[..at]) {
            return Some(text[at..end].to_owned());
        }
    }
    None
}

/// Words that introduce a phone number in a country's own form, looked
/// for just before it: without them "0123 4567 89" is a reference, a
/// date or an order number.
const PHONE_WORDS: &[&str] = &[
    "whatsapp",
    "whats",
    "zap",
    "viber",
    "signal",
    "call",
    "tel",
    "phone",
    "number",
    "mobile",
    "appel",
    "numéro",
    "llama",
    "número",
    "numero",
    "ligue",
    "liga",
    "ruf",
    "nummer",
    "handy",
    "номер",
    "звон",
    "позвон",
    "вотсап",
    "ватсап",
    "numara",
    "ara",
    "us at",
    "snap",
    "insta",
    "ig:",
    "wickr",
    "session:",
];

/// Whether the text just before a number introduces it as a phone.
fn introduced(before: &str) -> bool {
    let start = before.char_indices().rev().nth(24).map_or(0, |(at, _)| at);
    let near = &before[start..];
    PHONE_WORDS.iter().any(|word| near.contains(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phone_numbers_in_international_form_are_bait_and_prices_are_not() {
        assert_eq!(
            phone_in("whatsapp +44 7700 900123 now").as_deref(),
            Some("+44 7700 900123")
        );
        assert_eq!(
            phone_in("call +1 (415) 555-0199").as_deref(),
            Some("+1 (415) 555-0199")
        );
        assert_eq!(phone_in("price +12% today, +3.5 eth"), None);
        assert_eq!(
            local_phone_in("call us at 0800 123 4567 now").as_deref(),
            Some("0800 123 4567")
        );
        assert_eq!(
            local_phone_in("whatsapp: 0170-1234567").as_deref(),
            Some("0170-1234567")
        );
        for text in [
            "bought at 0.000012345678 and sold",
            "0x52908400098527886E0F7030069857D2E4169EE7",
            "supply 1 000 000 000, 0 tax",
            "total supply 1 000 000 000 000 tokens",
            "block 0 1 2 3",
            "the meeting is on 01 02 2024 10 30 in the voice chat",
            "my order 0123 4567 89 never arrived",
        ] {
            assert_eq!(local_phone_in(text), None, "{text}");
        }
    }

    #[test]
    fn accounts_emails_and_foreign_links_are_bait_allowed_domains_are_not() {
        let allowed = ["example.org".to_owned()];
        let bait = Bait::of("read https://docs.example.org or ask @bob", &allowed);
        assert_eq!((bait.link, bait.account.as_deref()), (None, Some("@bob")));
        let bait = Bait::of("write to help@desk.com or https://x.io/a", &allowed);
        assert!(bait.email && bait.account.is_none());
        assert!(!Bait::of("write to support@example.org", &allowed).email);
        assert_eq!(bait.link.as_deref(), Some("x.io"));
        assert!(!Bait::of("the chart looks fine", &allowed).any());
        assert!(Bait::of("more at https://support.metamask.io", &allowed).only_well_known());
        assert!(!Bait::of("see metamask.io.wallet-fix.com", &allowed).only_well_known());
        assert!(!Bait::of("etherscan.io and fix-wallet.io", &allowed).only_well_known());
        assert!(!Bait::of("ledger.com or @ledger_help", &allowed).only_well_known());
    }

    #[test]
    fn a_foreign_host_wearing_a_brand_or_the_group_s_name_poses_as_it() {
        let allowed = vec!["example.org".to_owned()];
        let cases = [
            ("list early: binance-tr-listeleme.com", Some("binance")),
            ("stake at example-staking.io now", Some("example")),
            ("see metamask.io.wallet-fix.com", Some("metamask")),
            ("more at https://support.metamask.io", None),
            ("docs at docs.example.org", None),
            ("claim at claim-drop.xyz", None),
        ];
        for (text, posing) in cases {
            assert_eq!(
                Bait::of(text, &allowed).posing_as.as_deref(),
                posing,
                "{text}"
            );
        }
    }

    #[test]
    fn links_and_addresses_written_to_hide_are_bait() {
        let table = [
            ("fix it at dapp-rectify[.]app/connect", "dapp-rectify.app"),
            (
                "wallet validieren über d a p p - f i x (punkt) org",
                "dapp-fix.org",
            ),
            ("join t . me / free_signals now", "t.me"),
            ("únete t . m e / SenalesPumpES", "t.me"),
            ("entra gratis hoy t. me/SenalesCriptoVIP", "t.me"),
            ("kostenlos beitreten 👉 t me/KryptoSignaleVIP_DE", "t.me"),
            ("garantizado 📈 t me / pumpcripto_latam", "t.me"),
            ("vip zugang, link: t·me/deutschepumpvip", "t.me"),
            (
                "через safe-migrate-token точка орг",
                "safe-migrate-token.org",
            ),
            (
                "auszahlung ➡️ luckyspin-crypto . bet",
                "luckyspin-crypto.bet",
            ),
            (
                "sofort widerrufen auf revoke-tokens-now. net",
                "revoke-tokens-now.net",
            ),
            (
                "cuzdan-dogrula[.]net'e gir, 12 kelimeni yaz",
                "cuzdan-dogrula.net",
            ),
            (
                "testversion: hxxps://ai-trade-bot[.]pro",
                "ai-trade-bot.pro",
            ),
            (
                "validate it here: hxxps://wallet-rectify-node.web.app",
                "wallet-rectify-node.web.app",
            ),
            ("go to walletsync dot io today", "walletsync.io"),
            ("ссылка: sync-wallet (точка) ru", "sync-wallet.ru"),
        ];
        for (text, host) in table {
            assert_eq!(Bait::of(text, &[]).link.as_deref(), Some(host), "{text}");
        }
        assert!(Bait::of("write to recovery[at]proton[dot]me", &[]).email);
        for text in [
            "the point is that polkadot . is fine (really) [imo]",
            "a b c and then 1 / 2 of it",
            "i lost 50 % (about 0.3 eth) on that trade",
            "don't t me about it, let me / us decide",
            "that's the end. net profit was small, i sold. me too",
            "i'm in it long-term. so what, short-term. live with it",
        ] {
            assert!(!Bait::of(text, &[]).any(), "{text}");
        }
    }
}
