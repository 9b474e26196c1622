//! The HTTP client's TLS settings ([`crate::target::Tls`]) as rustls client configurations:
//! verified against Mozilla's roots (compiled in: the container image has no system store),
//! pinned to the leaf certificate's SHA-256 (self-signed servers such as Satisfactory's), or,
//! only when the target says `tls_insecure = true`, unverified.
//!
//! Pinned and insecure connections still check the handshake signature against the
//! certificate's key (rustls' own functions), so a pin cannot be passed by someone who only
//! copied the certificate.

use std::sync::{Arc, OnceLock};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, SignatureScheme};

use crate::target::Tls;

/// The client configuration for `tls`; `None` for plain HTTP.
pub fn client_config(tls: &Tls) -> Option<Arc<ClientConfig>> {
    match tls {
        Tls::Off => None,
        Tls::Verify => {
            static VERIFIED: OnceLock<Arc<ClientConfig>> = OnceLock::new();
            Some(VERIFIED.get_or_init(verified).clone())
        }
        Tls::Pinned(sha256) => Some(with_verifier(Arc::new(Check {
            pin: Some(**sha256),
            provider: provider(),
        }))),
        Tls::Insecure => {
            static INSECURE: OnceLock<Arc<ClientConfig>> = OnceLock::new();
            let config = INSECURE.get_or_init(|| {
                with_verifier(Arc::new(Check {
                    pin: None,
                    provider: provider(),
                }))
            });
            Some(config.clone())
        }
    }
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

fn builder() -> rustls::ConfigBuilder<ClientConfig, rustls::WantsVerifier> {
    // The ring provider supports the safe defaults, so this cannot fail; if it ever did, the
    // fallback is the same protocol list spelled out.
    ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .unwrap_or_else(|_| {
            ClientConfig::builder_with_provider(provider())
                .with_protocol_versions(rustls::ALL_VERSIONS)
                .unwrap_or_else(|_| unreachable!("ring supports TLS 1.2 and 1.3"))
        })
}

fn verified() -> Arc<ClientConfig> {
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    let mut config = builder()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Arc::new(config)
}

fn with_verifier(verifier: Arc<Check>) -> Arc<ClientConfig> {
    let mut config = builder()
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Arc::new(config)
}

/// The SHA-256 of a certificate (DER), as pins are written.
pub fn fingerprint(cert: &[u8]) -> [u8; 32] {
    let digest = ring::digest::digest(&ring::digest::SHA256, cert);
    let mut out = [0; 32];
    out.copy_from_slice(digest.as_ref());
    out
}

/// A verifier that checks the leaf certificate's fingerprint against a pin, or (no pin:
/// `tls_insecure`) nothing about the certificate; the handshake signatures always.
#[derive(Debug)]
struct Check {
    pin: Option<[u8; 32]>,
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for Check {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.pin {
            Some(pin) if fingerprint(end_entity.as_ref()) != pin => Err(rustls::Error::General(
                "certificate does not match tls_fingerprint".into(),
            )),
            _ => Ok(ServerCertVerified::assertion()),
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}
