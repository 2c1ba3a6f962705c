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
    // "Link in my bio" points at a link as "the link below" does.
    // "I can give you his contact" and "tell him I sent you" hand the way
    // out over.
    let reach = contact
        || bait.link.is_some()
        || has(Pointer)
        || has(MyBio)
        || has(Introduce)
        || has(Referral);
    // The same, a messenger aside: naming WhatsApp is no way out of itself.
    let reach_besides = bait.contact() || has(GoPrivate) || bait.link.is_some() || has(Pointer);
    // What a lure (money, a bot, a job, a loan, a date) needs besides: any
    // way out, a social network to continue on ("on Instagram"), or the
    // offer put as a question ("who wants it?").
    let lure_reach = reach || has(Social) || has(Invite) || has(ByMail);
    // A wallet's, an explorer's or a news site's own page
    // (support.metamask.io) is where help is read, not where fake support,
    // a drainer or a fake event waits; giveaways and pitches still use them
    // (a "live" on youtube.com).
    let strange_link = bait.link.is_some() && !bait.well_known;
    let mut out = Vec::new();
    // A job posted with the operation's own site to apply on, and no
    // contact or other link, is the team's ("apply on example.org, we
    // don't recruit by DM"): no stranger's offer.
    if has(Job) && has(OwnSite) && !bait.contact() && bait.link.is_none() {
        return out;
    }
    let mut add = |rule, why: String| out.push((rule, why));
    // Staff named next to an account is talk ("the devs, @dev, said…")
    // unless it offers help: going private, or a problem to fix.
    let helps = has(Problem) || has(Repair);
    let offered =
        has(GoPrivate) || has(OffPlatform) || (bait.contact() && helps) || (strange_link && helps);
    // "Problems with your wallet? Write me": the same help, unnamed.
    let wallet_help =
        has(Wallet) && has(Problem) && has(GoPrivate) && !has(Never) && !has(Reported);
    // "If anyone has issues with staking or withdrawals, send me a direct
    // message, don't reply here": help for everyone's trouble, in private.
    let trouble_help = has(Problem)
        && has(DmMe)
        && (has(ToAll) || has(Wallet))
        && found.denies_nothing()
        && !has(Reported)
        && !has(Denounce);
    // "Someone offered me X in DM as if I were the admin" reports it.
    let reported = has(Reported) && !bait.contact();
    // "The admin now answers only here 👉 @…": staff moved to an account.
    let moved = has(Staff) && has(OnlyOfficial) && bait.contact();
    if (has(Staff) && offered && !reported) || wallet_help || trouble_help || moved {
        add(
            Rule::FakeSupport,
            format!("{} offering help in private or at a link", quote(Staff)),
        );
    }
    // "Verify your seed phrase" for the support, the airdrop, a locked
    // balance or a prize: nothing legitimate ever checks it.
    // The same when the support or a fix needs it ("the support team
    // needs your 12 words to fix the sync error").
    let demanded = (has(Verify)
        && (has(Staff)
            || has(OfficialEvent)
            || has(Threat)
            || has(Giveaway)
            || has(Bonus)
            || has(Unlock)))
        || found.demands_secret()
        || (has(Staff) && (has(Repair) || has(Problem)) && has(HandOver));
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
    let secret_bait = strange_link || bait.contact();
    if has(Secret) && ((has(HandOver) && asked) || has(GoPrivate) || secret_bait || demanded) {
        add(Rule::SeedPhrase, format!("asks for the {}", quote(Secret)));
    }
    // "Your wallet is flagged, check it at this link": a threat, a link,
    // and something to do there.
    let threatened = has(Threat)
        && (strange_link || bait.contact() || has(GoPrivate))
        && (has(Verify) || has(HandOver));
    // Tokens "not showing" with a fix at a strange link are the same.
    let tokens_fixed = has(Problem) && has(Repair) && strange_link;
    // "Your account will be suspended, verify your identity here: link".
    let account_phished = has(Threat) && has(Verify) && strange_link && !has(Never);
    // A "free tool" that needs the wallet connected and an approval
    // given at a strange link is the drainer itself.
    let tool_drains =
        has(Wallet) && has(HandOver) && (has(Approve) || has(Free)) && strange_link && !has(Never);
    // "A bug in the contract, withdraw your funds at this link before
    // it's too late": the panic is the drainer's bait.
    // An "Achtung" in front changes nothing: a warning says "don't".
    // … or a hack told with "urgently" ("контракт взломан, срочно выведите").
    let panicked =
        has(Withdraw) && (has(Threat) || (has(Urgent) && has(Loss))) && strange_link && !has(Never);
    // "Contract exploited, revoke your approvals here before you're
    // drained": revoking at a strange link is approving the drainer, even
    // under a "WARNING:" (a warning says where not to go).
    let revoked_in_panic = has(Approve)
        && has(Repair)
        && (has(Threat) || has(Urgent) || has(Loss))
        && strange_link
        && !has(Never);
    if (has(Wallet)
        && ((has(Repair)
            && (strange_link
                || contact
                || has(MyBio)
                || (has(Threat) && (has(Pointer) || has(Secret)))))
            || threatened))
        || tokens_fixed
        || tool_drains
        || account_phished
        || revoked_in_panic
    {
        add(
            Rule::WalletDrainer,
            format!("{} your {}", quote(Repair), quote(Wallet)),
        );
    } else if panicked {
        add(
            Rule::WalletDrainer,
            format!("{} at a link: {}", quote(Withdraw), quote(Threat)),
        );
    }
    let multiplied = has(MoreBack) && has(HandOver) && has(Receive);
    // "Send 0.02 ETH to verify your wallet for the airdrop": money sent to
    // be checked.
    let pay_to_verify = has(HandOver) && has(Verify) && has(Money) && !has(Never);
    // A prize that costs a fee to claim ("pay the 20 USDT registration
    // fee to the wallet and receive your prize"): nothing given away asks
    // for money first.
    let prize = has(Giveaway) || has(OfficialEvent) || has(Bonus);
    let claimed = has(HandOver) || has(Wallet) || has(Unlock) || has(Receive);
    let fee_first = prize
        && ((has(Fee) && (has(Money) || has(Pay)) && claimed) || pay_to_verify)
        && !has(Never);
    // "Send 0.1 ETH, get 0.2 back, official giveaway": sending to
    // receive back is the giveaway scam whatever the amounts.
    let sent_back = has(Giveaway) && has(HandOver) && has(Receive) && !has(OwnSite) && !has(Never);
    // Money given to "the first 20" who answer.
    let first_served = (has(Giveaway) && has(Money) && (has(FirstComers) || has(Invite)))
        || (has(HandOver) && has(Money) && has(FirstComers));
    if (has(Double) && has(HandOver))
        || multiplied
        || fee_first
        || first_served
        || sent_back
        // "Share your best meme, the best three win 200 tokens" hands
        // nothing over: a giveaway takes money, a wallet or its secret.
        || (has(Giveaway)
            && (reach || (has(HandOver) && (has(Money) || has(Wallet) || has(Secret)))))
    {
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
    // "OTC: selling 50,000 USDT at a 10 % discount": money for less than
    // its worth is the bait, the contact comes after.
    // A member's old hardware sold at a discount is no OTC deal.
    let sold_cheap = has(Sell)
        && has(Presale)
        && (has(Pay) || has(Money))
        && has(Discount)
        && !has(Never)
        && !has(Reported);
    if ((has(Presale) || has(Bonus)) && reach) || sold_cheap {
        add(
            Rule::PresaleOffer,
            format!("{} by private contact or a link", first(&[Presale, Bonus])),
        );
    }
    // … or lost unless done at once, wherever the link hides ("link in
    // my bio").
    let urged = has(Threat) && (reach || has(Pointer));
    // A migration guide on the project's blog or a vote on snapshot.org
    // is documentation: only a link elsewhere is the event's bait.
    // … or behind an account that asks to connect the wallet ("check
    // your eligibility with @AirdropCheckerBot, connect and see").
    let bot_event = bait.account.is_some() && has(Wallet) && (has(HandOver) || has(Verify));
    // A link wearing an exchange's, a wallet's or the group's own name
    // ("binance-tr-listeleme.com", "example-staking.io") with something to
    // do there (buy before the listing, connect, claim, stake): the
    // lookalike is the bait.
    let something_to_do = [
        HandOver,
        Verify,
        Wallet,
        Listing,
        Presale,
        BuyNow,
        Buy,
        OfficialEvent,
        Giveaway,
        Bonus,
        Receive,
        Double,
        Repair,
        Withdraw,
        Unlock,
        Returns,
        Yield,
    ]
    .iter()
    .any(|c| has(*c));
    if let Some(name) = &bait.posing_as
        && something_to_do
        && !has(Never)
        && !has(Denounce)
        && !has(Reported)
    {
        add(
            Rule::FakeEvent,
            format!("a site wearing the name \"{name}\" it does not own"),
        );
    }
    // "The form is in my bio", "write me, I'll send you the link": the
    // link is one click away.
    // A member who "almost clicked a 'claim' link sent in DM" reports it.
    let link_in_private = has(Pointer) && has(GoPrivate) && !reported;
    if has(OfficialEvent) && (strange_link || urged || bot_event || has(MyBio) || link_in_private) {
        add(
            Rule::FakeEvent,
            format!("{} at a link", quote(OfficialEvent)),
        );
    }
    // Talk of gains ("x100 from here?", "thanks to X I made 2x") is no
    // offer: pumps and testimonials need a way out, returns and bots a
    // way out or a voucher ("100% legit").
    // Thanks to the team or the community are a member's.
    // … unless the one thanked is handed over ("a hocam, isteyen olursa
    // numarasını verebilirim" after praising the community).
    let praise = has(Credit) && (!has(OurSide) || has(Introduce) || has(Referral));
    // "… tell him Juliana sent you": a referral is the funnel.
    // … or "who wants his contact": the mentor handed over.
    let testimonial = praise && (has(Gain) || has(Double) || has(Referral) || has(Introduce));
    let vouched = praise || has(Reassure);
    // A bot is an offer when it makes money ("3 % a day", "+240 %").
    let bot_earns = has(Bot) && (has(Gain) || has(Money) || has(Reassure) || praise);
    // … or is sold, or given "free for the first 30 users".
    let bot_sold = has(Bot) && (has(Sell) || has(Fee) || has(Free)) && lure_reach;
    // Mining that pays each day is returns too.
    let mined = has(Mining) && (has(Money) || has(Pay));
    let promised = has(Returns) || bot_earns || mined;
    // A stranger's "we met at …" with an opportunity, and money named
    // with a gain behind "write to me", are the same offer.
    let opener = found.opens_as_a_stranger();
    // … or "made 3.2k this week, inbox me and I'll show you how": a sum
    // and a lesson in private are the same.
    // A bot "that works great, DM me and I'll explain" is the same.
    let paid_privately = has(GoPrivate)
        && ((has(Gain) && (has(Pay) || has(Money) || has(Invite) || has(AskHow)))
            || ((has(Money) || has(Bot)) && has(AskHow))
            || (has(Money) && has(Invite))
            // "A way to double any token in your wallet, write me and I'll
            // explain".
            || (has(Double) && has(AskHow)));
    // "The listing on Binance is confirmed, buy before the announcement":
    // an insider tip needs no way out, the buying is the bait.
    // … and one with a link for "the details" is the same with a way out.
    let insider_tip =
        has(Listing) && has(BuyNow) && (has(Pump) || reach) && !has(Never) && !has(Denounce);
    // "Big gains this morning, who wants the link?": a gain put as a question.
    let bragged = has(Gain) && has(AskHow) && !has(ProjectTalk) && !has(Never);
    // Returns promised to the whole group with hype ("hi everyone, an
    // exclusive investment plan") are an offer too.
    // … or to the reader ("you get 40 % of the profits each week"), and
    // gains from "the platform" followed by a way out.
    let pitched = (has(GroupAddress) && has(Hype)) || (has(YouGet) && (has(Gain) || has(Money)));
    let platform_paid = has(Opportunity) && has(Gain) && lure_reach;
    if (promised && (lure_reach || vouched || pitched))
        || ((testimonial || has(Pump) || has(Opportunity)) && lure_reach)
        || opener
        || paid_privately
        || platform_paid
        || insider_tip
        || bragged
        || bot_sold
    {
        let pitch = first(&[Returns, Pump, Bot, Opportunity, Credit, Pay]);
        let why = if pitch.is_empty() {
            format!(
                "{} and {}: a stranger's opener",
                first(&[WrongPerson, WrongNumber, WeMet, Endear, NewHere, Befriend]),
                first(&[AboutYou, SawYou, Invest, GoPrivate])
            )
        } else {
            format!("{pitch} by private contact or a link")
        };
        add(Rule::Investment, why);
    }
    // A job paid in crypto "with no experience" is the lure whatever
    // follows.
    // A job that asks only "a phone and two hours a day" is the same.
    let job_lure = has(Pay) || has(SpareTime) || has(Gain);
    // The team's own job posts point to its site; a stranger's to himself.
    let job_reach = if has(OurSide) { contact } else { lure_reach };
    // "A phone and two hours a day, good pay": the ad needs no contact.
    let job_ad = has(SpareTime) && (has(GoodPay) || has(Money));
    // "Just like videos, daily pay in USDT": the task is the ad.
    let task_ad = has(Task) && has(Pay);
    if has(Job) && job_lure && (job_reach || has(Reassure) || job_ad || task_ad) {
        add(
            Rule::JobOffer,
            format!("{} paid {}", quote(Job), quote(Pay)),
        );
    }
    // Adult content and dates sold for crypto, and a casino's bonus or
    // code worth an amount ("300 % bonus, code MOON"), need no other way
    // out: the payment or the code is the bait.
    // … and a stranger's flirt ("handsome, lonely tonight?") with a way
    // out ("check my profile", "write me in private").
    let dating = has(Girls) && has(Dating);
    // "Hot singles near you 💋": the ad is its own bait.
    let singles_ad = dating && has(Adult);
    // "Hallo Schatz, du siehst nett aus, schreib mir": a pet name and
    // "write me" need nothing else.
    // … or "handsome, look at my profile", "canım, whoever wants to chat,
    // see my profile".
    let flirt = found.flirts();
    let shown = has(MyPhotos) && (reach || has(Lonely) || has(Sweet));
    let courted = found.courts();
    let adult_paid = ((has(Adult) || dating) && (lure_reach || has(Pay)))
        || (flirt && lure_reach)
        || shown
        || courted
        || singles_ad;
    let casino_bonus = has(Casino) && (has(Bonus) || has(Code)) && has(Money);
    if adult_paid || casino_bonus || (has(Gambling) && reach) {
        add(
            Rule::AdultOrGambling,
            format!("{} promoted", first(&[Adult, Casino, Gambling, Girls])),
        );
    }
    // A loan in crypto, "no KYC", by private contact.
    // "USDT loans, no checks, approved in 15 minutes": the promise is
    // the ad, as a job's "no experience needed".
    let loan_ad = has(Loan) && has(Reassure) && (has(Pay) || has(Money)) && !has(Never);
    if (has(Loan) && (has(Pay) || has(Reassure) || has(Fee) || has(Money)) && lure_reach) || loan_ad
    {
        add(
            Rule::LoanOffer,
            format!("{} offered by private contact", quote(Loan)),
        );
    }
    // Accounts, channels and followers bought or sold; cash for crypto
    // at the best rate; bank cards rented out.
    // Verified exchange accounts and KYC for sale are the scam whatever
    // the way out.
    // … or offered "for your group" at a price ("10k real members for
    // your group, best prices").
    let traded = ((has(Sell) || has(Buy))
        && has(Goods)
        && (lure_reach || has(Pay) || has(Fee) || has(Money)))
        || (has(Goods)
            && has(WeOffer)
            && (has(Rate) || has(Fee) || has(Money) || has(Pay))
            && lure_reach)
        || (has(Goods) && has(Service) && (has(Money) || has(Fee)) && lure_reach)
        || (has(Goods) && has(Discount) && lure_reach)
        || (has(Goods) && has(Rate) && lure_reach);
    let verified_sold = has(Sell) && (has(KycGoods) || (has(Goods) && has(Verify)));
    let verified_sold = verified_sold
        || (has(KycGoods) && lure_reach)
        || (has(Sell) && has(Locked) && (has(Fee) || lure_reach));
    // Counterfeit tokens ("flash USDT") and mixers offered.
    let counterfeit = has(Counterfeit) && (has(Sell) || lure_reach);
    let laundering = has(Launder) && (has(Fee) || has(WeOffer) || has(Sell)) && lure_reach;
    // Crypto asked for a cause or a stranger's trouble, in private or at
    // a profile.
    let begging = (has(Donate) || has(Plea)) && (has(Pay) || has(Money)) && lure_reach;
    let accounts = (traded || verified_sold || counterfeit || laundering || begging) && !has(Never);
    // "USDT for cash, better than the exchange, DM": the rate is the bait.
    // "Offering USDT for cash at a better rate, discreet": the offer is
    // its own ad.
    let cash = (has(Cash) && (has(Rate) || has(Discount)) && lure_reach)
        || (has(Cash) && has(Rate) && (has(WeOffer) || has(Sell)) && !has(Never) && !has(Reported));
    let mules = has(Mule) && (has(Pay) || has(Money)) && lure_reach;
    if accounts || cash || mules {
        let what = if accounts && (counterfeit || laundering || begging) {
            first(&[Counterfeit, Launder, Donate, Plea])
        } else if accounts {
            format!("{} {}", first(&[Sell, Buy]), first(&[KycGoods, Goods]))
        } else {
            first(&[Cash, Mule])
        };
        add(Rule::PrivateDeal, format!("{what} by private contact"));
    }
    // "Everyone in this group, sign up here" with no link written out:
    // the link hides behind the words.
    // "Drop your questions below 👇" points at the questions.
    // The operation's own site written out is no hidden link.
    let hidden_link = has(GroupAddress)
        && has(Pointer)
        && bait.link.is_none()
        && !has(HereInGroup)
        && !has(OwnSite);
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
    // Posts in "our channel of 60k followers" priced: advertising sold.
    let ads_sold = has(Service) && has(Fee) && has(Goods) && !has(Never);
    if found.sells_a_service() || ads_sold {
        add(
            Rule::PaidService,
            format!("{} offered for a {}", quote(Service), quote(Fee)),
        );
    }
    // Whatever the words, two lures and a private way out: what no family
    // above names is still an offer made in private ("earnings", "bonus",
    // "your funds", a job, a loan … and "write me", an account, a strange
    // link).
    const LURES: &[Concept] = &[
        Gain,
        Returns,
        Money,
        Pay,
        Bonus,
        Giveaway,
        Presale,
        Pump,
        Bot,
        Job,
        Loan,
        Adult,
        Casino,
        Gambling,
        Dating,
        Recover,
        Secret,
        Repair,
        OfficialEvent,
        Service,
        KycGoods,
        Counterfeit,
        Launder,
        Mining,
        Double,
        Opportunity,
        Invest,
        Threat,
        Unlock,
    ];
    // "Check my bio", "me chama no pv": a few words with nothing in them
    // but the way to the writer, and nothing of the group's subject.
    // … or a gain with the bio ("profit is waiting, see my bio").
    let bio_gain = has(MyBio) && (has(Gain) || has(Money) || has(Returns) || has(Pump));
    // "Qq1 peut m'écrire en mp svp c urgent": a hurry to be written to,
    // with no trouble, no staff and nothing of the group's subject named.
    let urgent_dm = has(Urgent) && has(DmMe) && !has(Problem) && !has(Staff);
    if ((has(Brief) && (has(MyBio) || has(GoPrivate))) || bio_gain || urgent_dm)
        && !has(ProjectTalk)
        && !has(Never)
    {
        add(
            Rule::PrivateDeal,
            format!(
                "{} and nothing else: the reader sent to the writer",
                first(&[MyBio, GoPrivate])
            ),
        );
    }
    // "Check your DMs, I sent you something", "je t'ai écrit en privé,
    // réponds": a stranger pulls the reader into the private chat where
    // the offer waits. A member writing to the team names it ("admin, I
    // sent you a DM about my withdrawal"), or the trouble, or the friend
    // it answers ("@marco, sent you the meetup address in DM").
    if has(CheckDms)
        && !bait.addressee
        && !has(Staff)
        && !has(ProjectTalk)
        && !has(Problem)
        && !has(Never)
        && !has(Reported)
    {
        add(
            Rule::PrivateDeal,
            format!(
                "{}: the reader pulled into private messages",
                quote(CheckDms)
            ),
        );
    }
    // "Trading academy, 80 % off today, t.me/…": lessons sold with a
    // discount or a promise, at a way out.
    let course_sold = has(Course)
        && lure_reach
        && (has(Discount)
            || has(Gain)
            || has(Returns)
            || has(Money)
            || has(Fee)
            || has(Hype)
            || has(FirstComers)
            || (has(Free) && strange_link))
        && !has(Never)
        && !has(Reported);
    if course_sold {
        add(
            Rule::Investment,
            format!("{} sold by private contact or a link", quote(Course)),
        );
    }
    let lures = LURES.iter().filter(|c| has(**c)).count();
    let private_way_out = bait.contact() || has(GoPrivate) || has(OffPlatform) || strange_link;
    if out.is_empty() && lures >= 3 && private_way_out && !has(Never) && !has(Reported) {
        let named: Vec<String> = LURES
            .iter()
            .filter(|c| has(**c))
            .take(3)
            .map(|c| quote(*c))
            .collect();
        out.push((
            Rule::HypedOffer,
            format!("{} offered in private", named.join(", ")),
        ));
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
    fn holdout6_families_are_caught_in_other_words() {
        let table: &[(&str, &str)] = &[
            (
                "Tokens gone? Sync the wallet at wallet-help [.] xyz and they come back",
                "wallet_drainer",
            ),
            (
                "Wallet leer? Einfach synchronisieren: s y n c - f i x (punkt) io",
                "wallet_drainer",
            ),
            (
                "Sorteio de 500 USDT! Para receber o prêmio pague antes a taxa de 10 USDT na carteira",
                "giveaway",
            ),
            (
                "Cette fois le listing sur Kraken est sûr, j'ai l'info de l'intérieur, achetez maintenant",
                "investment",
            ),
            (
                "Hi handsome, so bored tonight, write me in private",
                "adult_or_gambling",
            ),
            (
                "Продаю старые аккаунты Telegram и верифицированные аккаунты бирж",
                "private_deal",
            ),
            (
                "Destek ekibinin hatayı düzeltmek için kurtarma ifadenize ihtiyacı var, sadece özelden gönderin",
                "seed_phrase",
            ),
            (
                "Wir machen Marketing für Kryptoprojekte, Preise per PN",
                "paid_service",
            ),
            (
                "Oi querida, acho que errei a conversa, você também investe em cripto?",
                "investment",
            ),
            (
                "Un hacker éthique a récupéré mes 3 ETH volés, écrivez-lui : aide[at]proton[point]me",
                "fund_recovery",
            ),
            (
                "Trabajo desde el celular pagado en USDT, 40 al día, sin experiencia",
                "job_offer",
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
    fn scams_a_moderator_names_are_caught_whatever_the_words() {
        let table: &[(&str, &str)] = &[
            (
                "We moved: the new official group is t.me/newchat_official",
                "fake_event",
            ),
            (
                "Flash USDT for sale, shows in every wallet for 60 days, DM",
                "private_deal",
            ),
            (
                "Spenden für die Erdbebenopfer in USDT, Adresse im Profil",
                "private_deal",
            ),
            (
                "Stake with us for 250% APY, link: megastake.io",
                "investment",
            ),
            (
                "Pool de minería en la nube, depositas 100 USDT y cobras 5 cada día, link en mi perfil",
                "investment",
            ),
            (
                "Нужен человек на удалёнку, только телефон и 2 часа в день, пишите в лс",
                "job_offer",
            ),
            (
                "Tu cartera ganó la lotería, paga el impuesto de 30 USDT para liberar el premio",
                "giveaway",
            ),
            (
                "Perdeu cripto pra um golpe? Posso te passar o contato do advogado que recuperou a minha",
                "fund_recovery",
            ),
            (
                "Reklam için kanalımızda 40 bin abone var, fiyat listesi özelden",
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
    fn a_question_ending_in_its_link_or_addressed_to_someone_reads_as_a_question() {
        use super::super::Tone;
        let rules = ScamRules::new().unwrap();
        let tone = |text: &str| rules.judge(&normalize(text), &[], false, &mut Verdict::default());
        for text in [
            "Tx stuck for an hour, what should I do? https://etherscan.io/tx/0xabc",
            "@admin_anna the claim page shows an error, is it down?",
            "Where is the V2 migration announced?",
        ] {
            assert_eq!(tone(text), Tone::Question, "{text}");
        }
        for text in [
            "Tokens gone? Sync your wallet at wallet-sync.app",
            "@admin_anna is the best trader here, write to @anna_trades",
        ] {
            assert_ne!(tone(text), Tone::Question, "{text}");
        }
    }

    #[test]
    fn a_post_that_keeps_the_reader_in_the_group_or_on_the_operations_site_is_at_home() {
        use super::super::Tone;
        let rules = ScamRules::new().unwrap();
        let own = ["example.org".to_owned()];
        let tone = |text: &str| rules.judge(&normalize(text), &own, false, &mut Verdict::default());
        for text in [
            "📢 AMA with our CTO on Thursday right here in the group, drop your questions below",
            "📢 AMA с командой в четверг в этом чате! Пишите вопросы, за лучшие призы",
            "We're hiring a moderator, details and the form on example.org/careers",
        ] {
            assert_eq!(tone(text), Tone::AtHome, "{text}");
        }
        for text in [
            "AMA right here in the group, and for the private round DM me",
            "Пишите вопросы в лс, отвечу",
            "We're hiring, details on example.org and jobs-crypto.app",
            "Hiring moderators, drop your questions below or write to @hr_anna",
        ] {
            assert_ne!(tone(text), Tone::AtHome, "{text}");
        }
    }

    #[test]
    fn a_job_to_apply_for_on_the_operations_own_site_is_the_teams_unless_it_adds_a_contact() {
        let rules = ScamRules::new().unwrap();
        let own = ["example.org".to_owned()];
        let fired = |text: &str| {
            let mut verdict = Verdict::default();
            rules.judge(&normalize(text), &own, false, &mut verdict);
            verdict.rules()
        };
        for text in [
            "We're hiring a moderator paid in USDT, apply on example.org, we don't recruit by DM",
            "Ekibimize moderatör arıyoruz, başvurular sadece example.org üzerinden, DM'den gelen tekliflere itibar etmeyin",
        ] {
            assert!(fired(text).is_empty(), "{text}: {:?}", fired(text));
        }
        for text in [
            "Remote job paid 50 USDT a day, details on example.org or write to @hr_anna",
            "Remote job paid 50 USDT a day, apply on jobs-usdt.app, DM me",
        ] {
            assert!(
                fired(text).contains(&"job_offer"),
                "{text}: {:?}",
                fired(text)
            );
        }
    }

    #[test]
    fn three_lures_and_a_private_way_out_are_an_offer_no_family_names() {
        assert_eq!(
            rules_of("Your listing was suspended, to unlock it write me"),
            ["hyped_offer"]
        );
        // Two lures are talk: the audit, the fix, and the account of the dev.
        assert!(rules_of("The audit fix is done, thanks @ProjectDev").is_empty());
    }

    #[test]
    fn a_stranger_s_opener_asking_about_the_reader_is_deleted_a_member_s_greeting_to_the_group_is_not()
     {
        assert!(
            rules_of("hello dear, how are you doing today? I saw your name in the group")
                .contains(&"investment")
        );
        for text in [
            "Hallo mein Lieber, falsche Person angeschrieben, aber wie geht es dir?",
            "Hola guapo, ¿cómo estás? escríbeme al privado",
            "Selam canım, yanlış numara sanırım ama nerelisin?",
        ] {
            assert!(rules_of(text).contains(&"investment"), "{text}");
        }
        for text in [
            "sorry to bother, how are you guys doing? when is the CEX listing?",
            "wrong chat sorry 😅 how are you all anyway",
            "my dear, how are you holding up after the dip lol",
            "Извините за беспокойство, как дела с контрактом?",
        ] {
            assert!(rules_of(text).is_empty(), "{text}: {:?}", rules_of(text));
        }
    }

    #[test]
    fn a_few_words_sending_the_reader_to_a_bio_or_private_messages_are_a_lure() {
        for text in [
            "check my bio 👀",
            "смотри био 👆",
            "me chama no pv 😉",
            "biyografime bak",
        ] {
            assert_eq!(rules_of(text), ["private_deal"], "{text}");
        }
        // A sixth word, or the group's subject, makes it talk.
        for text in [
            "dm me the contract pls",
            "updated my profile picture with the new logo today, looks great",
        ] {
            assert!(rules_of(text).is_empty(), "{text}: {:?}", rules_of(text));
        }
    }

    #[test]
    fn a_warning_that_says_nobody_will_ask_quotes_the_scam_and_fires_nothing() {
        for text in [
            "Mod reminder: nobody from the team will EVER DM you first. If someone tells you to \"send your seed phrase for verification\", it's a scam",
            "⚠️ Yönetim uyarısı: Hiçbir admin size özelden ilk yazmaz. Biri sizden cüzdan doğrulama için gizli kelimelerinizi isterse bu DOLANDIRICILIKTIR",
            "AVISO: nadie del equipo os va a escribir por privado. Si alguien os pide la frase semilla para verificar, es una ESTAFA",
        ] {
            assert!(rules_of(text).is_empty(), "{text}: {:?}", rules_of(text));
        }
    }

    #[test]
    fn digits_for_letters_and_a_domain_s_dot_moved_away_hide_nothing() {
        assert!(rules_of("send your s33d phrase to verify your w4llet").contains(&"seed_phrase"));
        assert!(
            rules_of("refund-claim .site connect your wallet to claim compensation")
                .contains(&"wallet_drainer")
        );
        // Numbers, tickers and versions are no letters.
        assert!(rules_of("the erc20 token x10 web3 is 2x up, seed round at 0.05").is_empty());
    }

    #[test]
    fn a_spelt_out_word_an_account_without_its_at_and_a_link_in_the_bio_are_ways_out() {
        assert!(!rules_of("З а р а б о т о к от 500$ в неделю, пиши в лс 👇").is_empty());
        assert!(
            rules_of("Thanks to my mentor I made $9,000 in a month, write him: tg anna_trader_01")
                .contains(&"investment")
        );
        assert!(
            rules_of("Victims of the hack get a full refund, validate your wallet, link in my bio")
                .contains(&"fake_event")
        );
        // A handle needs a word naming it, and the shape of one.
        assert!(
            rules_of("Thanks to the devs I made $900, contact the team in the group").is_empty()
        );
    }

    #[test]
    fn an_account_named_without_its_at_on_another_messenger_is_a_contact() {
        for text in [
            "new here, nice project! btw I answer faster on Signal: thomas_crypto.31",
            "I'm more on Discord, more talk about trades there, add me: tradermax4421",
            "Thanks to my mentor I made $15k, the user is anapaula_trader (no @)",
        ] {
            assert!(!rules_of(text).is_empty(), "{text}");
        }
        // A word with digits is no handle unless a messenger or a name
        // for an account comes with it.
        assert!(rules_of("see you at the meetup, I'll wear the team2025 shirt").is_empty());
    }

    #[test]
    fn a_disclaimer_a_story_s_never_again_and_a_no_experience_needed_are_no_warnings() {
        for text in [
            "my MEV bot made 1.7 ETH this week, I'll share the guide with whoever DMs me, not financial advice",
            "Perdi tudo num golpe e achei que nunca mais ia ver esse dinheiro, mas consegui recuperar com uma equipe, chama no privado que eu passo o contato",
            "Nebenjob von zu Hause, 1-2 Stunden täglich, 100 USDT pro Tag, kein Vorwissen nötig, schreib mir privat",
            "gros gains ce matin 🚀 qui veut le lien ?",
        ] {
            assert!(!rules_of(text).is_empty(), "{text}");
        }
        for text in [
            "Anyone interested in a weekly DeFi call? I earn nothing from it, just want to learn together",
            "Ekipten kimse size özelden yazmaz, kurtarma ifadenizi isteyenler dolandırıcıdır",
        ] {
            assert!(rules_of(text).is_empty(), "{text}: {:?}", rules_of(text));
        }
    }

    #[test]
    fn panic_revokes_cash_deals_and_lonely_private_chats_are_families_and_their_warnings_are_not() {
        let table = [
            (
                "Exploit detected!! revoke your approvals right now at approvals-guard.xyz",
                "wallet_drainer",
            ),
            (
                "Vendo USDT por efectivo, mejor tasa que Binance, entrega en mano",
                "private_deal",
            ),
            (
                "Tauschen USDT gegen Bargeld, bessere Kurse als die Börse, schreib mir",
                "private_deal",
            ),
            (
                "Je suis nouvelle ici et un peu seule, écris-moi en privé ?",
                "adult_or_gambling",
            ),
        ];
        for (text, rule) in table {
            assert!(
                rules_of(text).contains(&rule),
                "{text}: {:?}",
                rules_of(text)
            );
        }
        for text in [
            "Someone posted revoke-now.site after the exploit: a drainer, never revoke anywhere but revoke.cash",
            "Who sells USDT for cash at a better rate than Binance in DM is a scammer, use the exchange's P2P",
            "Lonely night in the group, the chart is flat, reply here if you're still holding",
        ] {
            assert!(rules_of(text).is_empty(), "{text}: {:?}", rules_of(text));
        }
    }

    #[test]
    fn a_listing_offered_to_an_account_is_a_paid_service() {
        assert_eq!(
            rules_of(
                "Hi dev, we can arrange a tier-1 listing in 7 days, please contact @Listing_Manager"
            ),
            ["paid_service"]
        );
        assert!(rules_of("The listing date is up to @ProjectDev, we can only wait").is_empty());
    }

    #[test]
    fn a_warning_naming_the_scam_site_passes_and_one_pushing_the_only_official_site_does_not() {
        for text in [
            "Warning: the site claim-project.xyz is fake, don't connect your wallet there",
            "Осторожно: сайт claim-token.ru — фейк, не подключайте туда кошелёк",
        ] {
            assert!(rules_of(text).is_empty(), "{text}: {:?}", rules_of(text));
        }
        let pushed = "Beware of fake claim sites, don't trust them, the only official claim page is claim-official-token.xyz";
        assert!(
            rules_of(pushed).contains(&"fake_event"),
            "{:?}",
            rules_of(pushed)
        );
    }

    #[test]
    fn a_scam_quoted_in_a_report_is_the_scammer_s_not_the_member_s() {
        for text in [
            "Someone wrote me \"I'm from support, give me your 12 words to fix your wallet\", lol no, blocked",
            "Мне написали «я из поддержки, дай 12 слов, чтобы починить кошелёк», заблокировал",
        ] {
            assert!(rules_of(text).is_empty(), "{text}: {:?}", rules_of(text));
        }
        // Nor is a scam quoted with a comment that offers nothing.
        let quoted = "\"DM me for 10x gains\" — every second message in the other groups, glad the mods here are fast";
        assert!(rules_of(quoted).is_empty(), "{:?}", rules_of(quoted));
        // A quote does not hide the bait or the pitch around it.
        for text in [
            "\"Free 1000 USDT for every holder\" is live now, claim at claim-usdt-free.xyz",
            "Don't believe the \"it's a scam\" rumours, our bot really pays 3% a day, DM me",
        ] {
            assert!(!rules_of(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn a_message_typed_without_accents_reads_like_one_with_them() {
        for (with, without) in [
            (
                "Manda suas palavras de recuperação pro suporte",
                "mande suas palavras de recuperacao pro suporte",
            ),
            (
                "Cüzdanınızı doğrulayın, kurtarma ifadenizi destek ekibine gönderin",
                "Cuzdaninizi dogrulayin, kurtarma ifadenizi destek ekibine gonderin",
            ),
        ] {
            assert!(rules_of(with).contains(&"seed_phrase"), "{with}");
            assert!(rules_of(without).contains(&"seed_phrase"), "{without}");
        }
        // German "löst" is no English "lost" for all that.
        assert!(
            rules_of("I lost access to my old wallet but I have the seed phrase written down, importing it into a new MetaMask now")
                .is_empty()
        );
    }

    #[test]
    fn reports_of_a_scam_and_warnings_about_fees_fire_nothing() {
        for text in [
            "Someone sent me a link to \"validate\" my wallet, is it official? I didn't click",
            "Giveaways where you pay a fee to get the prize are scams, don't pay anything",
            "Is the listing on Kraken confirmed? I won't buy before an official post",
            "Hello dear friends, is the staking page down for everyone?",
            "Mi cuenta de Binance ya está verificada, por fin puedo retirar",
            "Bu gece evde yalnızım, grafik izliyorum 😅",
        ] {
            assert!(rules_of(text).is_empty(), "{text}: {:?}", rules_of(text));
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
