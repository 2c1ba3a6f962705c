//! How a secret is demanded: "to verify", "we need your".
//! A recovery phrase asked for verification is the scam even without a
//! link: nothing legitimate ever checks it.

/// Verify, confirm, prove ownership.
pub const VERIFY: &[&str] = &[
    "verif",
    "confirm",
    "prove",
    "ownership",
    "vérifi",
    "prouver",
    "comprob",
    "comprueb",
    "verificar",
    "demostrar",
    "conferir",
    "comprovar",
    "prüf",
    "bestätig",
    "verifizier",
    "nachweis",
    "провер",
    "подтверд",
    "подтверж",
    "верифи",
    "doğrula",
    "onayla",
    "teyit",
];

/// "We need your …": a demand for the reader's secret, a [`super::Concept::HandOver`] term.
pub const WE_NEED: &[&str] = &[
    "we need your",
    "we need the",
    "we require your",
    "nous avons besoin de votre",
    "nous avons besoin de ta",
    "il nous faut",
    "necesitamos tu",
    "necesitamos su",
    "necesito tu",
    "necesito que me",
    "precisamos da sua",
    "precisamos do seu",
    "preciso da sua",
    "brauchen wir deine",
    "brauchen wir ihre",
    "wir brauchen deine",
    "wir brauchen ihre",
    "нам нужн",
    "нужна ваша",
    "нужна твоя",
    "нужен ваш",
    "нужен твой",
    "ihtiyacımız var",
];

/// Unlock, release: what a secret is demanded "to" do.
pub const UNLOCK: &[&str] = &[
    "unlock",
    "release your",
    "to release",
    "débloqu",
    "libérer",
    "desbloque",
    "liberar",
    "freischalt",
    "freizuschalt",
    "freizugeben",
    "entsperr",
    "freigeben",
    "разблок",
    "получить выплат",
    "kilidini aç",
    "kilidi aç",
    "kilidini kaldır",
];
