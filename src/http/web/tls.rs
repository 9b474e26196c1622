//! The TLS side of the web config: certificates and keys read from PEM files
//! (rustls-pki-types), a rustls server configuration on the ring provider, and the client
//! certificate policy of exporter-toolkit's `client_auth_type`.
//!
//! The acceptor is built once per (re)load; the accept loop takes the current one for each new
//! connection, so a reload (a renewed certificate, a new policy) applies to new connections
//! while open ones finish on what they negotiated.

use std::sync::Arc;

use rustls::client::danger::HandshakeSignatureValid;
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::server::WebPkiClientVerifier;
use rustls::{
    DigitallySignedStruct, DistinguishedName, RootCertStore, ServerConfig, SignatureScheme,
};
use tokio_rustls::TlsAcceptor;

use super::config::{ClientAuth, TlsSettings, TlsVersion};

/// Builds the acceptor for `t`, reading its files now. Errors name the file or the key.
pub fn acceptor(t: &TlsSettings) -> Result<TlsAcceptor, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(&t.cert_file)
        .and_then(|it| it.collect::<Result<_, _>>())
        .map_err(|e| format!("tls_server_config.cert_file {}: {e}", t.cert_file.display()))?;
    if certs.is_empty() {
        return Err(format!(
            "tls_server_config.cert_file {}: no CERTIFICATE in the file",
            t.cert_file.display()
        ));
    }
    let key = PrivateKeyDer::from_pem_file(&t.key_file)
        .map_err(|e| format!("tls_server_config.key_file {}: {e}", t.key_file.display()))?;
    let versions: Vec<&'static rustls::SupportedProtocolVersion> = [
        (TlsVersion::Tls12, &rustls::version::TLS12),
        (TlsVersion::Tls13, &rustls::version::TLS13),
    ]
    .into_iter()
    .filter(|(v, _)| (t.min_version..=t.max_version).contains(v))
    .map(|(_, p)| p)
    .collect();
    let builder = ServerConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&versions)
        .map_err(|e| format!("tls_server_config: {e}"))?;
    let builder = match t.client_auth {
        ClientAuth::NoClientCert => builder.with_no_client_auth(),
        ClientAuth::RequestClientCert | ClientAuth::RequireAnyClientCert => builder
            .with_client_cert_verifier(Arc::new(AnyClientCert {
                mandatory: t.client_auth == ClientAuth::RequireAnyClientCert,
                algorithms: provider.signature_verification_algorithms,
            })),
        ClientAuth::VerifyClientCertIfGiven | ClientAuth::RequireAndVerifyClientCert => {
            let Some(ca_file) = &t.client_ca_file else {
                return Err("tls_server_config.client_ca_file is missing".into());
            };
            let mut roots = RootCertStore::empty();
            let cas = CertificateDer::pem_file_iter(ca_file)
                .and_then(|it| it.collect::<Result<Vec<_>, _>>())
                .map_err(|e| {
                    format!(
                        "tls_server_config.client_ca_file {}: {e}",
                        ca_file.display()
                    )
                })?;
            let (added, _) = roots.add_parsable_certificates(cas);
            if added == 0 {
                return Err(format!(
                    "tls_server_config.client_ca_file {}: no usable CA certificate",
                    ca_file.display()
                ));
            }
            let mut v = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider);
            if t.client_auth == ClientAuth::VerifyClientCertIfGiven {
                v = v.allow_unauthenticated();
            }
            let v = v.build().map_err(|e| {
                format!(
                    "tls_server_config.client_ca_file {}: {e}",
                    ca_file.display()
                )
            })?;
            builder.with_client_cert_verifier(v)
        }
    };
    let mut config = builder.with_single_cert(certs, key).map_err(|e| {
        format!(
            "tls_server_config: cert_file {} and key_file {}: {e}",
            t.cert_file.display(),
            t.key_file.display()
        )
    })?;
    // The server speaks HTTP/1.1 only; saying so lets a client that offers h2 fall back.
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// Go's `RequestClientCert` and `RequireAnyClientCert`: any certificate is accepted without a
/// chain check, but the handshake signature is still verified, so the client has proven it
/// holds the certificate's key. The exporter derives nothing from the certificate; the policy
/// exists so a toolkit file that names it keeps working.
#[derive(Debug)]
struct AnyClientCert {
    mandatory: bool,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ClientCertVerifier for AnyClientCert {
    fn client_auth_mandatory(&self) -> bool {
        self.mandatory
    }

    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &[]
    }

    fn verify_client_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        Ok(ClientCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}
