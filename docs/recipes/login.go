// Log in and call one API from Go, standard library only:  go run login.go
//
//	LPS_URL (default http://localhost:3000), LPS_ACCOUNT (default admin), LPS_PASSWORD (required);
//	LPS_IMG_ID and LPS_IMG_CODE when the captcha is on (from POST /sys/captcha, read by a person).
package main

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"os"
)

var baseURL = envOr("LPS_URL", "http://localhost:3000")

type envelope struct {
	Success bool            `json:"success"`
	Code    string          `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// post sends JSON and decodes the envelope's data into out; an envelope with success false ends the program.
func post(path string, body any, token string, out any) {
	payload, _ := json.Marshal(body)
	request, err := http.NewRequest(http.MethodPost, baseURL+path, bytes.NewReader(payload))
	check(err)
	request.Header.Set("Content-Type", "application/json")
	request.Header.Set("Accept-Language", "en")
	if token != "" {
		request.Header.Set("Admin-Token", token)
	}
	answer, err := http.DefaultClient.Do(request)
	check(err)
	defer answer.Body.Close()
	var e envelope
	check(json.NewDecoder(answer.Body).Decode(&e))
	if !e.Success {
		fmt.Fprintf(os.Stderr, "%s: %s\n", e.Code, e.Message)
		os.Exit(1)
	}
	if out != nil {
		check(json.Unmarshal(e.Data, out))
	}
}

func main() {
	account := envOr("LPS_ACCOUNT", "admin")
	password := os.Getenv("LPS_PASSWORD")
	if password == "" {
		fmt.Fprintln(os.Stderr, "set LPS_PASSWORD")
		os.Exit(2)
	}

	// 1. The public key (SPKI PEM, which x509.ParsePKIXPublicKey reads).
	var key struct{ PublicKey string }
	post("/sys/publicKey", map[string]any{}, "", &key)
	block, _ := pem.Decode([]byte(key.PublicKey))
	if block == nil {
		fmt.Fprintln(os.Stderr, "the public key is not PEM")
		os.Exit(1)
	}
	parsed, err := x509.ParsePKIXPublicKey(block.Bytes)
	check(err)

	// 2. RSA-OAEP: EncryptOAEP uses its hash (SHA-256 here) for MGF1 as well, then base64.
	sealed, err := rsa.EncryptOAEP(sha256.New(), rand.Reader, parsed.(*rsa.PublicKey), []byte(password), nil)
	check(err)

	// 3. The login. AccessToken is the session token (empty while a second factor is due).
	body := map[string]any{"account": account, "password": base64.StdEncoding.EncodeToString(sealed)}
	if id := os.Getenv("LPS_IMG_ID"); id != "" {
		body["imgId"], body["imgCode"] = id, os.Getenv("LPS_IMG_CODE")
	}
	var login struct {
		AccessToken string
		MfaRequired bool
	}
	post("/sys/login", body, "", &login)
	if login.MfaRequired {
		fmt.Fprintln(os.Stderr, "second factor needed: POST /sys/login/mfa {mfaToken, code}")
		os.Exit(1)
	}

	// 4. Any other operation: the token in the Admin-Token header (or Authorization: Bearer).
	var me struct{ Username string }
	post("/sys/me/info", map[string]any{}, login.AccessToken, &me)
	fmt.Println("logged in as " + me.Username)

	// 5. Log out: the token is dead from now on.
	post("/sys/logout", map[string]any{}, login.AccessToken, nil)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func envOr(name, fallback string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return fallback
}
