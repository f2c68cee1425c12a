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
    pub fn new() -> Ca {
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
