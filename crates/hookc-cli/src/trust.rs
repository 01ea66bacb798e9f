//! Signed and pinned guards (`docs/src/hosts/teams.md`): `hookc keygen`
//! makes an Ed25519 key pair, `hookc sign` signs an artifact's SHA-256
//! digest with it, and `hookc hook --trust PUBKEY` runs only an artifact
//! signed by a trusted key whose bytes are the ones signed; `--pin DIGEST`
//! runs only a policy file whose digest is the pinned one. What is refused
//! is answered with the host's block, as every failure of a hook call.
//!
//! Files, all text:
//! - `hookc.key`: `hookc-ed25519-secret KEY_ID SEED_HEX` (keep it secret);
//! - `hookc.pub`: `hookc-ed25519-public KEY_ID PUBLIC_HEX`;
//! - `ARTIFACT.sig`: `hookc-signature KEY_ID sha256:DIGEST_HEX SIGNATURE_HEX`,
//!   the signature over `hookc-artifact-v1 sha256:DIGEST_HEX`.
//!
//! A key id is the first 8 bytes of the SHA-256 of the public key, in hex.

use ed25519_dalek::{Signature, Signer, SigningKey, Verifier, VerifyingKey};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The first word of each file kind.
const SECRET_TAG: &str = "hookc-ed25519-secret";
const PUBLIC_TAG: &str = "hookc-ed25519-public";
const SIGNATURE_TAG: &str = "hookc-signature";

/// Why a key, a signature or a pin was refused.
#[derive(Debug, Error)]
pub enum TrustError {
    /// A file could not be read or written.
    #[error("`{path}`: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A key or signature file is not one.
    #[error("`{path}` is not a {what} (`hookc keygen` and `hookc sign` write them)")]
    Malformed {
        /// The file.
        path: PathBuf,
        /// What it should be.
        what: &'static str,
    },
    /// The system gave no random bytes for a key.
    #[error("no random bytes for a key: {0}")]
    Random(String),
    /// `--trust` with a policy that is not one artifact.
    #[error(
        "`--trust` runs only a signed artifact: compile the policy (`hookc compile -o guard.hkb`), \
         sign it (`hookc sign guard.hkb --key hookc.key`) and name the `.hkb`"
    )]
    NotAnArtifact,
    /// No `.sig` beside the artifact.
    #[error("the policy `{0}` is not signed (no `{0}.sig`): sign it with `hookc sign`")]
    Unsigned(String),
    /// Signed by a key no `--trust` names.
    #[error("the policy `{artifact}` is signed by key {key_id}, which is not trusted (`--trust` names {trusted})")]
    UntrustedKey {
        /// The artifact.
        artifact: String,
        /// The signer's key id.
        key_id: String,
        /// The trusted key ids.
        trusted: String,
    },
    /// The artifact's bytes are not the ones signed, or the signature is
    /// not the key's.
    #[error("the policy `{artifact}` was changed after it was signed ({found}, signed {signed}): do not run it; sign the reviewed artifact again")]
    Tampered {
        /// The artifact.
        artifact: String,
        /// Its digest now.
        found: String,
        /// The digest signed.
        signed: String,
    },
    /// The signature does not verify.
    #[error("the signature of `{0}` does not verify with its key: do not run it")]
    BadSignature(String),
    /// `--pin` given a number of times other than the policy's files.
    #[error("`--pin` pins each policy file: {pins} `--pin` for {files} file(s); give one digest per file, in their order (`hookc init --pin` writes them)")]
    PinCount {
        /// How many digests were given.
        pins: usize,
        /// How many files the policy has.
        files: usize,
    },
    /// The pinned policy file changed.
    #[error("the policy `{file}` changed since it was pinned ({found}, pinned {pinned}): review the change, then pin it again (`hookc init --pin`, or `hookc init --managed` for a managed install)")]
    PinMismatch {
        /// The file.
        file: String,
        /// Its digest now.
        found: String,
        /// The pinned digest.
        pinned: String,
    },
}

/// `sha256:HEX` of `bytes`: an artifact's digest, as `hookc disasm` prints it
/// and decision logs and pins carry it.
pub fn digest(bytes: &[u8]) -> String {
    hookc::files::artifact_digest(bytes)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex<const N: usize>(text: &str) -> Option<[u8; N]> {
    let bytes = text.as_bytes();
    if bytes.len() != 2 * N {
        return None;
    }
    let mut out = [0u8; N];
    for (i, slot) in out.iter_mut().enumerate() {
        let pair = std::str::from_utf8(bytes.get(2 * i..2 * i + 2)?).ok()?;
        *slot = u8::from_str_radix(pair, 16).ok()?;
    }
    Some(out)
}

fn key_id(public: &VerifyingKey) -> String {
    hex(Sha256::digest(public.as_bytes())
        .get(..8)
        .unwrap_or_default())
}

fn read(path: &Path) -> Result<String, TrustError> {
    std::fs::read_to_string(path).map_err(|source| TrustError::Io {
        path: path.to_owned(),
        source,
    })
}

fn write(path: &Path, text: &str) -> Result<(), TrustError> {
    std::fs::write(path, text).map_err(|source| TrustError::Io {
        path: path.to_owned(),
        source,
    })
}

/// The words of a one-line file that starts with `tag`, when it has `n`.
fn words<'t>(text: &'t str, tag: &str, n: usize) -> Option<Vec<&'t str>> {
    let w: Vec<&str> = text.split_whitespace().collect();
    (w.len() == n && w.first() == Some(&tag)).then_some(w)
}

/// The key bytes of a key file `TAG KEY_ID HEX` (`what` names it in the
/// error).
fn key_file<const N: usize>(
    path: &Path,
    tag: &str,
    what: &'static str,
) -> Result<[u8; N], TrustError> {
    let text = read(path)?;
    words(&text, tag, 3)
        .and_then(|w| unhex(w.get(2)?))
        .ok_or_else(|| TrustError::Malformed {
            path: path.to_owned(),
            what,
        })
}

/// `hookc keygen --out DIR`: writes `DIR/hookc.key` and `DIR/hookc.pub`;
/// returns the key id.
pub fn keygen(dir: &Path) -> Result<(PathBuf, PathBuf, String), TrustError> {
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed).map_err(|e| TrustError::Random(e.to_string()))?;
    let key = SigningKey::from_bytes(&seed);
    let public = key.verifying_key();
    let id = key_id(&public);
    std::fs::create_dir_all(dir).map_err(|source| TrustError::Io {
        path: dir.to_owned(),
        source,
    })?;
    let (secret_path, public_path) = (dir.join("hookc.key"), dir.join("hookc.pub"));
    write(&secret_path, &format!("{SECRET_TAG} {id} {}\n", hex(&seed)))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&secret_path, std::fs::Permissions::from_mode(0o600));
    }
    write(
        &public_path,
        &format!("{PUBLIC_TAG} {id} {}\n", hex(public.as_bytes())),
    )?;
    Ok((secret_path, public_path, id))
}

/// The message a signature signs for an artifact of digest `digest`.
fn message(digest: &str) -> Vec<u8> {
    format!("hookc-artifact-v1 {digest}").into_bytes()
}

/// `hookc sign ARTIFACT --key KEY`: writes `ARTIFACT.sig`; returns its path
/// and the digest signed.
pub fn sign(artifact: &Path, key: &Path) -> Result<(PathBuf, String), TrustError> {
    let seed: [u8; 32] = key_file(key, SECRET_TAG, "hookc secret key")?;
    let key = SigningKey::from_bytes(&seed);
    let bytes = std::fs::read(artifact).map_err(|source| TrustError::Io {
        path: artifact.to_owned(),
        source,
    })?;
    if !hookc::files::is_artifact(&bytes) {
        return Err(TrustError::NotAnArtifact);
    }
    let d = digest(&bytes);
    let signature = key.sign(&message(&d));
    let sig_path = signature_path(artifact);
    write(
        &sig_path,
        &format!(
            "{SIGNATURE_TAG} {} {d} {}\n",
            key_id(&key.verifying_key()),
            hex(&signature.to_bytes())
        ),
    )?;
    Ok((sig_path, d))
}

fn signature_path(artifact: &Path) -> PathBuf {
    let mut name = artifact.as_os_str().to_owned();
    name.push(".sig");
    PathBuf::from(name)
}

/// A trusted public key (`--trust PUBKEY`).
#[derive(Debug, Clone)]
pub struct TrustedKey {
    id: String,
    key: VerifyingKey,
}

/// Reads a public key file.
pub fn trusted_key(path: &Path) -> Result<TrustedKey, TrustError> {
    let what = "hookc public key";
    let bytes: [u8; 32] = key_file(path, PUBLIC_TAG, what)?;
    let key = VerifyingKey::from_bytes(&bytes).map_err(|_| TrustError::Malformed {
        path: path.to_owned(),
        what,
    })?;
    Ok(TrustedKey {
        id: key_id(&key),
        key,
    })
}

/// Checks that the policy `files` (each with the bytes read of it) is
/// one artifact signed by one of `trusted` over exactly those bytes.
pub fn check_signed(
    files: &[(PathBuf, Vec<u8>)],
    trusted: &[TrustedKey],
) -> Result<(), TrustError> {
    let [(artifact, bytes)] = files else {
        return Err(TrustError::NotAnArtifact);
    };
    let name = artifact.display().to_string();
    if !hookc::files::is_artifact(bytes) {
        return Err(TrustError::NotAnArtifact);
    }
    let sig_path = signature_path(artifact);
    let text = match std::fs::read_to_string(&sig_path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(TrustError::Unsigned(name))
        }
        Err(source) => {
            return Err(TrustError::Io {
                path: sig_path,
                source,
            })
        }
    };
    let malformed = || TrustError::Malformed {
        path: sig_path.clone(),
        what: "hookc signature",
    };
    let w = words(&text, SIGNATURE_TAG, 4).ok_or_else(malformed)?;
    let (id, signed, sig_hex) = match w.as_slice() {
        [_, id, signed, sig] => (*id, *signed, *sig),
        _ => return Err(malformed()),
    };
    let Some(key) = trusted.iter().find(|k| k.id == id) else {
        return Err(TrustError::UntrustedKey {
            artifact: name,
            key_id: id.to_owned(),
            trusted: trusted
                .iter()
                .map(|k| k.id.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        });
    };
    let found = digest(bytes);
    if found != signed {
        return Err(TrustError::Tampered {
            artifact: name,
            found,
            signed: signed.to_owned(),
        });
    }
    let sig: [u8; 64] = unhex(sig_hex).ok_or_else(malformed)?;
    key.key
        .verify(&message(signed), &Signature::from_bytes(&sig))
        .map_err(|_| TrustError::BadSignature(name))
}

/// Checks that each policy file (with the bytes read of it) has its
/// pinned digest (one per file, in order).
pub fn check_pin(files: &[(PathBuf, Vec<u8>)], pins: &[String]) -> Result<(), TrustError> {
    if files.len() != pins.len() {
        return Err(TrustError::PinCount {
            pins: pins.len(),
            files: files.len(),
        });
    }
    for ((file, bytes), pinned) in files.iter().zip(pins) {
        let found = digest(bytes);
        if &found != pinned {
            return Err(TrustError::PinMismatch {
                file: file.display().to_string(),
                found,
                pinned: pinned.to_owned(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_refuses_bad_text() {
        let bytes = [0u8, 1, 0xab, 0xff];
        assert_eq!(unhex::<4>(&hex(&bytes)), Some(bytes));
        assert_eq!(unhex::<4>("00"), None);
        assert_eq!(unhex::<2>("zz00"), None);
        assert_eq!(unhex::<2>("é0"), None);
    }

    #[test]
    fn the_digest_is_sha256_of_the_bytes() {
        assert_eq!(
            digest(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
