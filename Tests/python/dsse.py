"""DSSE envelopes signed by an independent party (`openssl pkeyutl -rawin`), for tests that need signed documents
packtool did not write: an index binding a revocation list, a published tree's index."""
import base64
import datetime
import hashlib
import json
import os
import shutil
import subprocess
import tempfile

KEYS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "keys-example")


def envelope(payload, payload_type, key):
    """A DSSE envelope over `payload` (bytes), signed with the Ed25519 PEM `key`."""
    pae = b"DSSEv1 %d %s %d %s" % (len(payload_type), payload_type.encode(), len(payload), payload)
    # OpenSSL 3.0 reads Ed25519 input for -rawin from a file only.
    with tempfile.NamedTemporaryFile() as message:
        message.write(pae)
        message.flush()
        sig = subprocess.run(["openssl", "pkeyutl", "-sign", "-rawin", "-inkey", key, "-in", message.name], check=True, capture_output=True).stdout
    der = subprocess.run(["openssl", "pkey", "-in", key, "-pubout", "-outform", "DER"], check=True, capture_output=True).stdout
    signed = {"payloadType": payload_type, "payload": base64.b64encode(payload).decode(),
              "signatures": [{"keyid": hashlib.sha256(der[-32:]).hexdigest(), "sig": base64.b64encode(sig).decode()}]}
    return json.dumps(signed, sort_keys=True).encode()


def example_keys():
    """The repository's example key folder, its private keys made 0600 first (packtool refuses a private key others
    can read, and git does not keep file modes)."""
    for pem in os.listdir(KEYS):
        if pem.endswith(".pem"):
            os.chmod(os.path.join(KEYS, pem), 0o600)
    return KEYS


def root_init(tool, state):
    """`packtool root init` of a catalogue under the example keys, its state in `state`."""
    keys = example_keys()
    subprocess.run([tool, "root", "init", "--state", state, "--root-key", f"{keys}/root.pem", "--manifest-pub", f"{keys}/manifest.pub",
                    "--index-pub", f"{keys}/index.pub", "--grant-pub", f"{keys}/grant.pub"], check=True, capture_output=True)


def catalogue_tree(tool, work, tree):
    """Makes `tree` a published tree of an empty catalogue (the example keys): root/1.root.json and an index naming no
    pack, which upload checks before anything is sent. Objects a test adds are uploaded as ones the index does not
    sign."""
    state = os.path.join(work, "catalogue-state")
    root_init(tool, state)
    os.makedirs(os.path.join(tree, "root"), exist_ok=True)
    shutil.copy(os.path.join(state, "root", "1.root.json"), os.path.join(tree, "root", "1.root.json"))
    now = datetime.datetime.now(datetime.timezone.utc)
    index = {"type": "index", "version": 1, "created": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
             "expires": (now + datetime.timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ"), "rootVersion": 1, "packs": {}}
    with open(os.path.join(tree, "index.json"), "wb") as f:
        f.write(envelope(json.dumps(index, sort_keys=True, separators=(",", ":")).encode(), "application/vnd.packtool.index+json", f"{KEYS}/index.pem"))
