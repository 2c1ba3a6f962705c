//! Bait: what a scam sends people to.

use crate::content::{host_of, is_link, is_wrapping};

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
];

impl Bait {
    /// The bait in a lowercased message.
    pub fn of(text: &str, allowed_domains: &[String]) -> Self {
        let mut bait = Self::default();
        for word in text.split_whitespace() {
            // An account or an e-mail has an "@", a link a dot or a
            // scheme: most words have none, and are skipped unread.
            let maybe = word.bytes().any(|b| b == b'@' || b == b'.') || word.contains("http");
            if !maybe {
                continue;
            }
            let word = word.trim_matches(|c| is_wrapping(c) || matches!(c, '«' | '»' | ':' | ';'));
            if word.starts_with('@') && word.len() > 1 {
                bait.account.get_or_insert_with(|| word.to_owned());
            } else if is_email(word) {
                bait.email = true;
            } else if is_link(word) {
                let host = host_of(word);
                let allowed = allowed_domains
                    .iter()
                    .any(|d| host == *d || host.ends_with(&format!(".{d}")));
                if !allowed {
                    let first = bait.link.is_none();
                    bait.well_known = (first || bait.well_known) && is_well_known(&host);
                    bait.link.get_or_insert(host);
                }
            }
        }
        bait.phone = phone_in(text);
        bait
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
    pub fn contact(&self) -> bool {
        self.account.is_some() || self.phone.is_some() || self.email
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

/// A well-known site or one of its subdomains, not a lookalike
/// ("metamask.io.fix-wallet.com").
fn is_well_known(host: &str) -> bool {
    WELL_KNOWN.iter().any(|domain| {
        host.strip_suffix(domain)
            .is_some_and(|rest| rest.is_empty() || rest.ends_with('.'))
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
    }

    #[test]
    fn accounts_emails_and_foreign_links_are_bait_allowed_domains_are_not() {
        let allowed = ["example.org".to_owned()];
        let bait = Bait::of("read https://docs.example.org or ask @bob", &allowed);
        assert_eq!((bait.link, bait.account.as_deref()), (None, Some("@bob")));
        let bait = Bait::of("write to help@desk.com or https://x.io/a", &allowed);
        assert!(bait.email && bait.account.is_none());
        assert_eq!(bait.link.as_deref(), Some("x.io"));
        assert!(!Bait::of("the chart looks fine", &allowed).any());
        assert!(Bait::of("more at https://support.metamask.io", &allowed).only_well_known());
        assert!(!Bait::of("see metamask.io.wallet-fix.com", &allowed).only_well_known());
        assert!(!Bait::of("etherscan.io and fix-wallet.io", &allowed).only_well_known());
        assert!(!Bait::of("ledger.com or @ledger_help", &allowed).only_well_known());
    }
}
