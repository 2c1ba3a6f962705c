use secrecy::ExposeSecret;

use super::*;

const EXAMPLE: &str = include_str!("../../../ulias.example.toml");

fn parse(text: &str) -> Result<Settings, SettingsError> {
    Settings::from_toml(text, "test.toml", [])
}

fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn problem_keys(error: &SettingsError) -> Vec<&str> {
    error.problems().iter().map(|p| p.key.as_str()).collect()
}

#[test]
fn the_built_in_defaults_are_valid() {
    let settings = parse("").unwrap();
    assert!(settings.problems().is_empty());
    assert_eq!(settings.locale, Locale::Fr);
    assert_eq!(settings.database.url.expose_secret(), "sqlite://ulias.db");
    assert_eq!(settings.budgets.monthly_cloud_cap_usd, 20.0);
    assert_eq!(settings.budgets.alert_thresholds_usd, vec![5.0, 10.0, 15.0]);
}

#[test]
fn the_example_file_documents_exactly_the_defaults() {
    let example = parse(EXAMPLE).unwrap();
    let defaults = Settings::default();
    assert_eq!(format!("{example:?}"), format!("{defaults:?}"));
}

#[test]
fn a_value_out_of_range_names_its_key_and_what_is_expected() {
    let text = EXAMPLE.replace("slots = 4", "slots = 0");
    let error = parse(&text).unwrap_err();
    assert_eq!(problem_keys(&error), ["models.pools[1].slots"]);
    let message = error.to_string();
    assert!(message.contains("test.toml"), "{message}");
    assert!(message.contains("from 1 to 256"), "{message}");
}

#[test]
fn a_value_of_the_wrong_type_names_its_key() {
    let error = parse("[models]\n[[models.pools]]\nname = \"a\"\nbase_url = \"http://h/v1\"\nmodel = \"m\"\ntier = \"gpu\"\n")
        .unwrap_err();
    assert_eq!(problem_keys(&error), ["models.pools[0].tier"]);
    assert!(
        error
            .to_string()
            .contains("expected one of: thinker, executor, cloud"),
        "{error}"
    );
}

#[test]
fn a_misspelt_key_is_refused_with_its_name() {
    let error = parse("[telegram]\ntokn = \"x\"\n").unwrap_err();
    let message = error.to_string();
    assert!(message.contains("telegram"), "{message}");
    assert!(message.contains("unknown field `tokn`"), "{message}");
}

#[test]
fn every_problem_is_reported_at_once() {
    let text =
        "[telegram]\ntoken = \"not-a-token\"\n[budgets]\nalert_thresholds_usd = [15.0, 5.0]\n";
    let error = parse(text).unwrap_err();
    assert_eq!(
        problem_keys(&error),
        [
            "telegram.token",
            "telegram.users.ceo",
            "telegram.chats.ceo",
            "budgets.alert_thresholds_usd"
        ]
    );
}

#[test]
fn ids_of_the_wrong_sign_are_caught() {
    let text = "[telegram.users]\nceo = [-5]\n[telegram.chats]\nteam = 42\n\
                [[telegram.groups]]\nchat_id = 7\nname = \"g\"\n";
    let error = parse(text).unwrap_err();
    assert_eq!(
        problem_keys(&error),
        [
            "telegram.users.ceo[0]",
            "telegram.chats.team",
            "telegram.groups[0].chat_id"
        ]
    );
}

#[test]
fn environment_variables_override_the_file() {
    let vars = env(&[
        ("ULIAS_DATABASE__URL", "postgres://ulias@db/ulias"),
        ("ULIAS_MODELS__POOLS__1__SLOTS", "7"),
        ("ULIAS_TELEGRAM__USERS__CEO", "[42]"),
        ("ULIAS_LOCALE", "en"),
        ("ULIAS_TEST_POSTGRES_URL", "postgres://ignored"),
        ("HOME", "/root"),
    ]);
    let settings = Settings::from_toml(EXAMPLE, "example", vars).unwrap();
    assert_eq!(
        settings.database.url.expose_secret(),
        "postgres://ulias@db/ulias"
    );
    assert_eq!(settings.models.pools[1].slots, 7);
    assert_eq!(settings.telegram.users.ceo, vec![42]);
    assert_eq!(settings.locale, Locale::En);
}

#[test]
fn a_bad_environment_value_names_the_variable() {
    let vars = env(&[("ULIAS_DATABASE__MAX_CONNECTIONS", "lots")]);
    let error = Settings::from_toml("", "defaults", vars).unwrap_err();
    assert_eq!(problem_keys(&error), ["database.max_connections"]);
    assert!(
        error
            .to_string()
            .contains("ULIAS_DATABASE__MAX_CONNECTIONS"),
        "{error}"
    );

    let vars = env(&[("ULIAS_MODELS__POOLS__5__SLOTS", "1")]);
    let error = Settings::from_toml(EXAMPLE, "example", vars).unwrap_err();
    assert!(error.to_string().contains("no entry 5"), "{error}");
}

#[test]
fn secrets_never_show_in_debug_output() {
    let vars = env(&[
        (
            "ULIAS_TELEGRAM__TOKEN",
            "123456:AAEabcdefghijklmnopqrstuvwxyz0123456",
        ),
        ("ULIAS_TELEGRAM__USERS__CEO", "[42]"),
        ("ULIAS_TELEGRAM__CHATS__CEO", "42"),
    ]);
    let settings = Settings::from_toml("", "defaults", vars).unwrap();
    let debug = format!("{settings:?}");
    assert!(!debug.contains("AAEabcdef"), "{debug}");
    let token = settings.telegram.token.as_ref().map(|t| t.expose_secret());
    assert_eq!(token, Some("123456:AAEabcdefghijklmnopqrstuvwxyz0123456"));
}

#[test]
fn broken_toml_says_where() {
    let error = parse("[database\nurl = 1").unwrap_err();
    assert!(matches!(error, SettingsError::Syntax { .. }));
    assert!(error.to_string().contains("line 1"), "{error}");
}

#[test]
fn webhook_mode_needs_its_section_and_https() {
    let error = parse("[telegram]\nmode = \"webhook\"\n").unwrap_err();
    assert_eq!(problem_keys(&error), ["telegram.webhook"]);
    let text = "[telegram]\nmode = \"webhook\"\n[telegram.webhook]\nlisten = \"0.0.0.0:8443\"\n\
                public_url = \"http://bot.example.org/tg\"\n";
    let error = parse(text).unwrap_err();
    assert_eq!(
        problem_keys(&error),
        [
            "telegram.webhook.public_url",
            "telegram.webhook.secret_token"
        ]
    );
}

#[test]
fn a_webhook_secret_telegram_would_refuse_is_a_settings_error_not_a_panic() {
    let webhook = "[telegram]\nmode = \"webhook\"\n[telegram.webhook]\nlisten = \"0.0.0.0:8443\"\n\
                   public_url = \"https://bot.example.org/tg\"\n";
    for secret in ["has space", "é-accent", "semi;colon", ""] {
        let text = format!("{webhook}secret_token = \"{secret}\"\n");
        let error = parse(&text).unwrap_err();
        assert_eq!(
            problem_keys(&error),
            ["telegram.webhook.secret_token"],
            "{secret:?}"
        );
    }
    let text = format!("{webhook}secret_token = \"s3cret_Token-1\"\n");
    assert!(parse(&text).is_ok());
}

const NTFY_KEY: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// An `[ntfy]` section on `server` with the given extra lines.
fn ntfy(server: &str, topics: (&str, &str), extra: &str) -> String {
    format!(
        "[ntfy]\nserver = \"{server}\"\ntopic = \"{}\"\nreply_topic = \"{}\"\n{extra}",
        topics.0, topics.1
    )
}

const TOKENS: &str = "token = \"tk_bot\"\nreply_token = \"tk_reply\"\n";

#[test]
fn ntfy_needs_a_separate_reply_topic() {
    let signed = format!("{TOKENS}signing_key = \"{NTFY_KEY}\"\n");
    let same = ntfy("https://ntfy.sh", ("ulias-alerts", "ulias-alerts"), &signed);
    assert_eq!(
        problem_keys(&parse(&same).unwrap_err()),
        ["ntfy.reply_topic"]
    );
    let ok = parse(&ntfy(
        "https://ntfy.sh",
        ("ulias-alerts", "ulias-replies"),
        &signed,
    ))
    .unwrap();
    assert!(ok.ntfy.enabled());
}

#[test]
fn ntfy_answers_need_a_signing_key_of_64_hex_characters() {
    let topics = ("ulias-alerts", "ulias-replies");
    let none = ntfy("https://ntfy.sh", topics, TOKENS);
    assert_eq!(
        problem_keys(&parse(&none).unwrap_err()),
        ["ntfy.signing_key"]
    );
    let short = ntfy(
        "https://ntfy.sh",
        topics,
        &format!("{TOKENS}signing_key = \"abc\"\n"),
    );
    let error = parse(&short).unwrap_err();
    assert_eq!(problem_keys(&error), ["ntfy.signing_key"]);
    assert!(error.to_string().contains("64 hex"), "{error}");
}

#[test]
fn a_public_ntfy_server_without_tokens_is_refused() {
    let topics = ("ulias-alerts", "ulias-replies");
    let key = format!("signing_key = \"{NTFY_KEY}\"\n");
    for server in [
        "https://ntfy.sh",
        "https://ntfy.example.org",
        "http://203.0.113.7",
    ] {
        let error = parse(&ntfy(server, topics, &key)).unwrap_err();
        assert_eq!(
            problem_keys(&error),
            ["ntfy.token", "ntfy.reply_token"],
            "{server}"
        );
    }
    for server in [
        "http://127.0.0.1:8080",
        "http://192.168.1.4",
        "http://ntfy.lan",
        "http://[::1]:80",
    ] {
        assert!(parse(&ntfy(server, topics, &key)).is_ok(), "{server}");
    }
}

#[test]
fn the_reply_token_the_buttons_show_must_not_be_the_bots_own() {
    let same = "token = \"tk_same\"\nreply_token = \"tk_same\"\n";
    let text = ntfy(
        "https://ntfy.sh",
        ("ulias-alerts", "ulias-replies"),
        &format!("{same}signing_key = \"{NTFY_KEY}\"\n"),
    );
    assert_eq!(
        problem_keys(&parse(&text).unwrap_err()),
        ["ntfy.reply_token"]
    );
}

#[test]
fn a_default_pool_can_be_overridden_from_the_environment_without_a_file() {
    let vars = env(&[("ULIAS_MODELS__POOLS__0__BASE_URL", "http://gpu-box:8000/v1")]);
    let settings = Settings::from_toml("", "defaults", vars).unwrap();
    assert_eq!(settings.models.pools.len(), 2);
    assert_eq!(
        settings.models.pools[0].base_url.as_str(),
        "http://gpu-box:8000/v1"
    );
    assert_eq!(settings.models.pools[1].name, "executor");
}

#[test]
fn a_file_replaces_the_default_pools_and_keeps_other_defaults() {
    let text = "[[models.pools]]\nname = \"only\"\nbase_url = \"http://h/v1\"\nmodel = \"m\"\ntier = \"executor\"\n";
    let settings = parse(text).unwrap();
    assert_eq!(settings.models.pools.len(), 1);
    assert_eq!(settings.budgets.monthly_cloud_cap_usd, 20.0);
}

#[test]
fn every_chain_has_public_defaults_and_solana_is_named_but_not_served() {
    let settings = parse("").unwrap();
    for (_, chain) in settings.chains.all() {
        assert_eq!(chain.market_url.as_str(), "https://api.dexscreener.com/");
        assert!(chain.explorer_url.is_none());
        assert_eq!(chain.timeout_seconds, 10);
    }
    assert!(settings.chains.get(ChainName::Solana).is_none());
    assert_eq!("solana".parse::<ChainName>(), Ok(ChainName::Solana));
    assert_eq!(settings.takeover.max_dev_bag_pct, 5.0);
    assert_eq!(settings.takeover.max_top10_pct, 40.0);
    assert_eq!(settings.takeover.min_liquidity_usd, 5000.0);
}

#[test]
fn a_chain_section_merges_over_its_defaults_and_keeps_the_key_secret() {
    let text = "[chains.base]\nrpc_url = \"http://127.0.0.1:8545\"\n\
                explorer_url = \"http://127.0.0.1:9000/api\"\nexplorer_api_key = \"k3y\"\n";
    let settings = parse(text).unwrap();
    let base = &settings.chains.base;
    assert_eq!(base.rpc_url.as_str(), "http://127.0.0.1:8545/");
    assert_eq!(base.market_url.as_str(), "https://api.dexscreener.com/");
    assert_eq!(
        base.explorer_api_key.as_ref().unwrap().expose_secret(),
        "k3y"
    );
    assert!(
        !format!("{base:?}").contains("k3y"),
        "the key is not printed"
    );
}

#[test]
fn takeover_thresholds_out_of_range_name_their_keys() {
    let text = "[takeover]\nmax_dev_bag_pct = 150.0\nmin_liquidity_usd = -1.0\n\
                [takeover.verdict]\nvolume_days = 0\n\
                [chains.bsc]\ntimeout_seconds = 0\nrpc_url = \"ftp://node\"\n";
    let error = parse(text).unwrap_err();
    assert_eq!(
        problem_keys(&error),
        [
            "chains.bsc.rpc_url",
            "chains.bsc.timeout_seconds",
            "takeover.max_dev_bag_pct",
            "takeover.min_liquidity_usd",
            "takeover.verdict.volume_days",
        ]
    );
    let message = error.to_string();
    assert!(message.contains("percentage from 0 to 100"), "{message}");
    assert!(message.contains("1 to 7 days"), "{message}");
}

#[test]
fn an_unknown_chain_section_is_refused() {
    let error = parse("[chains.solana]\nrpc_url = \"http://h\"\n").unwrap_err();
    assert!(
        error.to_string().contains("unknown field `solana`"),
        "{error}"
    );
}

#[test]
fn the_model_request_timeout_is_a_setting_of_1_to_3600_seconds() {
    let settings = parse("[models]\nrequest_timeout_seconds = 90\n").expect("valid");
    assert_eq!(settings.models.request_timeout_seconds, 90);

    let error = parse("[models]\nrequest_timeout_seconds = 0\n").expect_err("out of range");

    assert_eq!(problem_keys(&error), vec!["models.request_timeout_seconds"]);
}

#[test]
fn a_relative_or_repeated_workspace_root_names_its_key() {
    let text = "[workspace]\nroots = [\"/srv/repos\", \"repos\", \"/srv/repos\"]\ngit_timeout_seconds = 0\n";
    let error = parse(text).unwrap_err();
    assert_eq!(
        problem_keys(&error),
        [
            "workspace.roots[1]",
            "workspace.roots[2]",
            "workspace.git_timeout_seconds"
        ]
    );
    assert!(error.to_string().contains("absolute"), "{error}");
}

#[test]
fn workspace_roots_can_be_set_from_the_environment() {
    let vars = env(&[("ULIAS_WORKSPACE__ROOTS", "[\"/srv/repos\"]")]);
    let settings = Settings::from_toml(EXAMPLE, "example", vars).unwrap();
    assert_eq!(
        settings.workspace.roots,
        [std::path::PathBuf::from("/srv/repos")]
    );
}

#[test]
fn hosts_and_services_that_cannot_be_right_name_their_keys() {
    let text = "[sandbox]\ntimeout_seconds = 0\n\n\
        [[hosts]]\nname = \"web1\"\naddress = \"10.0.0.2\"\n\n\
        [[hosts]]\nname = \"web1\"\naddress = \"-oProxyCommand=x\"\n\n\
        [[services]]\nname = \"api\"\nhealth_url = \"ftp://api/health\"\ndeploy_command = \"make deploy\"\n";
    let error = parse(text).unwrap_err();
    assert_eq!(
        problem_keys(&error),
        [
            "sandbox.timeout_seconds",
            "hosts[1].name",
            "hosts[1].address",
            "services[0].health_url",
            "services[0].deploy_dir"
        ]
    );
}

#[test]
fn the_example_lists_no_host_or_service_and_keeps_the_sandbox_offline() {
    let settings = Settings::from_toml(EXAMPLE, "example", env(&[])).unwrap();
    assert!(settings.hosts.is_empty() && settings.services.is_empty());
    assert!(!settings.sandbox.network);
}

#[test]
fn a_calendar_must_be_an_http_or_file_address_or_an_absolute_path() {
    for good in [
        "https://calendar.example.org/ceo.ics",
        "file:///home/ceo/agenda.ics",
        "/home/ceo/agenda.ics",
    ] {
        let settings = parse(&format!("[ceo]\ncalendar_url = \"{good}\"")).unwrap();
        assert!(settings.problems().is_empty(), "{good}");
    }
    for bad in ["ftp://example.org/ceo.ics", "agenda.ics", "https://"] {
        let error = parse(&format!("[ceo]\ncalendar_url = \"{bad}\"")).unwrap_err();
        assert_eq!(problem_keys(&error), ["ceo.calendar_url"], "{bad}");
    }
}
