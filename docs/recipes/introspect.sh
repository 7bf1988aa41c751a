#!/usr/bin/env bash
# Check a caller's token with an API key, with curl and jq: what a gateway or another service does
# with the token a client sent it.
#   LPS_URL (default http://localhost:3000), LPS_API_KEY (required: an API key holding
#   sys:token:introspect), LPS_TOKEN (required: the client's token), LPS_IP (the client's IP, optional).
set -euo pipefail
url=${LPS_URL:-http://localhost:3000}
: "${LPS_API_KEY:?set LPS_API_KEY}"
: "${LPS_TOKEN:?set LPS_TOKEN}"

# 1. The API key in Authorization: Bearer (or X-Api-Key); the client's token and IP in the body.
body=$(jq -n --arg t "$LPS_TOKEN" --arg ip "${LPS_IP:-}" '{token: $t} + (if $ip != "" then {ip: $ip} else {} end)')
answer=$(curl -sS -X POST "$url/sys/token/introspect" -H 'Content-Type: application/json' \
  -H 'Accept-Language: en' -H "Authorization: Bearer $LPS_API_KEY" -d "$body")

# 2. success false: the API key itself was refused (NOT_LOGGED_IN, FORBIDDEN, RATE_LIMITED…).
if [ "$(jq -r .success <<<"$answer")" != true ]; then
  echo "$(jq -r '.code + ": " + .message' <<<"$answer")" >&2
  exit 1
fi

# 3. data.active: the token works, and data names its user and permission codes; otherwise
#    data.reason is the code the client's request would get (answer it with 401).
if [ "$(jq -r .data.active <<<"$answer")" = true ]; then
  echo "active: $(jq -r '.data.username + " (" + (.data.permissions | join(", ")) + ")"' <<<"$answer")"
else
  echo "inactive: $(jq -r .data.reason <<<"$answer")"
fi
