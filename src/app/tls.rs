//! TLS for the one port: rustls with the `ring` provider (the one crypto provider of the
//! binary), ALPN `h2` and `http/1.1` so gRPC, gRPC-Web and the viewer all work over it,
//! optional client certificates, and a configuration that is swapped on reload: a connection
//! keeps the one it was accepted with, new connections get the new one.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;
use parking_lot::RwLock;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::crypto::{CryptoProvider, ring};
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::server::WebPkiClientVerifier;
use tokio_rustls::rustls::{RootCertStore, ServerConfig};

/// The PEM files TLS is configured from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    /// The certificate chain, leaf first.
    pub cert: PathBuf,
    /// The private key.
    pub key: PathBuf,
    /// CAs client certificates must chain to; with it, a client certificate is required.
    pub client_ca: Option<PathBuf>,
}

/// The server's TLS configuration, reloadable.
pub struct Tls {
    files: TlsFiles,
    current: RwLock<Arc<ServerConfig>>,
}

impl Tls {
    /// Loads the files; errors name the file.
    pub fn load(files: TlsFiles) -> anyhow::Result<Self> {
        let config = server_config(&files)?;
        Ok(Tls {
            files,
            current: RwLock::new(config),
        })
    }

    /// Reads the files again; on an error the old configuration stays.
    pub fn reload(&self) -> anyhow::Result<()> {
        let config = server_config(&self.files)?;
        *self.current.write() = config;
        Ok(())
    }

    /// An acceptor with the current configuration.
    pub fn acceptor(&self) -> TlsAcceptor {
        TlsAcceptor::from(self.current.read().clone())
    }
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(ring::default_provider())
}

fn certificates(path: &Path) -> anyhow::Result<Vec<CertificateDer<'static>>> {
    let certs = CertificateDer::pem_file_iter(path)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .with_context(|| format!("reading certificates from {}", path.display()))?;
    if certs.is_empty() {
        anyhow::bail!("no certificate in {}", path.display());
    }
    Ok(certs)
}

fn server_config(files: &TlsFiles) -> anyhow::Result<Arc<ServerConfig>> {
    let chain = certificates(&files.cert)?;
    let key = PrivateKeyDer::from_pem_file(&files.key)
        .with_context(|| format!("reading the private key from {}", files.key.display()))?;
    let builder = ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .context("TLS protocol versions")?;
    let builder = match &files.client_ca {
        None => builder.with_no_client_auth(),
        Some(path) => {
            let mut roots = RootCertStore::empty();
            for cert in certificates(path)? {
                roots
                    .add(cert)
                    .with_context(|| format!("a client CA in {}", path.display()))?;
            }
            let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider())
                .build()
                .with_context(|| format!("the client CAs in {}", path.display()))?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let mut config = builder
        .with_single_cert(chain, key)
        .with_context(|| format!("the certificate {} and its key", files.cert.display()))?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}
