#!/usr/bin/env python3
"""tsa.py DIR: a time-stamp authority for the tests, RFC 3161 over HTTP.

`tsa.py DIR certs` makes, in DIR, with python3-cryptography: ca.pem (a test
CA), other-ca.pem (a CA nobody trusts), and TSA certificates signed by the
CA, each with its key: good (timeStamping EKU, critical), noeku (no EKU),
short (valid until 4 s from now), expired (its validity ended yesterday).
`tsa.py DIR short S` makes short.pem anew, valid for S more seconds.
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
    else:
        {"certs": certs, "serve": serve}[sys.argv[2]](d)
