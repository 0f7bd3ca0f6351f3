package gateway

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// MinSessionKeyBytes is the shortest session key accepted (HMAC-SHA256: a key shorter than the
// hash's 32 bytes weakens it).
const MinSessionKeyBytes = 32

// SessionKey is one key of session tokens: a token names the id of the key that signed it.
type SessionKey struct {
	// ID is 1 to 32 letters, digits, '-' or '_'.
	ID     string
	Secret []byte
}

// LegacyKeyID is the id of a key configured in the earlier form: one key, its bytes as written.
const LegacyKeyID = "0"

// keyEnv names the setting of the session keys in errors.
const keyEnv = "CARDROOM_SESSION_KEY (--session-key)"

// ParseSessionKeys reads the session-key setting: a comma-separated list of id:base64 (standard or
// URL alphabet, padded or not), the first signing new tokens and every one verifying; or, when the
// value holds no ':', one key, its bytes as written, whose id is LegacyKeyID (the form before key
// ids). Empty: none. Every key must be at least MinSessionKeyBytes long and ids must differ.
func ParseSessionKeys(v string) ([]SessionKey, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil, nil
	}
	if !strings.Contains(v, ":") {
		keys := []SessionKey{{ID: LegacyKeyID, Secret: []byte(v)}}
		return keys, checkSessionKeys(keys)
	}
	var keys []SessionKey
	for _, entry := range strings.Split(v, ",") {
		id, b64, ok := strings.Cut(strings.TrimSpace(entry), ":")
		if !ok {
			return nil, fmt.Errorf("%s: %q is not id:base64", keyEnv, redactEntry(entry))
		}
		secret, err := decodeKey(strings.TrimSpace(b64))
		if err != nil {
			return nil, fmt.Errorf("%s: key %q is not base64", keyEnv, id)
		}
		keys = append(keys, SessionKey{ID: id, Secret: secret})
	}
	return keys, checkSessionKeys(keys)
}

func decodeKey(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, errors.New("not base64")
}

// redactEntry keeps an entry's id, if any, for an error message, never its secret.
func redactEntry(e string) string {
	if len(e) > 8 {
		return e[:4] + "…"
	}
	return "…"
}

// checkSessionKeys refuses keys with a bad or repeated id or shorter than MinSessionKeyBytes.
func checkSessionKeys(keys []SessionKey) error {
	seen := map[string]bool{}
	for _, k := range keys {
		if !validKeyID(k.ID) {
			return fmt.Errorf("%s: key id %q: 1 to 32 letters, digits, '-' or '_'", keyEnv, k.ID)
		}
		if seen[k.ID] {
			return fmt.Errorf("%s: key id %q given twice", keyEnv, k.ID)
		}
		seen[k.ID] = true
		if len(k.Secret) < MinSessionKeyBytes {
			return fmt.Errorf("%s: key %q is %d bytes; at least %d are required (e.g. openssl rand -base64 32)",
				keyEnv, k.ID, len(k.Secret), MinSessionKeyBytes)
		}
	}
	return nil
}

func validKeyID(id string) bool {
	if id == "" || len(id) > 32 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}
