#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tsa.py DIR: a time-stamp authority for the tests, RFC 3161 over HTTP.

`tsa.py DIR certs` makes, in DIR, with python3-cryptography: ca.pem (a test
CA), other-ca.pem (a CA nobody trusts), and TSA certificates signed by the
CA, each with its key: good (timeStamping EKU, critical), noeku (no EKU),
short (valid until 4 s from now), expired (its validity ended yesterday).
`tsa.py DIR short S` makes short.pem anew, valid for S more seconds.
`tsa.py DIR swap-eku IN OUT` writes OUT, the reply IN with the TSA
certificate inside its token replaced by a twin of good.pem (same key,
issuer and serial) that lacks the timeStamping extended key usage, every
DER length around it made anew: a token no real TSA would sign (openssl
ts -reply refuses such a certificate), for the check that refuses it.
`tsa.py DIR serve` answers a POST to /NAME (NAME one of those) by running
`openssl ts -reply` with that certificate and key on the request's body,
and writes the port it listens on to DIR/port."""
import datetime
import http.server
import os
import subprocess
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

CONFIG = """[ tsa ]
default_tsa = tsa_config
[ tsa_config ]
dir = %s
serial = $dir/serial
crypto_device = builtin
signer_digest = sha256
default_policy = 1.2.3.4.1
digests = sha256, sha384, sha512
accuracy = secs:1
ordering = yes
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256
"""


def name(cn):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def write(path, key, cert):
    open(path + ".key", "wb").write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                      serialization.NoEncryption()))
    open(path + ".pem", "wb").write(cert.public_bytes(serialization.Encoding.PEM))


def certs(d, short_seconds=4):
    now = datetime.datetime.now(datetime.timezone.utc)
    day = datetime.timedelta(days=1)
    cas = {}
    for ca in ("ca", "other-ca"):
        key = ec.generate_private_key(ec.SECP256R1())
        cert = (x509.CertificateBuilder().subject_name(name("evidence test " + ca)).issuer_name(name("evidence test " + ca))
                .public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(now - 2 * day).not_valid_after(now + 365 * day)
                .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
                .sign(key, hashes.SHA256()))
        write(os.path.join(d, ca), key, cert)
        cas[ca] = (key, cert)
    ca_key, ca_cert = cas["ca"]
    for tsa, eku, start, end in (("good", True, now - day, now + 365 * day),
                                 ("noeku", False, now - day, now + 365 * day),
                                 ("short", True, now - day, now + datetime.timedelta(seconds=short_seconds)),
                                 ("expired", True, now - 2 * day, now - day)):
        key = ec.generate_private_key(ec.SECP256R1())
        b = (x509.CertificateBuilder().subject_name(name("evidence test TSA " + tsa)).issuer_name(ca_cert.subject)
             .public_key(key.public_key()).serial_number(x509.random_serial_number())
             .not_valid_before(start).not_valid_after(end)
             .add_extension(x509.KeyUsage(True, True, False, False, False, False, False, False, False), critical=True))
        if eku:
            b = b.add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.TIME_STAMPING]), critical=True)
        write(os.path.join(d, tsa), key, b.sign(ca_key, hashes.SHA256()))
    if os.path.exists(os.path.join(d, "serial")):
        return
    open(os.path.join(d, "serial"), "w").write("01\n")
    open(os.path.join(d, "tsa.cnf"), "w").write(CONFIG % d)


def serve(d):
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            tsa = self.path.strip("/")
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            req = os.path.join(d, "req-%d.tsq" % os.getpid())
            open(req, "wb").write(body)
            p = subprocess.run(["openssl", "ts", "-reply", "-config", os.path.join(d, "tsa.cnf"), "-queryfile", req,
                                "-signer", os.path.join(d, tsa + ".pem"), "-inkey", os.path.join(d, tsa + ".key"),
                                "-out", "-"], capture_output=True)
            if p.returncode or tsa not in ("good", "noeku", "short", "expired"):
                self.send_response(500)
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/timestamp-reply")
            self.send_header("Content-Length", str(len(p.stdout)))
            self.end_headers()
            self.wfile.write(p.stdout)

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    open(os.path.join(d, "port.tmp"), "w").write(str(server.server_address[1]))
    os.rename(os.path.join(d, "port.tmp"), os.path.join(d, "port"))
    server.serve_forever()


def der_parse(b, i=0):
    """One TLV at b[i:]: (tag byte, content bytes, next index)."""
    tag, n = b[i], b[i + 1]
    i += 2
    if n & 0x80:
        k = n & 0x7f
        n = int.from_bytes(b[i:i + k], "big")
        i += k
    return tag, b[i:i + n], i + n


def der_encode(tag, content):
    n = len(content)
    if n < 0x80:
        head = bytes([n])
    else:
        k = (n.bit_length() + 7) // 8
        head = bytes([0x80 | k]) + n.to_bytes(k, "big")
    return bytes([tag]) + head + content


def der_replace(b, old, new):
    """b with the TLV equal to old replaced by new, every length above it
    recomputed (constructed tags are walked, primitive ones kept)."""
    if b == old:
        return new
    out, i = b"", 0
    while i < len(b):
        tag, content, j = der_parse(b, i)
        whole = b[i:j]
        if whole == old:
            out += new
        elif tag & 0x20 and old in content:
            out += der_encode(tag, der_replace(content, old, new))
        else:
            out += whole
        i = j
    return out


def swap_eku(d, src, dst):
    good = x509.load_pem_x509_certificate(open(os.path.join(d, "good.pem"), "rb").read())
    key = serialization.load_pem_private_key(open(os.path.join(d, "good.key"), "rb").read(), None)
    ca_key = serialization.load_pem_private_key(open(os.path.join(d, "ca.key"), "rb").read(), None)
    twin = (x509.CertificateBuilder().subject_name(good.subject).issuer_name(good.issuer)
            .public_key(key.public_key()).serial_number(good.serial_number)
            .not_valid_before(good.not_valid_before).not_valid_after(good.not_valid_after)
            .add_extension(x509.KeyUsage(True, True, False, False, False, False, False, False, False), critical=True)
            .sign(ca_key, hashes.SHA256()))
    old = good.public_bytes(serialization.Encoding.DER)
    reply = open(src, "rb").read()
    assert old in reply, "the reply does not carry good.pem"
    open(dst, "wb").write(der_replace(reply, old, twin.public_bytes(serialization.Encoding.DER)))


def short(d, seconds):
    """Only the short-lived TSA certificate, anew under the same CA."""
    ca_key = serialization.load_pem_private_key(open(os.path.join(d, "ca.key"), "rb").read(), None)
    ca_cert = x509.load_pem_x509_certificate(open(os.path.join(d, "ca.pem"), "rb").read())
    now = datetime.datetime.now(datetime.timezone.utc)
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder().subject_name(name("evidence test TSA short")).issuer_name(ca_cert.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(seconds=seconds))
            .add_extension(x509.KeyUsage(True, True, False, False, False, False, False, False, False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.TIME_STAMPING]), critical=True)
            .sign(ca_key, hashes.SHA256()))
    write(os.path.join(d, "short"), key, cert)


if __name__ == "__main__":
    d = os.path.abspath(sys.argv[1])
    if sys.argv[2] == "short":
        short(d, int(sys.argv[3]))
    elif sys.argv[2] == "swap-eku":
        swap_eku(d, sys.argv[3], sys.argv[4])
    else:
        {"certs": certs, "serve": serve}[sys.argv[2]](d)
