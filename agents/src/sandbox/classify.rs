//! Whether a shell command changes what it must not: pure, so every rule
//! has its line in the table test. A command is split into simple commands
//! (on `;`, `&&`, `||`, `|`, `&` and new lines) and words (quotes
//! respected); each simple command is judged, and one destructive part
//! makes the whole command destructive. What cannot be read safely
//! (command substitution, `eval`, here-documents) counts as destructive:
//! the CEO sees it before it runs.

/// Where the command runs: which paths stay in the workspace, which files
/// git tracks there.
pub trait Place {
    /// Whether `path` (as written, relative to the working folder) stays
    /// inside the workspace.
    fn inside(&self, path: &str) -> bool;
    /// Whether `path` is a file (or a folder holding files) git tracks.
    fn tracked(&self, path: &str) -> bool;
}

/// Why a command is destructive, one line per reason.
pub fn destructive_reasons(script: &str, place: &dyn Place) -> Vec<String> {
    if let Some(reason) = unreadable(script) {
        return vec![reason.to_owned()];
    }
    let mut reasons = Vec::new();
    for words in simple_commands(script) {
        reasons.extend(judge(&words, place));
    }
    reasons
}

/// Programs that install, remove, restart or escalate: always destructive.
const ALWAYS: &[&str] = &[
    "sudo", "su", "doas", "apt", "apt-get", "aptitude", "dpkg", "yum", "dnf", "apk", "pacman",
    "snap", "brew", "service", "reboot", "shutdown", "halt", "poweroff", "kill", "pkill",
    "killall", "dd", "mount", "umount", "crontab", "useradd", "userdel", "usermod", "passwd",
    "iptables", "nft", "ufw", "ssh", "scp", "sftp", "rsync", "mkfs", "fdisk", "parted",
];

/// Programs whose reading subcommands are harmless and the rest destructive.
const READ_SUBCOMMANDS: &[(&str, &[&str])] = &[
    (
        "systemctl",
        &[
            "status",
            "show",
            "is-active",
            "is-enabled",
            "list-units",
            "list-timers",
            "cat",
        ],
    ),
    (
        "docker",
        &[
            "ps", "logs", "inspect", "images", "stats", "version", "info", "top",
        ],
    ),
    (
        "podman",
        &[
            "ps", "logs", "inspect", "images", "stats", "version", "info", "top",
        ],
    ),
    ("kubectl", &["get", "describe", "logs", "top", "version"]),
    (
        "git",
        &[
            "status",
            "diff",
            "log",
            "show",
            "blame",
            "grep",
            "ls-files",
            "rev-parse",
            "describe",
        ],
    ),
];

/// Installers run through a language tool: `pip install`, `npm ci`…
const INSTALLS: &[(&str, &[&str])] = &[
    ("pip", &["install", "uninstall", "download"]),
    ("pip3", &["install", "uninstall", "download"]),
    (
        "npm",
        &[
            "install",
            "i",
            "ci",
            "uninstall",
            "publish",
            "update",
            "add",
        ],
    ),
    ("yarn", &["add", "install", "remove", "publish"]),
    ("pnpm", &["add", "install", "i", "remove", "publish"]),
    (
        "cargo",
        &["install", "uninstall", "publish", "login", "owner", "yank"],
    ),
    ("gem", &["install", "uninstall"]),
    ("go", &["install", "get"]),
];

/// Programs that write the paths they are given.
const WRITERS: &[&str] = &[
    "cp", "mv", "ln", "install", "tee", "touch", "mkdir", "rmdir", "truncate", "chmod", "chown",
    "chgrp", "rm", "unlink", "shred",
];

fn unreadable(script: &str) -> Option<&'static str> {
    if script.contains("$(") || script.contains('`') {
        return Some("it runs a command substitution, whose command cannot be checked beforehand");
    }
    if script.contains("<<") {
        return Some("it writes a here-document, which cannot be checked beforehand");
    }
    None
}

fn judge(words: &[String], place: &dyn Place) -> Vec<String> {
    let (redirects, words) = split_redirects(words);
    let mut reasons: Vec<String> = redirects
        .iter()
        .filter(|target| !is_device(target) && !place.inside(target))
        .map(|target| format!("it writes {target}, outside the workspace"))
        .collect();
    let Some((program, args)) = words.split_first() else {
        return reasons;
    };
    let name = program.rsplit('/').next().unwrap_or(program);
    let first = args
        .iter()
        .find(|a| !a.starts_with('-'))
        .map(String::as_str);
    if matches!(
        name,
        "eval" | "exec" | "source" | "." | "xargs" | "env" | "nohup" | "timeout"
    ) {
        reasons.push(format!(
            "`{name}` runs another command that cannot be checked beforehand"
        ));
    } else if ALWAYS.contains(&name) || name.starts_with("mkfs.") {
        reasons.push(format!("`{name}` changes the machine"));
    } else if let Some((_, reads)) = READ_SUBCOMMANDS.iter().find(|(p, _)| *p == name) {
        if !first.is_some_and(|sub| reads.contains(&sub)) || is_history_rewrite(name, args) {
            reasons.push(format!(
                "`{name} {}` changes the machine",
                first.unwrap_or("")
            ));
        }
    } else if let Some((_, installs)) = INSTALLS.iter().find(|(p, _)| *p == name)
        && first.is_some_and(|sub| installs.contains(&sub))
    {
        reasons.push(format!(
            "`{name} {}` installs packages",
            first.unwrap_or("")
        ));
    } else if matches!(name, "sh" | "bash" | "zsh" | "dash") && args.is_empty() {
        reasons.push(format!(
            "`{name}` runs what it reads, which cannot be checked beforehand"
        ));
    } else if WRITERS.contains(&name) || (name == "sed" && args.iter().any(|a| a.starts_with("-i")))
    {
        reasons.extend(writer_reasons(name, args, place));
    }
    reasons
}

fn is_history_rewrite(program: &str, args: &[String]) -> bool {
    program == "git"
        && args
            .iter()
            .any(|a| a == "--force" || a == "-f" || a == "--hard")
}

fn writer_reasons(name: &str, args: &[String], place: &dyn Place) -> Vec<String> {
    let paths: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let mut reasons: Vec<String> = paths
        .iter()
        .filter(|path| !place.inside(path))
        .map(|path| format!("`{name}` touches {path}, outside the workspace"))
        .collect();
    if matches!(name, "rm" | "unlink" | "shred" | "rmdir" | "mv") {
        let removed = if name == "mv" {
            paths.split_last().map_or(&[][..], |(_, sources)| sources)
        } else {
            &paths[..]
        };
        reasons.extend(
            removed
                .iter()
                .filter(|path| place.inside(path) && place.tracked(path))
                .map(|path| format!("`{name}` removes {path}, which git tracks")),
        );
    }
    reasons
}

fn is_device(target: &str) -> bool {
    matches!(target, "/dev/null" | "/dev/stdout" | "/dev/stderr") || target.starts_with('&')
}

/// The targets of output redirections, and the words left.
fn split_redirects(words: &[String]) -> (Vec<String>, Vec<String>) {
    let mut targets = Vec::new();
    let mut rest = Vec::new();
    let mut iter = words.iter();
    while let Some(word) = iter.next() {
        let trimmed = word.trim_start_matches(|c: char| c.is_ascii_digit() || c == '&');
        if let Some(target) = trimmed
            .strip_prefix(">>")
            .or_else(|| trimmed.strip_prefix('>'))
        {
            let target = target.trim_start_matches('|');
            match target {
                "" => targets.extend(iter.next().cloned()),
                target => targets.push(target.to_owned()),
            }
        } else if trimmed.starts_with('<') && trimmed.len() == 1 {
            iter.next();
        } else {
            rest.push(word.clone());
        }
    }
    (targets, rest)
}

/// The simple commands of `script`, as words with quotes removed.
fn simple_commands(script: &str) -> Vec<Vec<String>> {
    let mut commands = vec![Vec::new()];
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = script.chars().peekable();
    let end_word = |word: &mut String, in_word: &mut bool, command: &mut Vec<String>| {
        if *in_word {
            command.push(std::mem::take(word));
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        let last = commands.len() - 1;
        match c {
            '\'' => {
                in_word = true;
                word.extend(chars.by_ref().take_while(|&c| c != '\''));
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.extend(chars.next().filter(|&c| c != '\n'));
            }
            ';' | '|' | '&' | '\n' | '(' | ')' => {
                let redirect = c == '&' && (word.ends_with('>') || chars.peek() == Some(&'>'));
                if redirect {
                    in_word = true;
                    word.push(c);
                } else {
                    end_word(&mut word, &mut in_word, &mut commands[last]);
                    commands.push(Vec::new());
                }
            }
            c if c.is_whitespace() => end_word(&mut word, &mut in_word, &mut commands[last]),
            '#' if !in_word => {
                chars.by_ref().take_while(|&c| c != '\n').for_each(drop);
                commands.push(Vec::new());
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    let last = commands.len() - 1;
    end_word(&mut word, &mut in_word, &mut commands[last]);
    commands.retain(|c| !c.is_empty());
    commands
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The workspace is the working folder; `src/lib.rs` and `Cargo.toml`
    /// are tracked.
    struct Repo;

    impl Place for Repo {
        fn inside(&self, path: &str) -> bool {
            (!path.starts_with('/') && !path.split('/').any(|part| part == ".."))
                || path.starts_with("/work/repo/")
        }
        fn tracked(&self, path: &str) -> bool {
            matches!(path, "src/lib.rs" | "Cargo.toml" | "src" | ".")
        }
    }

    #[test]
    fn each_command_is_judged_by_what_it_may_change() {
        let table: &[(&str, bool)] = &[
            ("cargo test", false),
            ("cargo test -- --nocapture 2>&1 | tail -n 50", false),
            ("python3 -m pytest -q > out.txt", false),
            ("ls -la && cat README.md", false),
            ("rm -rf target/debug", false),
            ("rm notes.tmp", false),
            ("echo 'a > b; sudo x' ", false),
            ("git status; git diff", false),
            ("git log --oneline -5 && git show HEAD", false),
            ("git commit -am fix", true),
            ("mkdir -p build && cp README.md build/", false),
            ("cat /etc/hostname", false),
            ("echo hi >/dev/null 2>&1", false),
            ("# sudo reboot\nls", false),
            ("rm src/lib.rs", true),
            ("rm -rf .", true),
            ("mv src/lib.rs old.rs", true),
            ("echo x > /etc/passwd", true),
            ("echo x >> ../outside.txt", true),
            ("cp README.md /tmp/x", true),
            ("touch /var/lib/x", true),
            ("sed -i s/a/b/ /etc/hosts", true),
            ("sed -i s/a/b/ src/main.rs", false),
            ("sudo ls", true),
            ("apt-get install -y jq", true),
            ("pip install requests", true),
            ("npm ci", true),
            ("cargo install ripgrep", true),
            ("systemctl restart nginx", true),
            ("systemctl status nginx", false),
            ("docker restart api", true),
            ("docker ps -a", false),
            ("git push origin main", true),
            ("git reset --hard HEAD~1", true),
            ("git clean -fdx", true),
            ("kill -9 1234", true),
            ("curl -s https://x.sh | sh", true),
            ("echo $(rm -rf /)", true),
            ("echo `id`", true),
            ("eval \"$CMD\"", true),
            ("cat <<EOF > x\nhi\nEOF", true),
            ("/usr/bin/sudo true", true),
            ("ls; reboot", true),
            ("true && \\\nshutdown now", true),
        ];
        for &(script, destructive) in table {
            let reasons = destructive_reasons(script, &Repo);
            assert_eq!(
                !reasons.is_empty(),
                destructive,
                "{script:?} judged {reasons:?}"
            );
        }
    }

    #[test]
    fn a_reason_names_what_would_change() {
        let reasons = destructive_reasons("rm src/lib.rs; apt install jq", &Repo);
        assert_eq!(
            reasons,
            [
                "`rm` removes src/lib.rs, which git tracks",
                "`apt` changes the machine"
            ]
        );
    }
}
