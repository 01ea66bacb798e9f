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
pub fn join_all<'e, I>(elements: I) -> String
where
    I: IntoIterator<Item = &'e str>,
{
    let nonempty: Vec<&str> = elements.into_iter().filter(|e| !e.is_empty()).collect();
    if nonempty.is_empty() {
        return String::new();
    }
    clean(&nonempty.join("/")).into_owned()
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
