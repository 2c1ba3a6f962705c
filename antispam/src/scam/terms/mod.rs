//! The words of each [`Concept`], in English, French, Spanish, Portuguese,
//! German, Russian and Turkish. A term matches where a word starts and may
//! run on (a stem: "synchron" is "synchronise", "synchronisez", …); a term
//! ending in `$` must also end a word ("dm$" is not "dmed"; after a space,
//! as in "made $", it is a dollar sign). Matched on the
//! confusables skeleton, lowercase, like the rest of the engine.

mod contact;
mod dating;
mod demand;
mod jobs;
mod lures;
mod messengers;
mod money;
mod offers;
mod people;
mod recovery;
mod services;
mod tips;
mod trouble;
mod wallet;
mod warning;

use super::Concept;

/// Every concept with its terms.
pub const TERMS: &[(Concept, &[&str])] = &[
    (Concept::Staff, people::STAFF),
    (Concept::GoPrivate, contact::GO_PRIVATE),
    (Concept::GoPrivate, contact::CONTACT_AT),
    (Concept::OffPlatform, messengers::OFF_PLATFORM),
    (Concept::OffPlatform, messengers::VIA_MESSENGER),
    (Concept::Protective, people::PROTECTIVE),
    (Concept::Protective, warning::SCAM_CALLED),
    (Concept::Denounce, warning::SCAM_CALLED),
    (Concept::Denounce, warning::DENOUNCE),
    (Concept::Protective, warning::MOCKERY),
    (Concept::Denounce, warning::MOCKERY),
    (Concept::Protective, warning::WARNED_OFF),
    (Concept::Denounce, warning::WARNED_OFF),
    (Concept::Never, warning::WARNED_OFF),
    (Concept::Credit, people::CREDIT),
    (Concept::Pointer, contact::POINTER),
    (Concept::Secret, wallet::SECRET),
    (Concept::HandOver, wallet::HAND_OVER),
    (Concept::Wallet, wallet::WALLET),
    (Concept::Repair, wallet::REPAIR),
    (Concept::Threat, trouble::THREAT),
    (Concept::Problem, trouble::PROBLEM),
    (Concept::Double, offers::DOUBLE),
    (Concept::Giveaway, offers::GIVEAWAY),
    (Concept::Receive, offers::RECEIVE),
    (Concept::Bonus, offers::BONUS),
    (Concept::Recover, recovery::RECOVER),
    (Concept::Loss, recovery::LOSS),
    (Concept::Presale, offers::PRESALE),
    (Concept::OfficialEvent, offers::OFFICIAL_EVENT),
    (Concept::Hype, offers::HYPE),
    (Concept::Returns, money::RETURNS),
    (Concept::Gain, money::GAIN),
    (Concept::Pump, money::PUMP),
    (Concept::Bot, money::BOT),
    (Concept::Job, jobs::JOB),
    (Concept::Pay, jobs::PAY),
    (Concept::Adult, dating::ADULT),
    (Concept::Gambling, money::GAMBLING),
    (Concept::Reassure, people::REASSURE),
    (Concept::GroupAddress, contact::GROUP_ADDRESS),
    (Concept::Verify, demand::VERIFY),
    (Concept::HandOver, demand::WE_NEED),
    (Concept::Girls, dating::GIRLS),
    (Concept::Dating, dating::DATING),
    (Concept::Staff, services::ON_THE_TEAM),
    (Concept::IAmStaff, services::ON_THE_TEAM),
    (Concept::Service, services::SERVICE),
    (Concept::Fee, services::FEE),
    (Concept::WeOffer, services::WE_OFFER),
    (Concept::Never, warning::NEVER),
    (Concept::Never, warning::WE_DONT),
    (Concept::Protective, warning::WE_DONT),
    (Concept::NeverAgain, warning::NEVER_AGAIN),
    (Concept::Unlock, demand::UNLOCK),
    (Concept::Social, lures::SOCIAL),
    (Concept::Invite, lures::INVITE),
    (Concept::Casino, lures::CASINO),
    (Concept::Code, lures::CODE),
    (Concept::Loan, lures::LOAN),
    (Concept::Sell, lures::SELL),
    (Concept::Buy, lures::BUY),
    (Concept::Goods, lures::GOODS),
    (Concept::WeMet, lures::WE_MET),
    (Concept::Opportunity, lures::OPPORTUNITY),
    (Concept::WrongNumber, lures::WRONG_NUMBER),
    (Concept::AskHow, lures::ASK_HOW),
    (Concept::Invest, lures::INVEST),
    (Concept::Report, warning::REPORT),
    (Concept::OurSide, people::OUR_SIDE),
    (Concept::Cash, lures::CASH),
    (Concept::Rate, lures::RATE),
    (Concept::Mule, lures::MULE),
    (Concept::Lonely, dating::LONELY),
    (Concept::Sweet, dating::SWEET),
    (Concept::NotPublic, demand::NOT_PUBLIC),
    (Concept::Reported, warning::REPORTED),
    (Concept::Listing, tips::LISTING),
    (Concept::BuyNow, tips::BUY_NOW),
    (Concept::KycGoods, lures::KYC_GOODS),
    (Concept::Counterfeit, lures::COUNTERFEIT),
    (Concept::Launder, lures::LAUNDER),
    (Concept::Mining, lures::MINING),
    (Concept::FirstComers, lures::FIRST_COMERS),
    (Concept::SpareTime, jobs::SPARE_TIME),
    (Concept::GoodPay, jobs::GOOD_PAY),
    (Concept::MyPhotos, dating::MY_PHOTOS),
    (Concept::Introduce, contact::INTRODUCE),
    (Concept::YouGet, offers::YOU_GET),
    (Concept::Donate, offers::DONATE),
    (Concept::Plea, offers::PLEA),
    (Concept::Locked, lures::LOCKED),
    (Concept::ByMail, contact::BY_MAIL),
    (Concept::Endear, dating::ENDEAR),
    (Concept::SawYou, dating::SAW_YOU),
    (Concept::AboutYou, dating::ABOUT_YOU),
    (Concept::WrongPerson, dating::WRONG_PERSON),
    (Concept::ToAll, dating::TO_ALL),
    (Concept::ProjectTalk, dating::PROJECT_TALK),
    (Concept::MyBio, dating::MY_BIO),
    (Concept::OnlyOfficial, warning::ONLY_OFFICIAL),
    (Concept::HereInGroup, contact::HERE_IN_GROUP),
    (Concept::NewHere, dating::NEW_HERE),
    (Concept::Befriend, dating::BEFRIEND),
    // Read by the automaton first, so that the amounts near them are
    // looked for only in the messages that have them.
    (Concept::Free, super::amounts::FREE_WORDS),
    (Concept::Yield, super::amounts::YIELD_WORDS),
    (Concept::Approve, wallet::APPROVE),
    (Concept::Withdraw, trouble::WITHDRAW),
    (Concept::Discount, lures::DISCOUNT),
    (Concept::CheckDms, contact::CHECK_DMS),
    (Concept::DmMe, contact::DM_ME),
    (Concept::Course, services::COURSE),
    (Concept::Referral, contact::REFERRAL),
    (Concept::Task, jobs::TASKS),
    (Concept::Urgent, trouble::URGENT),
];

#[cfg(test)]
mod tests {
    use super::TERMS;

    #[test]
    fn no_term_is_written_twice_for_one_concept() {
        for (concept, terms) in TERMS {
            for (i, term) in terms.iter().enumerate() {
                assert!(
                    !terms[..i].contains(term),
                    "{concept:?}: \"{term}\" written twice"
                );
            }
        }
    }
}
