#!/usr/bin/env python3
"""Log in and call one API from Python 3 with the `cryptography` package:  python3 login.py

LPS_URL (default http://localhost:3000), LPS_ACCOUNT (default admin), LPS_PASSWORD (required);
LPS_IMG_ID and LPS_IMG_CODE when the captcha is on (from POST /sys/captcha, read by a person).
"""
import base64
import json
import os
import sys
import urllib.error
import urllib.request

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

URL = os.environ.get("LPS_URL") or "http://localhost:3000"


def post(path, body, token=None):
    """POSTs JSON and returns the envelope's data; an envelope with success false ends the program."""
    headers = {"Content-Type": "application/json", "Accept-Language": "en"}
    if token:
        headers["Admin-Token"] = token
    request = urllib.request.Request(URL + path, json.dumps(body).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(request) as answer:
            envelope = json.load(answer)
    except urllib.error.HTTPError as error:  # 4xx and 5xx still carry the envelope
        envelope = json.load(error)
    if not envelope["success"]:
        sys.exit(f"{envelope['code']}: {envelope['message']}")
    return envelope["data"]


def main():
    account = os.environ.get("LPS_ACCOUNT") or "admin"
    password = os.environ["LPS_PASSWORD"]

    # 1. The public key (SPKI PEM).
    key = serialization.load_pem_public_key(post("/sys/publicKey", {})["publicKey"].encode())

    # 2. RSA-OAEP with SHA-256 for the hash AND for MGF1, then base64.
    oaep = padding.OAEP(mgf=padding.MGF1(algorithm=hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
    cipher = base64.b64encode(key.encrypt(password.encode("utf-8"), oaep)).decode("ascii")

    # 3. The login. data.accessToken is the session token (None while a second factor is due).
    body = {"account": account, "password": cipher}
    if os.environ.get("LPS_IMG_ID"):
        body.update(imgId=os.environ["LPS_IMG_ID"], imgCode=os.environ.get("LPS_IMG_CODE", ""))
    result = post("/sys/login", body)
    if result["mfaRequired"]:
        sys.exit("second factor needed: POST /sys/login/mfa {mfaToken, code}")
    token = result["accessToken"]

    # 4. Any other operation: the token in the Admin-Token header (or Authorization: Bearer).
    print("logged in as " + post("/sys/me/info", {}, token)["username"])

    # 5. Log out: the token is dead from now on.
    post("/sys/logout", {}, token)


if __name__ == "__main__":
    main()
