"""RSA keys and a TLS certificate for the fake server (fake_mysql.py): what a hostile server
holds, so that a test can show what it could read of what the client sent, and what an honest
one holds, so that a test can show a user's key file or a verified certificate still logs in."""

import datetime
import ipaddress
from functools import lru_cache
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.x509.oid import NameOID


@lru_cache(maxsize=None)
def key(name: str) -> rsa.RSAPrivateKey:
    """A 2048-bit RSA key by name, made once in a session (making one takes a moment)."""
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def public_pem(private) -> bytes:
    return private.public_key().public_bytes(serialization.Encoding.PEM,
                                             serialization.PublicFormat.SubjectPublicKeyInfo)


def ec_public_pem() -> bytes:
    """A public key in PEM that is not RSA: what a key file must not be."""
    return public_pem(ec.generate_private_key(ec.SECP256R1()))


def decrypts_to(private, packet: bytes, password: bytes, salt: bytes) -> bool:
    """Whether packet is password encrypted to private's public key, as sha256_password and
    caching_sha2_password send it: OAEP with SHA-1, of the password and a NUL XORed with the
    salt's first 20 bytes."""
    try:
        plain = private.decrypt(packet, padding.OAEP(mgf=padding.MGF1(hashes.SHA1()),
                                                     algorithm=hashes.SHA1(), label=None))
    except ValueError:
        return False
    salt = salt[:20]
    return bytes(b ^ salt[i % len(salt)] for i, b in enumerate(plain)) == password + b"\0"


def certificate(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key, as files (cert, key): given as
    ssl-ca it verifies; without ssl-ca, PyMySQL's TLS takes it (or any other) unchecked."""
    private = key("tls")
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "fake-mysql")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(private.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.SubjectAlternativeName([
                x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                x509.DNSName("localhost")]), critical=False)
            .sign(private, hashes.SHA256()))
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(private.private_bytes(serialization.Encoding.PEM,
                                               serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
    return cert_path, key_path
