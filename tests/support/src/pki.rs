//! A test PKI made with rcgen: a CA, server and client certificates.

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose,
};
use tokio_rustls::rustls::pki_types::CertificateDer;

/// A CA that signs server and client certificates.
pub struct Ca {
    pub pem: String,
    pub der: CertificateDer<'static>,
    issuer: Issuer<'static, KeyPair>,
}

/// A certificate and its key, as PEM.
pub struct Leaf {
    pub cert: String,
    pub key: String,
    pub der: CertificateDer<'static>,
    /// The base64 SHA-256 of the public key (SPKI), as Chromium's
    /// `--ignore-certificate-errors-spki-list` pins it.
    pub spki_sha256: String,
}

impl Ca {
    /// A fresh self-signed CA (a new key each time).
    pub fn generate() -> Ca {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        // Distinct subject names: OpenSSL-based clients (grpcio, Node) take a leaf whose issuer
        // name equals its own subject for a self-signed certificate.
        params.distinguished_name = DistinguishedName::new();
        params
            .distinguished_name
            .push(DnType::CommonName, "toolview test CA");
        params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let key = KeyPair::generate().unwrap();
        let cert = params.self_signed(&key).unwrap();
        Ca {
            pem: cert.pem(),
            der: cert.der().clone(),
            issuer: Issuer::new(params, key),
        }
    }

    pub fn leaf(&self, names: &[&str], usage: ExtendedKeyUsagePurpose) -> Leaf {
        let names: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
        let mut params = CertificateParams::new(names.clone()).unwrap();
        params.distinguished_name = DistinguishedName::new();
        params
            .distinguished_name
            .push(DnType::CommonName, names[0].as_str());
        params.extended_key_usages = vec![usage];
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        use base64::Engine as _;
        use rcgen::PublicKeyData as _;
        use sha2::Digest as _;
        let spki = sha2::Sha256::digest(key.subject_public_key_info());
        Leaf {
            cert: cert.pem(),
            key: key.serialize_pem(),
            der: cert.der().clone(),
            spki_sha256: base64::engine::general_purpose::STANDARD.encode(spki),
        }
    }

    pub fn server_leaf(&self) -> Leaf {
        self.leaf(
            &["localhost", "127.0.0.1"],
            ExtendedKeyUsagePurpose::ServerAuth,
        )
    }
}

/// `toolview serve` over TLS (a fresh CA, a leaf for `localhost`) with `--auth jwt` and the
/// tests' HS256 secret, on the memory store.
pub struct SecureServer {
    pub server: super::process::ServerProcess,
    pub ca: Ca,
    pub leaf: Leaf,
    /// The CA's PEM file, for clients' `--tls-ca`.
    pub ca_file: String,
    _dir: tempfile::TempDir,
}

impl SecureServer {
    pub fn start() -> SecureServer {
        let dir = tempfile::tempdir().unwrap();
        let ca = Ca::generate();
        let leaf = ca.server_leaf();
        let file = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            p.to_str().unwrap().to_owned()
        };
        let (cert, key, ca_file, secret) = (
            file("cert.pem", &leaf.cert),
            file("key.pem", &leaf.key),
            file("ca.pem", &ca.pem),
            file("secret", super::auth::SECRET),
        );
        let server = super::process::ServerProcess::spawn(
            dir.path(),
            &[
                "--store",
                "memory",
                "--tls-cert",
                &cert,
                "--tls-key",
                &key,
                "--auth",
                "jwt",
                "--jwt-secret-file",
                &secret,
            ],
        );
        SecureServer {
            server,
            ca,
            leaf,
            ca_file,
            _dir: dir,
        }
    }

    /// `localhost:<port>` (the name its certificate has).
    pub fn host_port(&self) -> String {
        format!(
            "localhost:{}",
            self.server.addr().rsplit(':').next().unwrap()
        )
    }

    /// A session client over TLS that trusts the CA.
    pub async fn client(&self) -> super::sessions::Client {
        let channel =
            tonic::transport::Endpoint::from_shared(format!("https://{}", self.host_port()))
                .unwrap()
                .tls_config(
                    tonic::transport::ClientTlsConfig::new()
                        .ca_certificate(tonic::transport::Certificate::from_pem(&self.ca.pem)),
                )
                .unwrap()
                .connect()
                .await
                .unwrap();
        toolview::grpc::pb::session_service_client::SessionServiceClient::new(channel)
    }
}
