#!/usr/bin/env bash
# Log in and call one API with curl, openssl and jq.
#   LPS_URL (default http://localhost:3000), LPS_ACCOUNT (default admin), LPS_PASSWORD (required);
#   LPS_IMG_ID and LPS_IMG_CODE when the captcha is on (from POST /sys/captcha, read by a person).
set -euo pipefail
url=${LPS_URL:-http://localhost:3000}
account=${LPS_ACCOUNT:-admin}
: "${LPS_PASSWORD:?set LPS_PASSWORD}"

post() { # path, JSON body, extra curl arguments
  curl -sS -X POST "$url$1" -H 'Content-Type: application/json' -H 'Accept-Language: en' -d "$2" "${@:3}"
}
fail_unless_ok() { # envelope
  if [ "$(jq -r .success <<<"$1")" != true ]; then
    echo "$(jq -r '.code + ": " + .message' <<<"$1")" >&2
    exit 1
  fi
}

# 1. The public key (SPKI PEM) every password field is encrypted under.
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
key=$(post /sys/publicKey '{}'); fail_unless_ok "$key"
jq -r .data.publicKey <<<"$key" >"$work/public.pem"

# 2. RSA-OAEP: SHA-256 for the hash AND for MGF1 (openssl's default MGF1 hash is the OAEP one,
#    named here so that nobody has to know that), then base64 on one line.
cipher=$(printf '%s' "$LPS_PASSWORD" | openssl pkeyutl -encrypt -pubin -inkey "$work/public.pem" \
  -pkeyopt rsa_padding_mode:oaep -pkeyopt rsa_oaep_md:sha256 -pkeyopt rsa_mgf1_md:sha256 | base64 | tr -d '\n')

# 3. The login. The answer's data.accessToken is the session token.
body=$(jq -n --arg a "$account" --arg p "$cipher" --arg i "${LPS_IMG_ID:-}" --arg c "${LPS_IMG_CODE:-}" \
  '{account: $a, password: $p} + (if $i != "" then {imgId: $i, imgCode: $c} else {} end)')
login=$(post /sys/login "$body"); fail_unless_ok "$login"
if [ "$(jq -r .data.mfaRequired <<<"$login")" = true ]; then
  echo "second factor needed: POST /sys/login/mfa {mfaToken, code}" >&2; exit 1
fi
token=$(jq -r .data.accessToken <<<"$login")
[ "$(jq -r .data.tempUser <<<"$login")" = true ] && echo "temporary token: $(jq -r .data.tip <<<"$login")" >&2

# 4. Any other operation: the token in the Admin-Token header (or Authorization: Bearer).
me=$(post /sys/me/info '{}' -H "Admin-Token: $token"); fail_unless_ok "$me"
echo "logged in as $(jq -r .data.username <<<"$me")"

# 5. Log out: the token is dead from now on.
post /sys/logout '{}' -H "Admin-Token: $token" >/dev/null
