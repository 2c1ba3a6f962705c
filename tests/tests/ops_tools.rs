//! The operations tools on real processes: the sandbox (its own network
//! and process namespaces), `bash` judged before it runs, ssh through a
//! stand-in client that runs the command as a host would, health checks
//! and port checks on loopback services, deploys with their rollback.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};
use ulias_agents::runner::RunMode;
use ulias_agents::sandbox::Sandbox;
use ulias_agents::tools::{Checks, Hosts, ToolContext, Workspace};
use ulias_core::clock::Clock;
use ulias_core::domain::{DecisionStatus, Task};
use ulias_core::settings::{
    HostSettings, SandboxSettings, ServiceSettings, SshSettings, WorkspaceSettings,
};
use ulias_tests::fake_service::FakeService;
use ulias_tests::harness::{Harness, Options};
use ulias_tests::repo::git;

/// A repository with one tracked file, as the workspace's only root.
fn repo() -> (tempfile::TempDir, PathBuf, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::write(repo.join("src/lib.rs"), "pub fn f() {}\n").unwrap();
    git(&repo, &["init", "--quiet", "--initial-branch=main"]);
    git(&repo, &["add", "--all"]);
    git(&repo, &["commit", "--quiet", "-m", "first"]);
    let settings = WorkspaceSettings {
        roots: vec![repo.clone()],
        ..WorkspaceSettings::default()
    };
    let workspace = Workspace::from_settings(&settings).unwrap();
    (dir, repo, workspace)
}

fn limits(timeout_seconds: u64, network: bool) -> SandboxSettings {
    SandboxSettings {
        timeout_seconds,
        network,
        ..SandboxSettings::default()
    }
}

fn context(h: &Harness, task: &Task, agent: &str) -> ToolContext {
    h.tool_context(task, agent)
}

async fn call(h: &Harness, ctx: &ToolContext, tool: &str, args: Value) -> Result<Value, String> {
    let tool = h.runner.tools.built(tool).unwrap();
    tool.run(ctx, args).await.map_err(|e| e.to_string())
}

/// The tool result the model received in its `index`th request.
fn tool_result(h: &Harness, index: usize) -> Value {
    let requests = h.llm.requests();
    let messages = requests[index]["messages"].as_array().unwrap();
    serde_json::from_str(messages.last().unwrap()["content"].as_str().unwrap()).unwrap()
}

fn finish_incident() -> Value {
    json!({"tool_calls": [{"name": "finish", "arguments": {
        "summary": "looked", "root_cause": "suspected: none", "actions": [],
        "needs_decision": false, "confidence": 0.5}}]})
}

#[tokio::test]
async fn a_sandboxed_command_has_no_network_unless_allowed() {
    let (_dir, repo, _) = repo();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let probe = format!(
        "bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}' 2>/dev/null && echo reached || echo unreachable"
    );

    let closed = Sandbox::new(limits(30, false))
        .run(&repo, &probe)
        .await
        .unwrap();
    let open = Sandbox::new(limits(30, true))
        .run(&repo, &probe)
        .await
        .unwrap();

    assert_eq!(closed.stdout.trim(), "unreachable", "{closed:?}");
    assert_eq!(open.stdout.trim(), "reached", "{open:?}");
    let inside = Sandbox::new(limits(30, false))
        .run(&repo, "python3 -m http.server 18777 >/dev/null 2>&1 & sleep 1; bash -c 'exec 3<>/dev/tcp/127.0.0.1/18777' && echo own-loopback")
        .await
        .unwrap();
    assert_eq!(inside.stdout.trim(), "own-loopback", "{inside:?}");
}

#[tokio::test]
async fn a_command_past_its_time_limit_is_killed_with_everything_it_started() {
    let (_dir, repo, _) = repo();
    let marker = repo.join("still-running");
    let script = format!("(sleep 3; touch {}) & sleep 60", marker.display());

    let ran = Sandbox::new(limits(1, false))
        .run(&repo, &script)
        .await
        .unwrap();

    assert!(ran.timed_out);
    assert_eq!(ran.exit_code, None);
    assert!(ran.elapsed < std::time::Duration::from_secs(10), "{ran:?}");
    tokio::time::sleep(std::time::Duration::from_secs(4)).await;
    assert!(
        !marker.exists(),
        "the background child was killed with the namespace"
    );
}

#[tokio::test]
async fn output_beyond_the_limit_is_cut_and_said_so() {
    let (_dir, repo, _) = repo();
    let sandbox = Sandbox::new(SandboxSettings {
        max_output_bytes: 1024,
        ..limits(30, false)
    });

    let ran = sandbox
        .run(&repo, "yes ulias | head -n 100000")
        .await
        .unwrap();

    assert!(ran.succeeded());
    assert!(ran.truncated);
    assert_eq!(ran.stdout.len(), 1024);
}

async fn incident_harness(workspace: Workspace, turns: Vec<Value>) -> Harness {
    let options = Options {
        workspace: Some(workspace),
        sandbox: Some(Sandbox::new(limits(30, false))),
        ..Options::default()
    };
    Harness::with(options, turns).await
}

#[tokio::test]
async fn bash_runs_a_harmless_command_at_once_and_a_destructive_one_dry_naming_why() {
    let (_dir, repo, workspace) = repo();
    let turns = vec![
        json!({"tool_calls": [{"name": "bash", "arguments": {"command": "ls src && echo hello > notes.txt"}}]}),
        json!({"tool_calls": [{"name": "bash", "arguments": {"command": "rm src/lib.rs"}}]}),
        finish_incident(),
    ];
    let h = incident_harness(workspace, turns).await;
    let task = h.claimed_task("incident", json!({})).await;

    h.runner.run(&task, RunMode::Live).await.unwrap();

    let harmless = tool_result(&h, 1);
    assert_eq!(harmless["exit_code"], 0, "{harmless}");
    assert!(harmless["stdout"].as_str().unwrap().contains("lib.rs"));
    assert_eq!(
        std::fs::read_to_string(repo.join("notes.txt")).unwrap(),
        "hello\n"
    );
    let dry = tool_result(&h, 2);
    assert_eq!(dry["dry_run"], true, "{dry}");
    assert_eq!(
        dry["command"],
        "rm src/lib.rs (destructive: `rm` removes src/lib.rs, which git tracks)"
    );
    assert!(repo.join("src/lib.rs").exists(), "nothing was removed");
    let asked =
        h.db.store
            .decisions_of_task(task.id, "confirmation")
            .await
            .unwrap();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].status, DecisionStatus::Pending);
}

#[tokio::test]
async fn bash_refuses_a_folder_outside_the_workspace() {
    let (dir, _repo, workspace) = repo();
    let h = incident_harness(workspace, vec![]).await;
    let task = h.claimed_task("incident", json!({})).await;
    let ctx = context(&h, &task, "incident");
    let outside = dir.path().to_str().unwrap().to_owned();

    let refused = call(&h, &ctx, "bash", json!({"command": "ls", "dir": outside}))
        .await
        .unwrap_err();

    assert!(refused.contains("outside the workspace"), "{refused}");
}

/// A stand-in `ssh` client: logs its arguments, then runs the remote
/// command with `sh -c` as the host would, with the host's own tools (fake
/// `zpool`, `zfs`, `journalctl`, `fail2ban-client`, `apt`) first on PATH.
struct FakeHost {
    dir: tempfile::TempDir,
    hosts: Hosts,
}

impl FakeHost {
    fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let log = dir.path().join("argv.log");
        let script = |name: &str, body: &str| {
            let path = bin.join(name);
            std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
            Command::new("chmod").arg("+x").arg(&path).status().unwrap();
        };
        script(
            "ssh",
            &format!(
                "printf '%s\\n' \"$*\" >> {log}\nfor last; do :; done\nPATH={bin}:$PATH exec sh -c \"$last\"",
                log = log.display(),
                bin = bin.display()
            ),
        );
        script("zpool", "echo 'all pools are healthy'");
        script(
            "zfs",
            "printf 'tank/data@daily-1\\t1764720000\\ntank/data@daily-2\\t1764806400\\n'",
        );
        script(
            "journalctl",
            "echo '2026-12-03T01:00:01+0000 web1 CRON[11]: (root) CMD (/usr/local/bin/backup.sh)'\necho '2026-12-03T02:00:01+0000 web1 CRON[12]: (root) CMD (/usr/local/bin/rotate.sh)'\necho '2026-12-03T03:00:01+0000 web1 CRON[13]: (root) CMD (/usr/local/bin/backup.sh)'",
        );
        script("fail2ban-client", "echo \"fail2ban-client $*\"");
        script(
            "apt",
            "echo 'openssl/stable 3.0.15 amd64 [upgradable from: 3.0.14]'",
        );
        let config = dir.path().join("nginx.conf");
        std::fs::write(&config, "server { listen 80; }\n").unwrap();
        let host = HostSettings {
            name: "web1".into(),
            address: "127.0.0.1".into(),
            user: "ulias".into(),
            port: 2222,
            identity_file: None,
            read_commands: vec!["uptime".into(), "echo *".into()],
            write_commands: vec!["systemctl restart *".into()],
            config_files: vec![config.display().to_string()],
            ports: Vec::new(),
        };
        let ssh = SshSettings {
            program: bin.join("ssh"),
            ..SshSettings::default()
        };
        let hosts = Hosts::new(ssh, vec![host], 32 * 1024);
        Self { dir, hosts }
    }

    fn argv(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("argv.log")).unwrap_or_default()
    }

    fn config(&self) -> String {
        self.dir.path().join("nginx.conf").display().to_string()
    }
}

async fn ops_harness(checks: Checks, turns: Vec<Value>) -> Harness {
    let options = Options {
        checks: Some(checks),
        ..Options::default()
    };
    Harness::with(options, turns).await
}

#[tokio::test]
async fn ssh_runs_a_read_command_in_batch_mode_on_a_listed_host_only() {
    let host = FakeHost::start();
    let h = ops_harness(Checks::new(Vec::new(), host.hosts.clone()), vec![]).await;
    let task = h.claimed_task("monitor", json!({})).await;
    let ctx = context(&h, &task, "monitor");

    let ran = call(
        &h,
        &ctx,
        "ssh",
        json!({"host": "web1", "command": "echo up 3 days"}),
    )
    .await
    .unwrap();
    let unknown = call(&h, &ctx, "ssh", json!({"host": "db9", "command": "uptime"}))
        .await
        .unwrap_err();
    let unlisted = call(
        &h,
        &ctx,
        "ssh",
        json!({"host": "web1", "command": "cat /etc/shadow"}),
    )
    .await
    .unwrap_err();
    let chained = call(
        &h,
        &ctx,
        "ssh",
        json!({"host": "web1", "command": "echo hi; reboot"}),
    )
    .await
    .unwrap_err();

    assert_eq!(ran["exit_code"], 0);
    assert!(
        ran["stdout"].as_str().unwrap().contains("up 3 days\n"),
        "{ran}"
    );
    assert!(
        ran["stdout"]
            .as_str()
            .unwrap()
            .starts_with("<untrusted source=\"ssh:web1\">"),
        "{ran}"
    );
    assert_eq!(
        host.argv().trim(),
        "-o BatchMode=yes -o StrictHostKeyChecking=yes -o ConnectTimeout=10 -p 2222 -l ulias -- 127.0.0.1 echo up 3 days"
    );
    assert!(
        unknown.contains("host db9 is not allowed; the hosts are: web1"),
        "{unknown}"
    );
    assert!(
        unlisted.contains("not among the commands allowed on web1"),
        "{unlisted}"
    );
    assert!(
        chained.contains("not among the commands allowed"),
        "{chained}"
    );
}

#[tokio::test]
async fn an_ssh_write_command_runs_dry_until_the_ceo_confirms() {
    let host = FakeHost::start();
    let turns = vec![
        json!({"tool_calls": [{"name": "ssh", "arguments": {"host": "web1", "command": "systemctl restart nginx"}}]}),
        json!({"tool_calls": [{"name": "ssh", "arguments": {"host": "web1", "command": "uptime"}}]}),
        finish_incident(),
    ];
    let h = ops_harness(Checks::new(Vec::new(), host.hosts.clone()), turns).await;
    let task = h.claimed_task("incident", json!({})).await;

    h.runner.run(&task, RunMode::Live).await.unwrap();

    let dry = tool_result(&h, 1);
    assert_eq!(dry["dry_run"], true);
    assert_eq!(dry["command"], "ssh web1: systemctl restart nginx");
    assert!(!host.argv().contains("systemctl"), "{}", host.argv());
    let read = tool_result(&h, 2);
    assert_eq!(read.get("dry_run"), None, "a read runs at once: {read}");
    assert!(host.argv().contains("uptime"));
}

#[tokio::test]
async fn the_backup_and_security_tools_read_their_host_and_ask_before_changing_it() {
    let host = FakeHost::start();
    let h = ops_harness(Checks::new(Vec::new(), host.hosts.clone()), vec![]).await;
    let task = h.claimed_task("backup", json!({})).await;
    let ctx = context(&h, &task, "backup");

    let zfs = call(&h, &ctx, "zfs_status", json!({"host": "web1"}))
        .await
        .unwrap();
    let cron = call(
        &h,
        &ctx,
        "cron_check",
        json!({"host": "web1", "job": "backup.sh"}),
    )
    .await
    .unwrap();
    let bad_job = call(
        &h,
        &ctx,
        "cron_check",
        json!({"host": "web1", "job": "x; reboot"}),
    )
    .await
    .unwrap_err();
    let compare = call(
        &h,
        &ctx,
        "rsync",
        json!({"host": "web1", "source": "/srv/a/", "destination": "/srv/b/"}),
    )
    .await
    .unwrap();
    let config_ok = call(
        &h,
        &ctx,
        "read_config",
        json!({"host": "web1", "path": host.config()}),
    )
    .await
    .unwrap();
    let config_refused = call(
        &h,
        &ctx,
        "read_config",
        json!({"host": "web1", "path": "/etc/shadow"}),
    )
    .await
    .unwrap_err();
    let upgradable = call(
        &h,
        &ctx,
        "apt",
        json!({"host": "web1", "action": "upgradable"}),
    )
    .await
    .unwrap();
    let jails = call(
        &h,
        &ctx,
        "fail2ban",
        json!({"host": "web1", "action": "status", "jail": "sshd"}),
    )
    .await
    .unwrap();

    assert!(
        zfs["pools"]["stdout"]
            .as_str()
            .unwrap()
            .contains("all pools are healthy")
    );
    assert!(
        zfs["snapshots"]["stdout"]
            .as_str()
            .unwrap()
            .contains("tank/data@daily-2\t1764806400")
    );
    assert_eq!(cron["runs"], 2);
    assert!(
        cron["last_run"]
            .as_str()
            .unwrap()
            .starts_with("2026-12-03T03:00:01"),
        "{cron}"
    );
    assert!(bad_job.contains("not a plain word"), "{bad_job}");
    assert_eq!(
        compare["command"],
        "rsync -a --dry-run --itemize-changes --stats -- /srv/a/ /srv/b/"
    );
    assert!(config_ok["stdout"].as_str().unwrap().contains("listen 80"));
    assert!(
        config_refused.contains("not among the configuration files"),
        "{config_refused}"
    );
    assert!(
        upgradable["stdout"]
            .as_str()
            .unwrap()
            .contains("openssl/stable")
    );
    assert!(
        jails["stdout"]
            .as_str()
            .unwrap()
            .contains("fail2ban-client status sshd")
    );
    let tools = &h.runner.tools;
    let rsync = tools.built("rsync").unwrap();
    assert!(!rsync.destructive(&json!({"host": "web1", "source": "a", "destination": "b"})));
    assert!(rsync.destructive(
        &json!({"host": "web1", "source": "a", "destination": "b", "dry_run": false})
    ));
    let ban = json!({"host": "web1", "action": "ban", "jail": "sshd", "address": "203.0.113.9"});
    assert!(tools.built("fail2ban").unwrap().destructive(&ban));
    assert!(
        tools
            .built("apt")
            .unwrap()
            .destructive(&json!({"host": "web1", "action": "install", "packages": ["jq"]}))
    );
    assert!(
        !tools
            .built("apt")
            .unwrap()
            .destructive(&json!({"host": "web1", "action": "upgradable"}))
    );
}

fn service(name: &str, url: url::Url) -> ServiceSettings {
    ServiceSettings {
        name: name.into(),
        health_url: Some(url),
        expect: None,
        deploy_command: None,
        rollback_command: None,
        deploy_dir: None,
        deploy_timeout_seconds: 60,
    }
}

#[tokio::test]
async fn http_check_reads_our_services_records_them_and_refuses_other_addresses() {
    let api = FakeService::start().await;
    let web = FakeService::start().await;
    web.set_down(true);
    let mut expecting = service("expecting", api.health_url());
    expecting.expect = Some("healthy".into());
    let checks = Checks::new(
        vec![
            service("api", api.health_url()),
            service("web", web.health_url()),
            expecting,
        ],
        Hosts::none(),
    );
    let h = ops_harness(checks, vec![]).await;
    let task = h.claimed_task("monitor", json!({})).await;
    let ctx = context(&h, &task, "monitor");

    let all = call(&h, &ctx, "http_check", json!({})).await.unwrap();
    let stranger = call(
        &h,
        &ctx,
        "http_check",
        json!({"url": "http://192.0.2.7/admin"}),
    )
    .await
    .unwrap_err();

    let checks = all["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 3);
    assert_eq!(
        (
            checks[0]["service"].as_str(),
            checks[0]["ok"].as_bool(),
            checks[0]["status"].as_u64()
        ),
        (Some("api"), Some(true), Some(200))
    );
    assert_eq!(
        (
            checks[1]["service"].as_str(),
            checks[1]["ok"].as_bool(),
            checks[1]["status"].as_u64()
        ),
        (Some("web"), Some(false), Some(503))
    );
    assert_eq!(checks[1]["attempts"], 2, "a failure is tried again once");
    assert_eq!(checks[2]["content_matched"], false, "{}", checks[2]);
    assert_eq!(checks[2]["ok"], false);
    assert!(
        stranger.contains("not one of our services or hosts"),
        "{stranger}"
    );
    let recorded = h.db.store.checks_of_task(task.id).await.unwrap();
    let seen: Vec<(&str, bool)> = recorded
        .iter()
        .map(|c| (c.service.as_str(), c.ok))
        .collect();
    assert_eq!(seen, [("api", true), ("expecting", false), ("web", false)]);
}

#[tokio::test]
async fn nmap_light_reports_the_open_and_closed_ports_of_a_listed_host() {
    let open = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let open_port = open.local_addr().unwrap().port();
    let closed_port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let host = FakeHost::start();
    let h = ops_harness(Checks::new(Vec::new(), host.hosts.clone()), vec![]).await;
    let task = h.claimed_task("auditor", json!({})).await;
    let ctx = context(&h, &task, "auditor");

    let ports = call(
        &h,
        &ctx,
        "nmap_light",
        json!({"host": "web1", "ports": [closed_port, open_port]}),
    )
    .await
    .unwrap();
    let elsewhere = call(
        &h,
        &ctx,
        "nmap_light",
        json!({"host": "scanme.example", "ports": [22]}),
    )
    .await
    .unwrap_err();

    assert_eq!(ports["open"], json!([open_port]));
    assert_eq!(ports["closed"], json!([closed_port]));
    assert!(elsewhere.contains("not allowed"), "{elsewhere}");
}

#[tokio::test]
async fn a_confirmed_deploy_that_leaves_the_service_unhealthy_is_rolled_back() {
    let api = FakeService::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut api_service = service("api", api.health_url());
    api_service.deploy_dir = Some(dir.path().to_owned());
    api_service.deploy_command = Some("echo v2 > version".into());
    api_service.rollback_command = Some("echo v1 > version".into());
    let h = ops_harness(Checks::new(vec![api_service], Hosts::none()), vec![]).await;
    let task = h.claimed_task("deployer", json!({})).await;
    let ctx = context(&h, &task, "deployer");
    let deploy = h.runner.tools.built("smart_deploy").unwrap();
    let args = json!({"service": "api"});

    let dry = deploy.would_run(&ctx, &args).await.unwrap();
    let healthy = deploy.run(&ctx, args.clone()).await.unwrap();
    let version_after_good = std::fs::read_to_string(dir.path().join("version")).unwrap();
    api.set_down(true);
    let unhealthy = deploy.run(&ctx, args).await.unwrap();

    assert_eq!(dry, "deploy api: echo v2 > version");
    assert_eq!(healthy["ok"], true, "{healthy}");
    assert_eq!(healthy["healthy"], true);
    assert_eq!(healthy["rollback"], Value::Null);
    assert_eq!(version_after_good, "v2\n");
    assert_eq!(unhealthy["ok"], false, "{unhealthy}");
    assert_eq!(unhealthy["rollback"]["exit_code"], 0);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("version")).unwrap(),
        "v1\n"
    );
    let event =
        h.db.store
            .claim_event(h.clock.now())
            .await
            .unwrap()
            .unwrap();
    assert_eq!(
        (event.name.as_str(), event.payload["service"].as_str()),
        ("deploy", Some("api"))
    );
    assert_eq!(
        h.db.store.claim_event(h.clock.now()).await.unwrap(),
        None,
        "only the healthy deploy is an event"
    );
}
