//! Path functions of the `when` language: lexical operations on
//! `/`-separated POSIX paths, with the semantics of Go's `path` package
//! ([`clean`], [`base`], [`dir`], [`join`]) and hookc's own [`ext`] and
//! [`within`].
//!
//! Lexical only: nothing here touches the filesystem, so symbolic links
//! are not followed and `a/../b` is `b` even where `a` is a link. A path is
//! a string of elements separated by `/`; a path starting with `/` is
//! rooted (absolute). Windows paths are not special: `\` is an ordinary
//! character and `C:\x\y` is one relative element, so a policy guarding
//! Windows paths must normalize them itself (`replace('\\', '/')`).

use smallvec::SmallVec;
use std::borrow::Cow;

/// `path.clean(p)`: the shortest path lexically equivalent to `p`, exactly
/// as Go's `path.Clean`:
///
/// 1. runs of `/` become one `/`;
/// 2. `.` elements are removed;
/// 3. a `..` element is removed with the non-`..` element before it;
/// 4. `..` elements right after the root are removed (`/..` is `/`).
///
/// The result ends in `/` only when it is the root `/`; an empty result is
/// `.`. Borrows `p` when it is already clean.
pub fn clean(p: &str) -> Cow<'_, str> {
    if is_clean(p) {
        return Cow::Borrowed(p);
    }
    let rooted = p.starts_with('/');
    let mut kept: Vec<&str> = Vec::new();
    for element in p.split('/') {
        match element {
            "" | "." => {}
            ".." => match kept.last() {
                Some(&last) if last != ".." => {
                    kept.pop();
                }
                // `..` cannot climb above the root; in a relative path it
                // stays, after any `..` already kept.
                _ if rooted => {}
                _ => kept.push(".."),
            },
            name => kept.push(name),
        }
    }
    let mut out = String::with_capacity(p.len());
    if rooted {
        out.push('/');
    }
    out.push_str(&kept.join("/"));
    if out.is_empty() {
        out.push('.');
    }
    if out == p {
        Cow::Borrowed(p)
    } else {
        Cow::Owned(out)
    }
}

/// Whether `p` is its own [`clean`] form: not empty, no empty, `.` or
/// `..` element, no trailing `/` (but the root `/` itself). The common
/// case, answered without building anything.
// PERF: `clean` of a path that is clean already (most paths a guard
// reads) allocated its element list and joined it back (callgrind,
// shell_guard bundled_claude_code: 15% of an evaluation).
fn is_clean(p: &str) -> bool {
    if p == "/" {
        return true;
    }
    if p.is_empty() || p.ends_with('/') {
        return false;
    }
    let body = p.strip_prefix('/').unwrap_or(p);
    split_bytes(body).all(|e| !matches!(e, "" | "." | ".."))
}

/// `p.split('/')`, found byte by byte: `/` is one byte in UTF-8 and never
/// part of another character, so the pieces are the same.
// PERF: `str::split` on a `char` went through its UTF-8 searcher, a
// quarter of `path.startup`'s, `path.secret`'s and `clean`'s time
// (callgrind, bundled Claude Code guard on a 200-character command:
// 127 paths a decision).
fn split_bytes(p: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(p);
    std::iter::from_fn(move || {
        let r = rest?;
        match r.bytes().position(|b| b == b'/') {
            Some(at) => {
                rest = r.get(at + 1..);
                r.get(..at)
            }
            None => rest.take(),
        }
    })
}

/// The non-empty elements of `p`, in order: most paths have few, kept
/// without allocating.
fn elements(p: &str) -> SmallVec<[&str; 8]> {
    split_bytes(p).filter(|e| !e.is_empty()).collect()
}

/// `path.base(p)`: the last element of `p`, as Go's `path.Base`: trailing
/// slashes are removed first; `""` gives `.` and a path of only slashes
/// gives `/`. Not cleaned: `base('a/..')` is `..`.
pub fn base(p: &str) -> &str {
    if p.is_empty() {
        return ".";
    }
    let trimmed = p.trim_end_matches('/');
    if trimmed.is_empty() {
        return "/";
    }
    match trimmed.rfind('/') {
        Some(slash) => trimmed.get(slash.saturating_add(1)..).unwrap_or(trimmed),
        None => trimmed,
    }
}

/// `path.ext(p)`: the extension of [`base`]`(p)`, from its last `.` on
/// (`.gz` for `a.tar.gz`, `.` for `a.`), or `""` when it has none.
///
/// hookc's own rule for dotfiles, not Go's: leading dots of the name do
/// not start an extension, so `.env`, `.bashrc`, `.` and `..` have none
/// (Go's `path.Ext('.env')` is `.env`). A guard asking "is this a `.pem`
/// file" then does not mistake a file named `.pem` for one with the
/// extension, and a guard on env files tests the name:
/// `path.base(p) == '.env' || path.base(p).startsWith('.env.')`.
/// `.env.local` has the extension `.local`.
///
/// Unlike Go, the extension is taken after trailing slashes are removed
/// (`ext('a.d/')` is `.d`), as for `base`.
pub fn ext(p: &str) -> &str {
    let name = base(p).trim_start_matches('.');
    match name.rfind('.') {
        Some(dot) => name.get(dot..).unwrap_or(""),
        None => "",
    }
}

/// `path.dir(p)`: all but the last element of `p`, cleaned, as Go's
/// `path.Dir`: `dir('/a/b/c')` is `/a/b`, `dir('a/')` is `a`,
/// `dir('file')` and `dir('')` are `.`, `dir('/')` is `/`.
pub fn dir(p: &str) -> Cow<'_, str> {
    // Go splits after the last slash, keeping it, and cleans the head.
    let head = match p.rfind('/') {
        Some(slash) => p.get(..slash.saturating_add(1)).unwrap_or(p),
        None => "",
    };
    clean(head)
}

/// `path.join(a, b)`: Go's `path.Join` of two elements: the non-empty
/// ones joined with `/` and cleaned; `""` when both are empty.
/// `join('/proj', '../etc')` is `/etc`; `join('a', '/b')` is `a/b` (an
/// absolute second element does not replace the first, unlike Python's
/// `os.path.join`).
pub fn join(a: &str, b: &str) -> String {
    join_all([a, b])
}

/// Go's variadic `path.Join`: the non-empty elements joined with `/` and
/// cleaned; `""` when there is none.
// PERF: joined in one string, which is the result when it is clean (most
// joins: a command's directory and a relative operand), rather than an
// element list, its join and a copy of the clean form (callgrind, bundled
// Claude Code guard on a 200-character command: `path.resolve` and
// `c.paths()` of 9 commands).
pub fn join_all<'e, I>(elements: I) -> String
where
    I: IntoIterator<Item = &'e str>,
{
    let parts: SmallVec<[&str; 4]> = elements.into_iter().filter(|e| !e.is_empty()).collect();
    // Sized once: growing it reallocated most joins (callgrind).
    let len = parts.iter().map(|p| p.len() + 1).sum::<usize>();
    let mut joined = String::with_capacity(len);
    for (i, element) in parts.into_iter().enumerate() {
        if i > 0 {
            joined.push('/');
        }
        joined.push_str(element);
    }
    if joined.is_empty() {
        return joined;
    }
    clean_owned(joined)
}

/// [`clean`] of an owned path: `p` itself when it is clean already.
pub fn clean_owned(p: String) -> String {
    match clean(&p) {
        // `clean` borrows only the whole of a path that is its own form.
        Cow::Borrowed(_) => p,
        Cow::Owned(cleaned) => cleaned,
    }
}

/// `path.within(p, root)`: whether `p` names `root` or something under it,
/// lexically (nothing is resolved on disk, symbolic links included).
///
/// - Both are cleaned first, so `..` is resolved: `/proj/a/../../etc` is
///   not within `/proj`.
/// - A relative `p` is taken relative to `root`: `within('a/../.env',
///   '/proj')` is true (`/proj/.env`), `within('../x', '/proj')` false.
/// - `p` equal to `root` counts as within.
/// - Elements are compared whole: `/proj2/x` is not within `/proj`.
/// - A relative `root` is relative to an unknown current directory, the
///   same one as a relative `p`'s: `within('x', 'src')` is true, and
///   `within('../x', '.')` false. An absolute `p` is never within a
///   relative `root`, since where that root lies is unknown.
/// - An empty `root` is `.`, the current directory.
pub fn within(p: &str, root: &str) -> bool {
    let root = clean(root);
    let candidate = if p.starts_with('/') {
        clean(p).into_owned()
    } else {
        join(&root, p)
    };
    let candidate = if candidate.is_empty() {
        // Both `root` and `p` were empty: `join` gives `""`, `clean` `.`.
        String::from(".")
    } else {
        candidate
    };
    if candidate == *root {
        return true;
    }
    let rest = match root.as_ref() {
        "/" => candidate.strip_prefix('/'),
        "." if !candidate.starts_with('/') => Some(candidate.as_str()),
        "." => None,
        r => candidate.strip_prefix(r).and_then(|t| t.strip_prefix('/')),
    };
    // A clean path has `..` only at its start, so a rest starting with
    // `..` climbed out of a root made only of `..` elements (`../..`).
    match rest {
        Some(rest) => rest != ".." && !rest.starts_with("../"),
        None => false,
    }
}

/// `path.normal(p)`: `p` as a guard compares it: a `file://` or `file:`
/// scheme removed, a leading `$HOME` or `${HOME}` written `~`, then
/// [`clean`]ed (`~/.ss/../.ssh//id_rsa` is `~/.ssh/id_rsa`).
pub fn normal(p: &str) -> Cow<'_, str> {
    let p = p
        .strip_prefix("file://")
        .or_else(|| p.strip_prefix("file:"))
        .unwrap_or(p);
    let home = ["$HOME", "${HOME}"].iter().find_map(|h| {
        p.strip_prefix(h)
            .filter(|rest| rest.is_empty() || rest.starts_with('/'))
    });
    match home {
        Some(rest) => Cow::Owned(clean(&format!("~{rest}")).into_owned()),
        None => clean(p),
    }
}

/// [`normal`] of an owned path: `p` itself when it is normal already.
pub fn normal_owned(p: String) -> String {
    match normal(&p) {
        // A borrow of `p`'s whole length is `p` (a prefix taken off
        // shortens it).
        Cow::Borrowed(n) if n.len() == p.len() => p,
        n => n.into_owned(),
    }
}

/// `path.resolve(base, p)`: `p` [`normal`]ised, joined to `base` when it
/// is relative; an absolute path or a `~` path stays as it is, cleaned.
pub fn resolve(base: &str, p: &str) -> String {
    let p = normal(p);
    if p.starts_with('/') || p == "~" || p.starts_with("~/") {
        p.into_owned()
    } else {
        join(&normal(base), &p)
    }
}

/// Directories whose every file holds credentials.
const SECRET_DIRS: &[&str] = &[".ssh", ".gnupg", ".password-store", ".aws", ".azure"];

/// Files that hold credentials wherever they are.
const SECRET_FILES: &[&str] = &[
    ".netrc",
    "_netrc",
    ".pgpass",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".vault-token",
    ".terraformrc",
    "credentials.tfrc.json",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    ".htpasswd",
];

/// Files that hold credentials in a directory of that name (the last
/// two elements).
const SECRET_PAIRS: &[(&str, &str)] = &[
    (".docker", "config.json"),
    (".kube", "config"),
    ("gh", "hosts.yml"),
    ("gcloud", "credentials.db"),
    ("gcloud", "application_default_credentials.json"),
    ("gcloud", "access_tokens.db"),
    (".cargo", "credentials"),
    (".cargo", "credentials.toml"),
];

/// Suffixes of a `.env` file that mark it a template, not secrets.
const ENV_TEMPLATES: &[&str] = &[".example", ".sample", ".template", ".dist", ".defaults"];

/// `path.secret(p)`: whether the path `p` ([`normal`]ised) names a file
/// that holds credentials: anything under `.ssh`, `.gnupg`,
/// `.password-store`, `.aws` or `.azure`; `.env` and `.env.*` but the
/// templates (`.env.example`, `.sample`, `.template`, `.dist`,
/// `.defaults`); `.netrc`, `.pgpass`, `.npmrc`, `.pypirc`,
/// `.git-credentials`, `.vault-token`, `.terraformrc`, `.htpasswd`; the
/// private keys `id_rsa`, `id_dsa`, `id_ecdsa`, `id_ed25519` (not their
/// `.pub`); `.docker/config.json`, `.kube/config`, `gh/hosts.yml`,
/// gcloud's credential stores and `.cargo/credentials`. The directories
/// themselves count (`~/.ssh`).
pub fn secret(p: &str) -> bool {
    let p = normal(p);
    let elements = elements(&p);
    if elements.iter().any(|e| SECRET_DIRS.contains(e)) {
        return true;
    }
    let Some(last) = elements.last() else {
        return false;
    };
    if let Some(rest) = last.strip_prefix(".env") {
        if rest.is_empty() || rest.starts_with('.') && !ENV_TEMPLATES.contains(&rest) {
            return true;
        }
    }
    if SECRET_FILES.contains(last) {
        return true;
    }
    let parent = elements.len().checked_sub(2).and_then(|i| elements.get(i));
    parent.is_some_and(|parent| SECRET_PAIRS.contains(&(parent, last)))
}

/// Shell start-up files, run by every new shell.
const STARTUP_FILES: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".kshrc",
    ".cshrc",
    ".tcshrc",
    ".xprofile",
    ".xinitrc",
    "rc.local",
    "crontab",
];

/// Directories whose files the system or a login runs.
const STARTUP_DIRS: &[&[&str]] = &[
    &["LaunchAgents"],
    &["LaunchDaemons"],
    &[".config", "autostart"],
    &[".config", "systemd"],
    &["etc", "systemd"],
    &["etc", "profile.d"],
    &["etc", "init.d"],
    &[".config", "fish"],
    &["cron.d"],
    &["cron.daily"],
    &["cron.hourly"],
    &["spool", "cron"],
];

/// `path.startup(p)`: whether the path `p` ([`normal`]ised) is a file
/// that runs by itself later, at a login or a new shell: shell start-up
/// files (`.bashrc`, `.zshrc`, `.profile`, ... `crontab`, `rc.local`) and
/// what is under `LaunchAgents`, `LaunchDaemons`, `.config/autostart`,
/// `.config/systemd`, `.config/fish`, `/etc/systemd`, `/etc/profile.d`,
/// `/etc/init.d` and the cron directories.
pub fn startup(p: &str) -> bool {
    let p = normal(p);
    let elements = elements(&p);
    if elements.last().is_some_and(|l| STARTUP_FILES.contains(l)) {
        return true;
    }
    STARTUP_DIRS
        .iter()
        .any(|dir| elements.windows(dir.len()).any(|w| w == *dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_reproduces_go_examples() {
        // The example of Go's path.Clean documentation.
        for (input, want) in [
            ("a/c", "a/c"),
            ("a//c", "a/c"),
            ("a/c/.", "a/c"),
            ("a/c/b/..", "a/c"),
            ("/../a/c", "/a/c"),
            ("/../a/b/../././/c", "/a/c"),
            ("", "."),
        ] {
            assert_eq!(clean(input), want, "clean({input:?})");
        }
    }

    #[test]
    fn clean_reproduces_go_test_table() {
        // Go's path_test.go `cleantests`.
        for (input, want) in [
            // Already clean
            ("", "."),
            ("abc", "abc"),
            ("abc/def", "abc/def"),
            ("a/b/c", "a/b/c"),
            (".", "."),
            ("..", ".."),
            ("../..", "../.."),
            ("../../abc", "../../abc"),
            ("/abc", "/abc"),
            ("/", "/"),
            // Remove trailing slash
            ("abc/", "abc"),
            ("abc/def/", "abc/def"),
            ("a/b/c/", "a/b/c"),
            ("./", "."),
            ("../", ".."),
            ("../../", "../.."),
            ("/abc/", "/abc"),
            // Remove doubled slash
            ("abc//def//ghi", "abc/def/ghi"),
            ("//abc", "/abc"),
            ("///abc", "/abc"),
            ("//abc//", "/abc"),
            ("abc//", "abc"),
            // Remove . elements
            ("abc/./def", "abc/def"),
            ("/./abc/def", "/abc/def"),
            ("abc/.", "abc"),
            // Remove .. elements
            ("abc/def/ghi/../jkl", "abc/def/jkl"),
            ("abc/def/../ghi/../jkl", "abc/jkl"),
            ("abc/def/..", "abc"),
            ("abc/def/../..", "."),
            ("/abc/def/../..", "/"),
            ("abc/def/../../..", ".."),
            ("/abc/def/../../..", "/"),
            ("abc/def/../../../ghi/jkl/../../../mno", "../../mno"),
            // Combinations
            ("abc/./../def", "def"),
            ("abc//./../def", "def"),
            ("abc/../../././../def", "../../def"),
        ] {
            assert_eq!(clean(input), want, "clean({input:?})");
        }
    }

    #[test]
    fn clean_edges() {
        assert_eq!(clean("/.."), "/");
        assert_eq!(clean("/../.."), "/");
        assert_eq!(clean("..."), "...");
        assert_eq!(clean("a/.../b"), "a/.../b");
        assert_eq!(clean(".env"), ".env");
        assert_eq!(clean("./.env"), ".env");
        assert_eq!(clean("日本/./語/"), "日本/語");
        assert_eq!(clean("C:\\x\\..\\y"), "C:\\x\\..\\y");
        assert!(matches!(clean("/a/b"), Cow::Borrowed(_)));
        assert!(matches!(clean("/a//b"), Cow::Owned(_)));
    }

    #[test]
    fn base_as_go() {
        for (input, want) in [
            ("", "."),
            (".", "."),
            ("/.", "."),
            ("/", "/"),
            ("////", "/"),
            ("x/", "x"),
            ("abc", "abc"),
            ("abc/def", "def"),
            ("a/b/.x", ".x"),
            ("a/b/c.", "c."),
            ("a/b/c.x", "c.x"),
            ("/a/b", "b"),
            ("/a/b//", "b"),
            ("a/..", ".."),
            ("dir/日本.txt", "日本.txt"),
            ("C:\\dir\\file.txt", "C:\\dir\\file.txt"),
        ] {
            assert_eq!(base(input), want, "base({input:?})");
        }
    }

    #[test]
    fn ext_of_names_and_dotfiles() {
        for (input, want) in [
            ("path.go", ".go"),
            ("path.pb.go", ".go"),
            ("a.tar.gz", ".gz"),
            ("a.dir/b", ""),
            ("a.dir/b.go", ".go"),
            ("a.dir/", ".dir"),
            ("a.", "."),
            ("a", ""),
            ("", ""),
            ("/", ""),
            (".", ""),
            ("..", ""),
            ("...", ""),
            (".env", ""),
            ("/proj/.env", ""),
            (".env.local", ".local"),
            ("..a.b", ".b"),
            ("/home/u/.bashrc", ""),
            ("/x/key.PEM", ".PEM"),
            ("日本.テキスト", ".テキスト"),
        ] {
            assert_eq!(ext(input), want, "ext({input:?})");
        }
    }

    #[test]
    fn dir_as_go() {
        for (input, want) in [
            ("", "."),
            (".", "."),
            ("/.", "/"),
            ("/", "/"),
            ("////", "/"),
            ("/foo", "/"),
            ("x/", "x"),
            ("abc", "."),
            ("abc/def", "abc"),
            ("abc////def", "abc"),
            ("a/b/.x", "a/b"),
            ("a/b/c.", "a/b"),
            ("a/b/c.x", "a/b"),
            ("/a/b/c", "/a/b"),
            ("a/b/c", "a/b"),
            ("/a/", "/a"),
            ("a/", "a"),
            ("../x", ".."),
            ("a/../../x", ".."),
        ] {
            assert_eq!(dir(input), want, "dir({input:?})");
        }
    }

    #[test]
    fn resolve_keeps_absolute_and_home_paths() {
        assert_eq!(resolve("/proj", "a.py"), "/proj/a.py");
        assert_eq!(resolve("/proj", "./x/../a.py"), "/proj/a.py");
        assert_eq!(resolve("/proj", "/tmp/a.sh"), "/tmp/a.sh");
        assert_eq!(resolve("/proj", "~/bin/x"), "~/bin/x");
        assert_eq!(resolve("/proj", "$HOME/x"), "~/x");
        assert_eq!(resolve("/proj", "file:a.py"), "/proj/a.py");
        assert_eq!(resolve("", "a.py"), "a.py");
    }

    #[test]
    fn join_as_go() {
        assert_eq!(join("a", "b"), "a/b");
        assert_eq!(join("a", ""), "a");
        assert_eq!(join("", "b"), "b");
        assert_eq!(join("/", "a"), "/a");
        assert_eq!(join("/", ""), "/");
        assert_eq!(join("a/", "b"), "a/b");
        assert_eq!(join("a/", ""), "a");
        assert_eq!(join("", ""), "");
        assert_eq!(join("a", "/b"), "a/b");
        assert_eq!(join("/proj", "../etc"), "/etc");
        assert_eq!(join_all(["a", "b", "c"]), "a/b/c");
        assert_eq!(join_all(["a", "", "c"]), "a/c");
        assert_eq!(join_all(Vec::<&str>::new()), "");
        assert_eq!(join_all(["", ""]), "");
        assert_eq!(join_all(["", "/", "x"]), "/x");
    }

    /// A xorshift generator from `seed`: `next(n)` is below `n`, the same
    /// sequence on every run.
    fn xorshift(mut seed: u64) -> impl FnMut(usize) -> usize {
        move |n| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        }
    }

    /// `split_bytes` is `str::split('/')`, on random paths of the
    /// characters that matter (and multi-byte ones), whether or not they
    /// are clean; `elements` keeps its non-empty pieces.
    #[test]
    fn byte_split_is_str_split() {
        let pieces = ["", "/", "//", ".", "..", "a", "é", "日本", "🦀/x", "b.c"];
        let mut next = xorshift(0x0b17_e5ed_u64);
        for _ in 0..5000 {
            let p: String = (0..next(7)).map(|_| pieces[next(pieces.len())]).collect();
            let by_str: Vec<&str> = p.split('/').collect();
            assert_eq!(split_bytes(&p).collect::<Vec<_>>(), by_str, "{p:?}");
            let nonempty: Vec<&str> = by_str.into_iter().filter(|e| !e.is_empty()).collect();
            assert_eq!(elements(&p).to_vec(), nonempty, "{p:?}");
        }
    }

    /// The owned forms give what the borrowed ones give, on random paths
    /// of the characters that matter (separators, dots, the prefixes
    /// `normal` reads), whether or not they are clean already; and a join
    /// is Go's, the non-empty elements joined and cleaned.
    #[test]
    fn owned_forms_agree_with_the_borrowed_ones() {
        let pieces = [
            "", "/", "//", ".", "..", "a", "b.c", "~", "$HOME", "${HOME}", "file:", "file://",
        ];
        let mut next = xorshift(0x51a7_e0ff_u64);
        let mut path =
            |n: usize| -> String { (0..n).map(|_| pieces[next(pieces.len())]).collect() };
        for _ in 0..5000 {
            let (a, b) = (path(4), path(4));
            assert_eq!(clean_owned(a.clone()), clean(&a), "{a:?}");
            assert_eq!(normal_owned(a.clone()), normal(&a), "{a:?}");
            let nonempty: Vec<&str> = [&*a, &*b].into_iter().filter(|e| !e.is_empty()).collect();
            let go = if nonempty.is_empty() {
                String::new()
            } else {
                clean(&nonempty.join("/")).into_owned()
            };
            assert_eq!(join(&a, &b), go, "{a:?} {b:?}");
        }
    }

    #[test]
    fn within_absolute_root() {
        let yes = [
            ("/proj", "/proj"),
            ("/proj/", "/proj"),
            ("/proj/a", "/proj"),
            ("/proj/a/b.txt", "/proj/"),
            ("/proj/./a", "/proj"),
            ("/proj//a", "/proj"),
            ("a/../.env", "/proj"),
            ("a", "/proj"),
            ("", "/proj"),
            (".", "/proj"),
            ("/anything", "/"),
            ("/", "/"),
            ("x", "/"),
            ("/proj/a/..", "/proj"),
            ("/proj/..proj", "/proj"),
        ];
        for (p, root) in yes {
            assert!(within(p, root), "within({p:?}, {root:?})");
        }
        let no = [
            ("../x", "/proj"),
            ("..", "/proj"),
            ("/proj2/x", "/proj"),
            ("/proj2", "/proj"),
            ("/pro", "/proj"),
            ("/", "/proj"),
            ("/proj/../etc/passwd", "/proj"),
            ("/proj/a/../../etc", "/proj"),
            ("a/../../proj2", "/proj"),
            ("/etc/passwd", "/proj"),
        ];
        for (p, root) in no {
            assert!(!within(p, root), "!within({p:?}, {root:?})");
        }
    }

    #[test]
    fn within_relative_root() {
        let yes = [
            ("x", "src"),
            ("src", "."),
            ("src/x", "."),
            ("", ""),
            (".", ""),
            ("x", ""),
            ("x", "."),
            ("a/..", "."),
            ("x", "../a"),
            ("x", "../.."),
        ];
        for (p, root) in yes {
            assert!(within(p, root), "within({p:?}, {root:?})");
        }
        let no = [
            ("../x", "."),
            ("..", "."),
            ("..", ""),
            ("../x", "src"),
            ("../../x", "src"),
            ("..", "../.."),
            ("../x", "../.."),
            ("/etc", "."),
            ("/etc", "src"),
            ("/src/x", "src"),
        ];
        for (p, root) in no {
            assert!(!within(p, root), "!within({p:?}, {root:?})");
        }
    }

    #[test]
    fn windows_paths_are_not_special() {
        assert_eq!(base("C:\\Users\\me\\.env"), "C:\\Users\\me\\.env");
        assert_eq!(dir("C:\\Users\\me"), ".");
        assert!(within("C:\\evil", "/proj"));
        // A drive path is relative, so it is taken relative to the root:
        // a guard on Windows paths must normalize them first.
        assert!(within("C:/x", "C:/y"));
    }
}

#[cfg(test)]
mod fact_tests {
    use super::*;

    #[test]
    fn clean_paths_are_borrowed() {
        for p in ["/", "a", "/a/b", "~/.ssh/id_rsa", ".env", "a.b/c..d"] {
            assert!(matches!(clean(p), Cow::Borrowed(_)), "{p}");
            assert_eq!(clean(p), p);
        }
        for (p, want) in [
            ("", "."),
            (".", "."),
            ("a/", "a"),
            ("//a", "/a"),
            ("a/./b", "a/b"),
            ("../a", "../a"),
            ("a/..", "."),
        ] {
            assert_eq!(clean(p), want, "{p}");
        }
    }

    #[test]
    fn normal_forms() {
        assert_eq!(normal("$HOME/.ssh//id_rsa"), "~/.ssh/id_rsa");
        assert_eq!(normal("${HOME}"), "~");
        assert_eq!(normal("$HOMEDIR/x"), "$HOMEDIR/x");
        assert_eq!(normal("file:~/.ssh/id_ed25519"), "~/.ssh/id_ed25519");
        assert_eq!(normal("file:///etc/passwd"), "/etc/passwd");
    }

    #[test]
    fn secrets_and_look_alikes() {
        for p in [
            "~/.ssh/id_rsa",
            "/home/u/.ssh",
            "$HOME/.aws/credentials",
            ".env",
            "app/.env.local",
            "/p/.env.production",
            "~/.netrc",
            "keys/id_ed25519",
            "~/.docker/config.json",
            "~/.kube/config",
            "~/.config/gh/hosts.yml",
            "file:~/.ssh/id_ed25519",
        ] {
            assert!(secret(p), "{p}");
        }
        for p in [
            ".env.example",
            "x/.env.sample",
            ".envrc.md",
            "src/env.rs",
            "~/.ssh.md",
            "id_rsa.pub",
            "config",
            "docs/ssh.md",
            "",
        ] {
            assert!(!secret(p), "{p}");
        }
    }

    #[test]
    fn startup_files() {
        for p in [
            "~/.zshrc",
            "/home/u/.bashrc",
            "~/Library/LaunchAgents/x.plist",
            "~/.config/systemd/user/x.service",
            "/etc/profile.d/x.sh",
            "~/.config/fish/config.fish",
        ] {
            assert!(startup(p), "{p}");
        }
        for p in [
            "src/profile.rs",
            "bashrc.md",
            "docs/systemd.md",
            "~/.config/x",
        ] {
            assert!(!startup(p), "{p}");
        }
    }
}
