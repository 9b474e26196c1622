//! A self-signed certificate for the simulated HTTPS APIs, and its SHA-256 pin.

use std::sync::Arc;

use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// A server configuration for `localhost`/127.0.0.1 and the certificate's fingerprint as a
/// config writes it (`sha256:<hex>`), with the raw digest.
pub fn self_signed() -> (Arc<rustls::ServerConfig>, String, [u8; 32]) {
    let made =
        rcgen::generate_simple_self_signed(vec!["localhost".into(), "127.0.0.1".into()]).unwrap();
    let der: CertificateDer<'static> = made.cert.der().clone();
    let digest = gameserver_exporter::net::tls::fingerprint(der.as_ref());
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(made.signing_key.serialize_der()));
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![der], key)
        .unwrap();
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    (Arc::new(config), format!("sha256:{hex}"), digest)
}
