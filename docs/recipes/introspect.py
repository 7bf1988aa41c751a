#!/usr/bin/env python3
"""Check a caller's token with an API key from Python 3, standard library only:  python3 introspect.py

What a gateway or another service does with the token a client sent it.
LPS_URL (default http://localhost:3000), LPS_API_KEY (required: an API key holding
sys:token:introspect), LPS_TOKEN (required: the client's token), LPS_IP (the client's IP, optional).
"""
import json
import os
import sys
import urllib.error
import urllib.request

URL = os.environ.get("LPS_URL") or "http://localhost:3000"


def introspect(api_key, token, ip=None):
    """Answers the envelope's data; a refused API key (success false) ends the program."""
    body = {"token": token}
    if ip:
        body["ip"] = ip
    headers = {
        "Content-Type": "application/json",
        "Accept-Language": "en",
        # 1. The API key in Authorization: Bearer (or X-Api-Key); the client's token in the body.
        "Authorization": "Bearer " + api_key,
    }
    request = urllib.request.Request(URL + "/sys/token/introspect", json.dumps(body).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(request) as answer:
            envelope = json.load(answer)
    except urllib.error.HTTPError as error:  # 4xx and 5xx still carry the envelope
        envelope = json.load(error)
    # 2. success false: the API key itself was refused (NOT_LOGGED_IN, FORBIDDEN, RATE_LIMITED...).
    if not envelope["success"]:
        sys.exit(f"{envelope['code']}: {envelope['message']}")
    return envelope["data"]


def main():
    result = introspect(os.environ["LPS_API_KEY"], os.environ["LPS_TOKEN"], os.environ.get("LPS_IP"))
    # 3. active: the token works, with its user and permission codes; otherwise reason is the code
    #    the client's request would get (answer it with 401).
    if result["active"]:
        print(f"active: {result['username']} ({', '.join(result['permissions'])})")
    else:
        print("inactive: " + result["reason"])


if __name__ == "__main__":
    main()
