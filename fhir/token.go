package fhir

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha512"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/assaykit/assay/internal/origin"
)

// TokenSource gives the bearer token of a request.
type TokenSource interface {
	Token(ctx context.Context) (string, error)
}

// StaticToken is a TokenSource that always gives itself.
type StaticToken string

// Token returns t.
func (t StaticToken) Token(context.Context) (string, error) { return string(t), nil }

// BackendServices is a TokenSource for SMART Backend Services: the client
// credentials grant at TokenURL, authenticated with a JWT assertion signed
// by Key (RSA: RS384; ECDSA P-384: ES384) or, when Key is nil, with
// ClientSecret (HTTP Basic). The token is cached until 30 seconds before it
// expires. Safe for concurrent use.
type BackendServices struct {
	TokenURL, ClientID string
	// Scope is the space-separated scopes asked for (e.g.
	// "system/Patient.read system/Appointment.read").
	Scope string
	// Key signs the assertion; KeyID is its kid (the JWKS key id).
	Key   crypto.Signer
	KeyID string
	// ClientSecret is used when Key is nil.
	ClientSecret string
	// HTTPClient sends the token request (nil: a client with a 30 s
	// timeout).
	HTTPClient *http.Client
	// Now is the clock (nil: time.Now).
	Now func() time.Time

	mu      sync.Mutex
	token   string
	expires time.Time
}

// TokenError is a token endpoint's refusal.
type TokenError struct {
	StatusCode int
	// Body is the start of what the endpoint answered (200 bytes at
	// most), with the client's credentials scrubbed.
	Body string
}

func (e *TokenError) Error() string {
	return fmt.Sprintf("token endpoint: HTTP %d: %q", e.StatusCode, e.Body)
}

// Token returns the cached token or asks for a new one.
func (b *BackendServices) Token(ctx context.Context) (string, error) {
	now := time.Now
	if b.Now != nil {
		now = b.Now
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.token != "" && now().Before(b.expires) {
		return b.token, nil
	}
	form := url.Values{"grant_type": {"client_credentials"}}
	if b.Scope != "" {
		form.Set("scope", b.Scope)
	}
	if b.Key != nil {
		jwt, err := b.assertion(now())
		if err != nil {
			return "", err
		}
		form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		form.Set("client_assertion", jwt)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.TokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	// What the request carries that proves who the client is is scrubbed
	// from what the endpoint sends back (DESIGN.md section 12 rule 18).
	secret := origin.NewSecret(form.Get("client_assertion"), b.ClientSecret)
	if b.Key == nil {
		user, pass := url.QueryEscape(b.ClientID), url.QueryEscape(b.ClientSecret)
		req.SetBasicAuth(user, pass)
		secret.Add(pass)
		secret.Add(base64.StdEncoding.EncodeToString([]byte(user + ":" + pass)))
	}
	hc := b.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", secret.Error(fmt.Errorf("token endpoint: %w", err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", secret.Error(fmt.Errorf("token endpoint: %w", err))
	}
	refused := func() error {
		// Scrubbed whole, then cut: a cut first could split a credential.
		clean := secret.RedactBytes(body)
		return &TokenError{StatusCode: resp.StatusCode, Body: string(clean[:min(len(clean), 200)])}
	}
	if resp.StatusCode != http.StatusOK {
		return "", refused()
	}
	var tr struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int64  `json:"expires_in"`
	}
	if err := json.Unmarshal(body, &tr); err != nil || tr.AccessToken == "" {
		return "", refused()
	}
	if tr.ExpiresIn <= 0 {
		tr.ExpiresIn = 300
	}
	b.token = tr.AccessToken
	b.expires = now().Add(time.Duration(tr.ExpiresIn)*time.Second - 30*time.Second)
	return b.token, nil
}

// Invalidate drops the cached token, so that the next Token asks for a new
// one. The Client calls it when the server answers 401.
func (b *BackendServices) Invalidate() {
	b.mu.Lock()
	b.token = ""
	b.mu.Unlock()
}

// assertion builds the signed JWT of the client credentials grant.
func (b *BackendServices) assertion(now time.Time) (string, error) {
	var alg string
	switch k := b.Key.Public().(type) {
	case *rsa.PublicKey:
		alg = "RS384"
	case *ecdsa.PublicKey:
		if k.Curve.Params().BitSize != 384 {
			return "", errors.New("an ECDSA key for ES384 must be on P-384")
		}
		alg = "ES384"
	default:
		return "", fmt.Errorf("unsupported key type %T (RSA or ECDSA P-384)", k)
	}
	jti := make([]byte, 16)
	if _, err := rand.Read(jti); err != nil {
		return "", err
	}
	header := map[string]string{"alg": alg, "typ": "JWT"}
	if b.KeyID != "" {
		header["kid"] = b.KeyID
	}
	claims := map[string]any{"iss": b.ClientID, "sub": b.ClientID, "aud": b.TokenURL,
		"exp": now.Add(5 * time.Minute).Unix(), "jti": hex.EncodeToString(jti)}
	enc := base64.RawURLEncoding
	h, _ := json.Marshal(header) // encoding/json sorts the keys
	c, _ := json.Marshal(claims)
	signing := enc.EncodeToString(h) + "." + enc.EncodeToString(c)
	digest := sha512.Sum384([]byte(signing))
	sig, err := b.Key.Sign(rand.Reader, digest[:], crypto.SHA384)
	if err != nil {
		return "", fmt.Errorf("signing the assertion: %w", err)
	}
	if alg == "ES384" {
		var rs struct{ R, S *big.Int }
		if _, err := asn1.Unmarshal(sig, &rs); err != nil {
			return "", fmt.Errorf("signing the assertion: %w", err)
		}
		sig = make([]byte, 96)
		rs.R.FillBytes(sig[:48])
		rs.S.FillBytes(sig[48:])
	}
	return signing + "." + enc.EncodeToString(sig), nil
}

func sortStrings(s []string) { sort.Strings(s) }
