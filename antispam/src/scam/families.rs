//! The scam families: which combinations of concepts and bait make a
//! message one scam or another. A family names a scam, not a phrase, so
//! each asks for the idea of the scam (its concepts) and for the way out
//! it offers (an account, a link, a phone number, "write to me", "the
//! link below").

use super::{Bait, Concept, Found};
use crate::verdict::Rule;

/// The families a message belongs to, each with why.
pub(super) fn families(found: &Found, bait: &Bait) -> Vec<(Rule, String)> {
    use Concept::*;
    let has = |c| found.has(c);
    let quote = |c| format!("\"{}\"", found.term(c));
    let first = |concepts: &[Concept]| {
        concepts
            .iter()
            .find(|c| found.has(**c))
            .map_or_else(String::new, |c| quote(*c))
    };
    // Private contact: an account, a phone, an e-mail, "write to me", or
    // another messenger ("per WhatsApp").
    let contact = bait.contact() || has(GoPrivate) || has(OffPlatform);
    // Any way out of the group: contact, a foreign link, "the link below".
    let reach = contact || bait.link.is_some() || has(Pointer);
    // The same, a messenger aside: naming WhatsApp is no way out of itself.
    let reach_besides = bait.contact() || has(GoPrivate) || bait.link.is_some() || has(Pointer);
    // What a lure (money, a bot, a job, a loan, a date) needs besides: any
    // way out, a social network to continue on ("on Instagram"), or the
    // offer put as a question ("who wants it?").
    let lure_reach = reach || has(Social) || has(Invite);
    let mut out = Vec::new();
    let mut add = |rule, why: String| out.push((rule, why));
    // Staff named next to an account is talk ("the devs, @dev, said…")
    // unless it offers help: going private, or a problem to fix.
    let helps = has(Problem) || has(Repair);
    let offered = has(GoPrivate)
        || has(OffPlatform)
        || (bait.contact() && helps)
        || (bait.link.is_some() && helps);
    if has(Staff) && offered {
        add(
            Rule::FakeSupport,
            format!("{} offering help in private or at a link", quote(Staff)),
        );
    }
    // "Verify your seed phrase" for the support, the airdrop, a locked
    // balance or a prize: nothing legitimate ever checks it.
    let demanded = has(Verify)
        && (has(Staff)
            || has(OfficialEvent)
            || has(Threat)
            || has(Giveaway)
            || has(Bonus)
            || has(Unlock));
    // Handing the secret over is the scam when something asks for it (a
    // check, a fix, a threat, staff, a reward, a problem); a member
    // importing their own phrase into a new wallet is not.
    let asked = has(Verify)
        || has(Repair)
        || has(Threat)
        || has(Unlock)
        || has(Staff)
        || has(OfficialEvent)
        || has(Giveaway)
        || has(Bonus)
        || has(Problem)
        || has(Recover);
    if has(Secret) && ((has(HandOver) && asked) || has(GoPrivate) || bait.any() || demanded) {
        add(Rule::SeedPhrase, format!("asks for the {}", quote(Secret)));
    }
    // "Your wallet is flagged, check it at this link": a threat, a link,
    // and something to do there.
    let threatened = has(Threat)
        && (bait.link.is_some() || bait.contact() || has(GoPrivate))
        && (has(Verify) || has(HandOver));
    if has(Wallet)
        && ((has(Repair)
            && (bait.link.is_some() || contact || (has(Threat) && (has(Pointer) || has(Secret)))))
            || threatened)
    {
        add(
            Rule::WalletDrainer,
            format!("{} your {}", quote(Repair), quote(Wallet)),
        );
    }
    let multiplied = has(MoreBack) && has(HandOver) && has(Receive);
    if (has(Double) && has(HandOver)) || multiplied || (has(Giveaway) && (has(HandOver) || reach)) {
        add(
            Rule::Giveaway,
            format!(
                "{} for what you send or at a link",
                first(&[Double, Giveaway, MoreBack])
            ),
        );
    }
    if has(Recover) && has(Loss) && reach {
        add(
            Rule::FundRecovery,
            format!("{} what was {}", quote(Recover), quote(Loss)),
        );
    }
    if (has(OffPlatform) && reach_besides) || bait.phone.is_some() {
        add(Rule::OffPlatform, "contact moved off Telegram".to_owned());
    }
    if (has(Presale) || has(Bonus)) && reach {
        add(
            Rule::PresaleOffer,
            format!("{} by private contact or a link", first(&[Presale, Bonus])),
        );
    }
    if has(OfficialEvent) && bait.link.is_some() {
        add(
            Rule::FakeEvent,
            format!("{} at a link", quote(OfficialEvent)),
        );
    }
    // Talk of gains ("x100 from here?", "thanks to X I made 2x") is no
    // offer: pumps and testimonials need a way out, returns and bots a
    // way out or a voucher ("100% legit").
    // Thanks to the team or the community are a member's.
    let praise = has(Credit) && !has(OurSide);
    let testimonial = praise && has(Gain);
    let vouched = praise || has(Reassure);
    // A bot is an offer when it makes money ("3 % a day", "+240 %").
    let bot_earns = has(Bot) && (has(Gain) || has(Money) || has(Reassure) || praise);
    let promised = has(Returns) || bot_earns;
    // A stranger's "we met at …" with an opportunity, and money named
    // with a gain behind "write to me", are the same offer.
    let opener =
        (has(WeMet) || has(WrongNumber)) && (has(Opportunity) || has(Returns) || has(Invest));
    let paid_privately = has(GoPrivate) && has(Gain) && (has(Pay) || has(Money) || has(Invite));
    if (promised && (lure_reach || vouched))
        || ((testimonial || has(Pump) || has(Opportunity)) && lure_reach)
        || opener
        || paid_privately
    {
        add(
            Rule::Investment,
            format!(
                "{} by private contact or a link",
                first(&[Returns, Pump, Bot, Opportunity, Credit, Pay])
            ),
        );
    }
    if has(Job) && has(Pay) && lure_reach {
        add(
            Rule::JobOffer,
            format!("{} paid {}", quote(Job), quote(Pay)),
        );
    }
    // Adult content and dates sold for crypto, and a casino's bonus or
    // code worth an amount ("300 % bonus, code MOON"), need no other way
    // out: the payment or the code is the bait.
    let dating = has(Girls) && has(Dating);
    let adult_paid = (has(Adult) || dating) && (lure_reach || has(Pay));
    let casino_bonus = has(Casino) && (has(Bonus) || has(Code)) && has(Money);
    if adult_paid || casino_bonus || (has(Gambling) && reach) {
        add(
            Rule::AdultOrGambling,
            format!("{} promoted", first(&[Adult, Casino, Gambling, Girls])),
        );
    }
    // A loan in crypto, "no KYC", by private contact.
    if has(Loan) && (has(Pay) || has(Reassure) || has(Fee) || has(Money)) && lure_reach {
        add(
            Rule::LoanOffer,
            format!("{} offered by private contact", quote(Loan)),
        );
    }
    // Accounts, channels and followers bought or sold; cash for crypto
    // at the best rate; bank cards rented out.
    let accounts = has(Sell) && has(Goods) && (lure_reach || has(Pay));
    let cash = has(Cash) && has(Rate) && lure_reach;
    let mules = has(Mule) && (has(Pay) || has(Money)) && lure_reach;
    if accounts || cash || mules {
        let what = if accounts {
            format!("{} {}", quote(Sell), quote(Goods))
        } else {
            first(&[Cash, Mule])
        };
        add(Rule::PrivateDeal, format!("{what} by private contact"));
    }
    // "Everyone in this group, sign up here" with no link written out:
    // the link hides behind the words.
    let hidden_link = has(GroupAddress) && has(Pointer) && bait.link.is_none();
    if (has(Hype) && reach && !found.is_protective()) || hidden_link {
        add(
            Rule::HypedOffer,
            format!(
                "{} with a way out of the group",
                first(&[Hype, GroupAddress])
            ),
        );
    }
    // "We can list your token for a reduced fee": nothing a real
    // exchange or auditor sells in a group's chat.
    if found.sells_a_service() {
        add(
            Rule::PaidService,
            format!("{} offered for a {}", quote(Service), quote(Fee)),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::ScamRules;
    use crate::normalize::normalize;
    use crate::verdict::Verdict;

    fn rules_of(text: &str) -> Vec<&'static str> {
        let mut verdict = Verdict::default();
        ScamRules::new()
            .unwrap()
            .judge(&normalize(text), &[], false, &mut verdict);
        verdict.rules()
    }

    #[test]
    fn each_new_family_fires_in_several_languages() {
        let table: &[(&str, &str)] = &[
            ("Remote job paid 50 USDT per day, DM me", "job_offer"),
            (
                "Удалённая подработка, 50 USDT в день, пишите в лс",
                "job_offer",
            ),
            (
                "Casino with 100 free spins, link in my bio",
                "adult_or_gambling",
            ),
            (
                "Apuestas deportivas, regístrate en apuesta.net",
                "adult_or_gambling",
            ),
            ("Limited time offer, only today, click here", "hyped_offer"),
            ("Oferta limitada, não perca, link na bio", "hyped_offer"),
            (
                "Grâce à Mme Durand j'ai gagné 5000 €, écrivez-lui",
                "investment",
            ),
            (
                "Mein Trading-Bot macht 3 % täglich, schreib mir",
                "investment",
            ),
            (
                "Çalınan kriptolarınızı geri alıyoruz, özelden yazın",
                "fund_recovery",
            ),
            (
                "Our helpdesk fixes stuck transfers: bridge-help.support",
                "fake_support",
            ),
        ];
        for (text, rule) in table {
            assert!(
                rules_of(text).contains(rule),
                "{text}: {:?}",
                rules_of(text)
            );
        }
    }

    #[test]
    fn holdout3_misses_are_caught_as_families_in_other_words() {
        let table: &[(&str, &str)] = &[
            (
                "Para validar tu cuenta y desbloquear el airdrop mándame tus 12 palabras",
                "seed_phrase",
            ),
            (
                "Zur Bestätigung des Airdrops brauchen wir deinen privaten Schlüssel, ins Formular eintragen",
                "seed_phrase",
            ),
            (
                "Krypto an Betrüger verloren? Wir holen dein Geld zurück: hilfe@krypto-retter.de",
                "fund_recovery",
            ),
            (
                "Nur noch wenige Plätze im Presale, wer mitmachen will meldet sich bei mir",
                "presale_offer",
            ),
            (
                "Il reste des places en prévente, envoyez moi un message",
                "presale_offer",
            ),
            (
                "Chicas cerca de ti buscan citas esta noche, pago con cripto 👉 citas.club",
                "adult_or_gambling",
            ),
            (
                "Ищем сотрудников на удалёнку, оплата 100 USDT в день, пишите @hr_olga",
                "job_offer",
            ),
            (
                "Celebramos 1M de holders: manda 0.05 ETH al pool y recibe 0.15 ETH de vuelta",
                "giveaway",
            ),
            (
                "Gestohlene Kryptowährung zurückholen, kostenlose Erstberatung per WhatsApp",
                "fund_recovery",
            ),
        ];
        for (text, rule) in table {
            assert!(
                rules_of(text).contains(rule),
                "{text}: {:?}",
                rules_of(text)
            );
        }
    }

    #[test]
    fn holdout4_families_are_caught_in_other_words() {
        let table: &[(&str, &str)] = &[
            (
                "Hallo Admins, wir können euren Token listen, die Gebühr ist diesen Monat reduziert",
                "paid_service",
            ),
            (
                "Merhaba, tokeninizi listeleyebiliriz, listeleme ücreti indirimli, kime yazabilirim?",
                "paid_service",
            ),
            (
                "Para desbloquear el staking hay que verificar la billetera, ingresa tus 24 palabras",
                "seed_phrase",
            ),
            (
                "Achtung: zum Entsperren die Wallet verifizieren und die 24 Wörter eintragen",
                "seed_phrase",
            ),
            (
                "Je fais partie de l'équipe, un souci de retrait ? écrivez-moi en privé",
                "fake_support",
            ),
            (
                "Arbitraj botumla her gün %3 kazanıyorum, kurulum isteyen özelden yazsın",
                "investment",
            ),
            (
                "Um die Auszahlung freizuschalten, bestätige deine Wallet mit deiner Seed-Phrase",
                "seed_phrase",
            ),
            (
                "Привет админ, наша биржа может залистить ваш токен, стоимость обсуждается",
                "paid_service",
            ),
        ];
        for (text, rule) in table {
            assert!(
                rules_of(text).contains(rule),
                "{text}: {:?}",
                rules_of(text)
            );
        }
    }

    #[test]
    fn holdout5_families_are_caught_in_other_words() {
        let table: &[(&str, &str)] = &[
            (
                "Mein Sniper-Bot hat +280 % gemacht, wer ihn haben will, schreibt mir",
                "investment",
            ),
            (
                "Mon robot d'arbitrage fait 2 % par jour, qui veut le lien en mp ?",
                "investment",
            ),
            (
                "Garotas solteiras da sua cidade, pagamento em cripto, veja meu perfil",
                "adult_or_gambling",
            ),
            (
                "Krypto-Casino: 400 % Willkommensbonus und 150 Freispiele, Code BTC400",
                "adult_or_gambling",
            ),
            (
                "Heimarbeit am Handy, 90 € pro Tag in USDT, keine Erfahrung nötig, schreibt mir privat",
                "job_offer",
            ),
            (
                "Murat Hoca sayesinde 2 bin dolarımı 18 bine çıkardı, Instagram: @murathoca.kripto",
                "investment",
            ),
            (
                "Gracias a mi mentora pasé de 500 a 7.000 USDT, escríbanle",
                "investment",
            ),
            (
                "Займ в криптовалюте без проверок, до 10000 USDT, пишите в лс",
                "loan_offer",
            ),
            (
                "Vendo cuentas de Telegram y canales con 30k seguidores, pago en cripto, DM",
                "private_deal",
            ),
            (
                "I can bring 10k real holders and trending to your token, message me for prices",
                "paid_service",
            ),
            (
                "Sorry, wrong number. By the way, do you invest in crypto? I have a great opportunity",
                "investment",
            ),
            (
                "Your wallet was flagged, verify it within 24 hours, contact @wallet_guard",
                "wallet_drainer",
            ),
            ("Want to earn crypto from your phone? DM me", "investment"),
        ];
        for (text, rule) in table {
            assert!(
                rules_of(text).contains(rule),
                "{text}: {:?}",
                rules_of(text)
            );
        }
    }

    #[test]
    fn members_bots_sales_loans_and_warnings_naming_an_account_fire_nothing() {
        for text in [
            "MEV bots sandwiched my swap, set slippage lower next time",
            "I'm selling my old Ledger Nano S because I upgraded, anyone in Lyon?",
            "A loan against my BTC on Aave made more sense than selling, the rate is 4 %",
            "My portfolio grew from 2k to 5k this cycle, mostly thanks to holding",
            "Beware of @fake_support_desk, it asks for your seed phrase, report it to the admins",
            "Someone named @crypto_anna_fx keeps promising 5 % a day in DMs, scammer, report and block",
            "Achtung: Die Admins schreiben niemals zuerst. Wer nach der Seed-Phrase fragt, ist ein Betrüger. Mehr: https://support.metamask.io",
            "Who wants to help translate the docs? Write here in the chat",
            "Hi, is this about the blockchain conference? We met at the booth, great talk",
            "The casino spammer from yesterday got banned, thanks mods",
        ] {
            assert!(rules_of(text).is_empty(), "{text}: {:?}", rules_of(text));
        }
    }

    #[test]
    fn listing_warnings_seed_warnings_and_team_answers_in_the_group_fire_nothing() {
        for text in [
            "Vorsicht vor angeblichen Listing-Agenturen, die eine Gebühr verlangen, das ist Betrug",
            "Does anyone know what the listing fee on a mid-tier exchange usually costs?",
            "Gebt niemals eure 24 Wörter ein, auch nicht zum Entsperren des Stakings",
            "Soy del equipo, las dudas técnicas se responden aquí en el grupo, nunca por privado",
            "Arbitraj botları çoğu zaman komisyondan sonra zarar ettiriyor",
            "Someone asked me for my seed phrase to \"verify\" my wallet, I told him to get lost",
            "The admin confirmed the listing fee was paid from the marketing wallet",
        ] {
            assert!(rules_of(text).is_empty(), "{text}: {:?}", rules_of(text));
        }
    }

    #[test]
    fn price_jokes_warnings_and_talk_beside_an_account_fire_nothing() {
        for text in [
            "x100 from here? I'd be happy with a 3x honestly 😂",
            "Se fizer 20x eu compro um carro, mas sendo realista fico feliz com 2x kkk",
            "Those send 1 ETH get 2 back giveaways are always a scam",
            "Ojo con los sorteos que piden enviar cripto para recibir el doble, eso siempre es timo",
            "Les concours où il faut envoyer des cryptos pour recevoir le double, c'est une arnaque",
            "Quem pede chave privada pra validar carteira no privado é golpe",
            "Presale-Angebote per PN sind immer Betrug, meldet solche Leute",
            "Раздачи, где надо отправить крипту и получить вдвое больше, это развод",
            "Çekilişte önce kripto gönder diyorlarsa dolandırıcılıktır",
            "It's important to keep your seed phrase offline, on paper",
            "The devs are waiting for the audit, should be done in a week according to @ProjectDev",
            "Transformei minha carteira quente em fria depois do susto, recomendo a todos",
            "Does anyone have a single place to see all the vesting dates? docs.example.org",
            "Someone asked me to continue on WhatsApp, I said no, stay in the group",
            "Bought at 0.5 USDT, now 0.8 USDT, sending half to my Ledger and I'll receive the rest later",
        ] {
            assert!(rules_of(text).is_empty(), "{text}: {:?}", rules_of(text));
        }
    }

    #[test]
    fn warnings_questions_and_talk_about_messengers_fire_nothing() {
        for text in [
            "Hat noch jemand eine Privatnachricht vom angeblichen Support bekommen? Das ist Betrug",
            "ну добавили фичу в вотсап ну и что",
            "Never trust anyone promising x100 in private, admins never DM first",
            "Is the casino ad in the other group a scam?",
        ] {
            assert!(rules_of(text).is_empty(), "{text}: {:?}", rules_of(text));
        }
    }
}
