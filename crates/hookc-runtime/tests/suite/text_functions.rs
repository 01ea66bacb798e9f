//! Properties of the `when` language's text functions
//! (`hookc_runtime::functions`): path cleaning is idempotent and yields
//! clean paths, `base` and `dir` recombine, `split` and `join` round-trip,
//! the code-point functions agree with a model over `Vec<char>`, the ASCII
//! case functions agree with a per-char model, generated URLs give back
//! their parts, and nothing panics on arbitrary input. Seeded, so a
//! failure reproduces.

use hookc_runtime::functions::{paths, strings, urls};
use hookc_runtime::internals::value::EvalError;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// Runs `test` on `cases` values of `strategy` from a fixed seed.
fn check<S: Strategy>(
    seed: u8,
    cases: u32,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) {
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]),
    );
    if let Err(e) = runner.run(&strategy, test) {
        panic!("{e}");
    }
}

/// Paths built from the elements that matter to cleaning, with or without
/// a root and trailing slashes, plus raw strings over `/`, `.` and letters.
fn path_strategy() -> BoxedStrategy<String> {
    let element = prop::sample::select(vec!["", ".", "..", "...", "a", "b", ".env", "é", "日本"]);
    let built = (
        any::<bool>(),
        prop::collection::vec(element, 0..8),
        any::<bool>(),
    )
        .prop_map(|(rooted, elements, trailing)| {
            let mut p = if rooted {
                String::from("/")
            } else {
                String::new()
            };
            p.push_str(&elements.join("/"));
            if trailing {
                p.push('/');
            }
            p
        });
    prop_oneof![built, "[/.aé]{0,12}"].boxed()
}

#[test]
fn clean_is_idempotent_and_clean() {
    check(1, 4000, path_strategy(), |p| {
        let c = paths::clean(&p);
        prop_assert_eq!(
            paths::clean(&c),
            c.clone(),
            "clean not idempotent on {:?}",
            p
        );
        prop_assert!(!c.is_empty());
        prop_assert!(!c.contains("//"), "{:?} → {:?}", p, c);
        prop_assert!(!c.contains("/./"), "{:?} → {:?}", p, c);
        prop_assert!(c == "/" || !c.ends_with('/'), "{:?} → {:?}", p, c);
        prop_assert_eq!(c.starts_with('/'), p.starts_with('/'));
        let elements: Vec<&str> = c.split('/').filter(|e| !e.is_empty()).collect();
        // `.` only as the whole of an empty relative path.
        prop_assert!(c == "." || !elements.contains(&"."), "{:?} → {:?}", p, c);
        // `..` only leading, and never after the root.
        let first_name = elements.iter().position(|e| *e != "..");
        if let Some(first_name) = first_name {
            prop_assert!(
                !elements[first_name..].contains(&".."),
                "`..` after a name: {:?} → {:?}",
                p,
                c
            );
        }
        if c.starts_with('/') {
            prop_assert!(!elements.contains(&".."), "{:?} → {:?}", p, c);
        }
        Ok(())
    });
}

#[test]
fn base_and_dir_recombine_for_clean_paths() {
    check(2, 4000, path_strategy(), |p| {
        let c = paths::clean(&p).into_owned();
        let (dir, base) = (paths::dir(&c), paths::base(&c));
        if c == "/" {
            prop_assert_eq!(dir.as_ref(), "/");
            prop_assert_eq!(base, "/");
        } else {
            prop_assert!(!base.contains('/'), "base({:?}) = {:?}", c, base);
            prop_assert_eq!(
                paths::join(&dir, base),
                c.clone(),
                "dir {:?} base {:?}",
                dir,
                base
            );
        }
        // `ext` is a suffix of `base` that starts with a dot, or nothing.
        let ext = paths::ext(&c);
        prop_assert!(base.ends_with(ext));
        prop_assert!(ext.is_empty() || ext.starts_with('.'));
        Ok(())
    });
}

#[test]
fn within_matches_a_model_of_element_prefixes() {
    let root = prop_oneof![
        Just(String::from("/")),
        Just(String::from("/proj")),
        Just(String::from("/proj/sub")),
        Just(String::from(".")),
        Just(String::from("proj")),
        Just(String::from("../up")),
    ];
    check(3, 4000, (path_strategy(), root), |(p, root)| {
        let root_c = paths::clean(&root).into_owned();
        let target = if p.starts_with('/') {
            paths::clean(&p).into_owned()
        } else {
            paths::clean(&format!("{root_c}/{p}")).into_owned()
        };
        // The model: element lists, the root's a prefix of the target's,
        // and nothing of the target past it is `..`.
        let elements = |s: &str| -> Vec<String> {
            s.split('/')
                .filter(|e| !e.is_empty() && *e != ".")
                .map(str::to_owned)
                .collect()
        };
        let (r, t) = (elements(&root_c), elements(&target));
        let model = root_c.starts_with('/') == target.starts_with('/')
            && t.len() >= r.len()
            && t[..r.len()] == r[..]
            && t.get(r.len()).is_none_or(|e| e != "..");
        prop_assert_eq!(
            paths::within(&p, &root),
            model,
            "within({:?}, {:?}), target {:?}",
            p,
            root,
            target
        );
        Ok(())
    });
}

#[test]
fn split_and_join_round_trip() {
    let input = (
        "[ab,é日;]{0,16}",
        prop_oneof![Just(","), Just(";"), Just("ab"), Just("é"), Just(",,")],
        prop::option::of(-3i64..6),
    );
    check(4, 4000, input, |(s, sep, limit)| {
        let parts = strings::split(&s, sep, limit);
        match limit {
            Some(0) => prop_assert!(parts.is_empty()),
            _ => prop_assert_eq!(strings::join(&parts, sep), s.clone()),
        }
        if let Some(n) = limit.filter(|n| *n > 0) {
            prop_assert!(parts.len() as i64 <= n);
        }
        if limit.is_none_or(|n| n < 0) {
            prop_assert!(parts.iter().all(|part| !part.contains(sep)));
        }
        Ok(())
    });
}

#[test]
fn split_on_empty_separator_gives_code_points() {
    check(
        5,
        2000,
        ("\\PC{0,10}", prop::option::of(-2i64..12)),
        |(s, limit)| {
            let parts = strings::split(&s, "", limit);
            let chars: Vec<String> = s.chars().map(String::from).collect();
            match limit {
                Some(0) => prop_assert!(parts.is_empty()),
                Some(n) if n > 0 && (n as usize) < chars.len() => {
                    let n = n as usize;
                    prop_assert_eq!(parts.len(), n);
                    prop_assert_eq!(&parts[..n - 1], &chars[..n - 1]);
                    prop_assert_eq!(parts[n - 1], chars[n - 1..].concat());
                }
                _ => prop_assert_eq!(parts, chars),
            }
            Ok(())
        },
    );
}

/// The model of `substring` over code points.
fn substring_model(s: &[char], start: i64, end: Option<i64>) -> Result<String, EvalError> {
    let len = s.len() as i64;
    let end_v = end.unwrap_or(len);
    if start > end_v || start < 0 || start > len || end_v < 0 || end_v > len {
        return Err(EvalError::IndexOutOfRange);
    }
    Ok(s[start as usize..end_v as usize].iter().collect())
}

/// Whether `sub` occurs in `s` at code point `i`.
fn occurs_at(s: &[char], sub: &[char], i: usize) -> bool {
    s.get(i..i + sub.len()) == Some(sub)
}

/// The model of `indexOf` over code points: a scan from `from`.
fn index_of_model(s: &[char], sub: &[char], from: Option<i64>) -> Result<i64, EvalError> {
    let from = from.unwrap_or(0);
    if from < 0 || from > s.len() as i64 {
        return Err(EvalError::IndexOutOfRange);
    }
    Ok((from as usize..=s.len())
        .find(|&i| occurs_at(s, sub, i))
        .map_or(-1, |i| i as i64))
}

/// The model of `lastIndexOf` over code points: a scan down from `from`.
fn last_index_of_model(s: &[char], sub: &[char], from: Option<i64>) -> Result<i64, EvalError> {
    let from = from.unwrap_or(s.len() as i64);
    if from < 0 || from > s.len() as i64 {
        return Err(EvalError::IndexOutOfRange);
    }
    Ok((0..=from as usize)
        .rev()
        .find(|&i| occurs_at(s, sub, i))
        .map_or(-1, |i| i as i64))
}

#[test]
fn code_point_functions_agree_with_a_char_model() {
    // A small alphabet of 1- to 4-byte code points, so substrings recur.
    let text = "[aé日😀]{0,10}";
    let index = prop_oneof![4 => -2i64..13, 1 => any::<i64>()];
    let input = (
        text,
        "[aé日😀]{0,3}",
        index.clone(),
        prop::option::of(index),
    );
    check(6, 6000, input, |(s, sub, a, b)| {
        let chars: Vec<char> = s.chars().collect();
        let sub_chars: Vec<char> = sub.chars().collect();
        prop_assert_eq!(
            strings::substring(&s, a, b).map(str::to_owned),
            substring_model(&chars, a, b),
            "{:?}.substring({}, {:?})",
            s,
            a,
            b
        );
        prop_assert_eq!(
            strings::substring(&s, a, None).map(str::to_owned),
            substring_model(&chars, a, None)
        );
        prop_assert_eq!(
            strings::index_of(&s, &sub, b),
            index_of_model(&chars, &sub_chars, b),
            "{:?}.indexOf({:?}, {:?})",
            s,
            sub,
            b
        );
        prop_assert_eq!(
            strings::last_index_of(&s, &sub, b),
            last_index_of_model(&chars, &sub_chars, b),
            "{:?}.lastIndexOf({:?}, {:?})",
            s,
            sub,
            b
        );
        let truncated = strings::truncate(&s, a);
        if a < 0 {
            prop_assert_eq!(truncated, Err(EvalError::InvalidArgument));
        } else {
            let want: String = chars.iter().take(a as usize).collect();
            prop_assert_eq!(truncated.map(str::to_owned), Ok(want));
        }
        Ok(())
    });
}

#[test]
fn ascii_case_agrees_with_a_per_char_model() {
    check(7, 4000, "\\PC{0,16}|[a-zA-Z0-9 ÆæÉé]{0,16}", |s| {
        let lower: String = s.chars().map(|c| c.to_ascii_lowercase()).collect();
        let upper: String = s.chars().map(|c| c.to_ascii_uppercase()).collect();
        prop_assert_eq!(strings::lower_ascii(&s).into_owned(), lower);
        prop_assert_eq!(strings::upper_ascii(&s).into_owned(), upper);
        // Non-ASCII code points are left exactly as they were.
        let non_ascii = |t: &str| t.chars().filter(|c| !c.is_ascii()).collect::<String>();
        prop_assert_eq!(non_ascii(strings::lower_ascii(&s).as_ref()), non_ascii(&s));
        Ok(())
    });
}

#[test]
fn generated_urls_give_back_their_parts() {
    let input = (
        "[a-zA-Z][a-zA-Z0-9+.-]{0,6}",
        prop::option::of("[a-zA-Z0-9:%]{0,6}"),
        prop_oneof![
            "[a-zA-Z0-9-]{1,8}(\\.[a-zA-Z0-9-]{1,8}){0,3}",
            "\\[[0-9a-fA-F:]{1,12}\\]",
        ],
        prop::option::of(any::<u16>()),
        "(/[a-zA-Z0-9._~-]{0,6}){0,3}",
        "(\\?[a-z=&]{0,6})?(#[a-z]{0,4})?",
    );
    check(
        8,
        4000,
        input,
        |(scheme, userinfo, host, port, path, tail)| {
            let userinfo = userinfo.map(|u| u.replace("%", "%25"));
            let mut u = format!("{scheme}://");
            if let Some(userinfo) = &userinfo {
                u.push_str(userinfo);
                u.push('@');
            }
            u.push_str(&host);
            if let Some(port) = port {
                u.push_str(&format!(":{port}"));
            }
            u.push_str(&path);
            u.push_str(&tail);
            let bare_host = host.trim_start_matches('[').trim_end_matches(']');
            prop_assert_eq!(
                urls::scheme(&u).map(|s| s.into_owned()),
                Some(scheme.to_ascii_lowercase()),
                "{}",
                u
            );
            prop_assert_eq!(
                urls::host(&u).map(|h| h.into_owned()),
                Some(bare_host.to_ascii_lowercase()),
                "{}",
                u
            );
            prop_assert_eq!(urls::port(&u), port.map(i64::from), "{}", u);
            prop_assert_eq!(urls::path(&u).map(|p| p.into_owned()), Some(path), "{}", u);
            Ok(())
        },
    );
}

#[test]
fn nothing_panics_on_arbitrary_input() {
    let text = || prop_oneof!["\\PC{0,12}", "[/.:@\\[\\]%?#\\\\a1 ]{0,12}", ".{0,12}"];
    let int = prop_oneof![-3i64..20, any::<i64>()];
    let input = (text(), text(), text(), int.clone(), prop::option::of(int));
    check(9, 4000, input, |(a, b, c, n, m)| {
        let _ = strings::lower_ascii(&a);
        let _ = strings::upper_ascii(&a);
        let _ = strings::trim(&a);
        let _ = strings::split(&a, &b, m);
        let _ = strings::replace(&a, &b, &c, m);
        let _ = strings::substring(&a, n, m);
        let _ = strings::index_of(&a, &b, m);
        let _ = strings::last_index_of(&a, &b, m);
        let _ = strings::join([&a, &b, &c], &c);
        let _ = strings::truncate(&a, n);
        let _ = paths::clean(&a);
        let _ = paths::base(&a);
        let _ = paths::ext(&a);
        let _ = paths::dir(&a);
        let _ = paths::join(&a, &b);
        let _ = paths::within(&a, &b);
        let _ = urls::scheme(&a);
        let _ = urls::port(&a);
        let _ = urls::path(&a);
        if let Some(host) = urls::host(&a) {
            prop_assert!(!host.is_empty());
            prop_assert!(
                !host.contains(['/', '@', '?', '#', '\\']),
                "{:?} → {:?}",
                a,
                host
            );
            prop_assert!(!host.bytes().any(|b| b.is_ascii_uppercase()));
        }
        Ok(())
    });
}
