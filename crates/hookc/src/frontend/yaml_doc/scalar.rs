//! Scalar typing: tags and plain scalars read by the YAML 1.2 core schema
//! (null, booleans, integers in three bases, floats), everything else a string.

use crate::diag::Code;
use crate::frontend::doc::NodeKind;
use saphyr_parser::{ScalarStyle, Tag};

/// A typing failure: code, message, optional help.
type TypeError = (Code, String, Option<String>);

const TAG_HELP: &str = "hookc reads the tags `!!str`, `!!int`, `!!float`, `!!bool` and `!!null`";

/// How a tag is written, for messages.
fn tag_text(tag: &Tag) -> String {
    if tag.is_yaml_core_schema() {
        format!("!!{}", tag.suffix)
    } else if tag.handle == "!" {
        format!("!{}", tag.suffix)
    } else if tag.handle.is_empty() && tag.suffix == "!" {
        "!".to_owned()
    } else {
        format!("!<{}{}>", tag.handle, tag.suffix)
    }
}

fn unsupported_tag(tag: &Tag) -> TypeError {
    (
        Code::YamlSyntax,
        format!("unsupported tag `{}`", tag_text(tag)),
        Some(TAG_HELP.to_owned()),
    )
}

/// The non-specific tag `!`: "not a plain scalar", i.e. a string.
fn is_non_specific(tag: &Tag) -> bool {
    tag.handle.is_empty() && tag.suffix == "!"
}

/// Checks the tag of a sequence (`seq`) or mapping.
pub(super) fn check_collection_tag(tag: &Tag, seq: bool) -> Result<(), TypeError> {
    if is_non_specific(tag) {
        return Ok(());
    }
    if !tag.is_yaml_core_schema() {
        return Err(unsupported_tag(tag));
    }
    match (tag.suffix.as_str(), seq) {
        ("seq", true) | ("map", false) => Ok(()),
        ("str" | "int" | "float" | "bool" | "null" | "seq" | "map", _) => Err((
            Code::BadLiteral,
            format!(
                "tag `{}` does not apply to {}",
                tag_text(tag),
                if seq { "a list" } else { "a mapping" }
            ),
            None,
        )),
        _ => Err(unsupported_tag(tag)),
    }
}

/// The value of a scalar: by its tag if it has one, else by the core schema
/// for plain scalars; quoted and block scalars are strings.
pub(super) fn scalar_kind(
    value: &str,
    style: ScalarStyle,
    tag: Option<&Tag>,
) -> Result<NodeKind, TypeError> {
    let Some(tag) = tag else {
        return if style == ScalarStyle::Plain {
            plain_kind(value)
        } else {
            Ok(NodeKind::Str(value.to_owned()))
        };
    };
    if is_non_specific(tag) {
        return Ok(NodeKind::Str(value.to_owned()));
    }
    if !tag.is_yaml_core_schema() {
        return Err(unsupported_tag(tag));
    }
    let not_a = |what: &str| {
        (
            Code::BadLiteral,
            format!("`{value}` is not {what} (tag `{}`)", tag_text(tag)),
            None,
        )
    };
    match tag.suffix.as_str() {
        "str" => Ok(NodeKind::Str(value.to_owned())),
        "int" => match core_int(value)? {
            Some(i) => Ok(NodeKind::Int(i)),
            None => Err(not_a("an integer")),
        },
        "float" => match core_float(value)? {
            Some(f) => Ok(NodeKind::Float(f)),
            None => match core_int(value) {
                // An integer written where a float is wanted: its (nearest) value.
                Ok(Some(i)) => Ok(NodeKind::Float(i as f64)),
                _ => Err(not_a("a number")),
            },
        },
        "bool" => core_bool(value)
            .map(NodeKind::Bool)
            .ok_or_else(|| not_a("a bool")),
        "null" => {
            if is_core_null(value) {
                Ok(NodeKind::Null)
            } else {
                Err(not_a("null"))
            }
        }
        "seq" | "map" => Err((
            Code::BadLiteral,
            format!("tag `{}` does not apply to a scalar", tag_text(tag)),
            None,
        )),
        _ => Err(unsupported_tag(tag)),
    }
}

/// A plain scalar by the YAML 1.2 core schema.
fn plain_kind(value: &str) -> Result<NodeKind, TypeError> {
    if is_core_null(value) {
        return Ok(NodeKind::Null);
    }
    if let Some(b) = core_bool(value) {
        return Ok(NodeKind::Bool(b));
    }
    if let Some(i) = core_int(value)? {
        return Ok(NodeKind::Int(i));
    }
    if let Some(f) = core_float(value)? {
        return Ok(NodeKind::Float(f));
    }
    Ok(NodeKind::Str(value.to_owned()))
}

fn is_core_null(value: &str) -> bool {
    matches!(value, "" | "~" | "null" | "Null" | "NULL")
}

fn core_bool(value: &str) -> Option<bool> {
    match value {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

fn all_digits(s: &str, radix: u32) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_digit(radix))
}

/// A core-schema integer (`[-+]?[0-9]+`, `0o[0-7]+`, `0x[0-9a-fA-F]+`):
/// `Ok(None)` when `value` is not written as one, an error when it does not fit `i64`.
fn core_int(value: &str) -> Result<Option<i64>, TypeError> {
    let (digits, radix) = if let Some(oct) = value.strip_prefix("0o") {
        (oct, 8)
    } else if let Some(hex) = value.strip_prefix("0x") {
        (hex, 16)
    } else {
        let unsigned = value.strip_prefix(['-', '+']).unwrap_or(value);
        if !all_digits(unsigned, 10) {
            return Ok(None);
        }
        (value, 10)
    };
    if radix != 10 && !all_digits(digits, radix) {
        return Ok(None);
    }
    i64::from_str_radix(digits, radix).map(Some).map_err(|_| {
        (
            Code::BadLiteral,
            format!("integer `{value}` does not fit in 64 bits"),
            Some(format!(
                "integers range from {} to {}; quote it to keep it as a string",
                i64::MIN,
                i64::MAX
            )),
        )
    })
}

/// A core-schema float (`1.5`, `-1e3`, `.5`, `.inf`, `-.Inf`, `.nan`, ...):
/// `Ok(None)` when `value` is not written as one, an error when it overflows.
fn core_float(value: &str) -> Result<Option<f64>, TypeError> {
    let unsigned = value.strip_prefix(['-', '+']).unwrap_or(value);
    let negative = value.starts_with('-');
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") {
        return Ok(Some(if negative {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        }));
    }
    if matches!(value, ".nan" | ".NaN" | ".NAN") {
        return Ok(Some(f64::NAN));
    }
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(i) => (unsigned.get(..i).unwrap_or(""), unsigned.get(i + 1..)),
        None => (unsigned, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", frac)) => all_digits(frac, 10),
        Some((int, frac)) => all_digits(int, 10) && (frac.is_empty() || all_digits(frac, 10)),
        None => all_digits(mantissa, 10),
    };
    let exponent_ok =
        exponent.is_none_or(|e| all_digits(e.strip_prefix(['-', '+']).unwrap_or(e), 10));
    if !mantissa_ok || !exponent_ok {
        return Ok(None);
    }
    match value.parse::<f64>() {
        Ok(f) if f.is_finite() => Ok(Some(f)),
        _ => Err((
            Code::BadLiteral,
            format!("number `{value}` is out of range"),
            Some("quote it to keep it as a string".to_owned()),
        )),
    }
}
