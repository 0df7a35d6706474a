package chat

import (
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
)

// Call ids. Clients match tool results to calls by id, so every call needs a
// unique one; where the model's markup carries none, the parser, the backend
// or the gateway makes one here, whichever mode and runtime served the call.
// The one shape is nine alphanumerics: Mistral's templates raise unless an
// id has exactly nine characters, and every other template and client takes
// any string.

// callIDLength is the length of the ids made here.
const callIDLength = 9

const callIDAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// callIDSpace is the number of distinct ids: 62⁹.
const callIDSpace = 62 * 62 * 62 * 62 * 62 * 62 * 62 * 62 * 62

// NewCallID returns a fresh random call id of nine alphanumerics.
func NewCallID() string {
	// One random number gives all nine characters: its value below the
	// largest multiple of 62⁹ that fits is uniform over the ids.
	const limit = (1<<64 - 1) / callIDSpace * callIDSpace
	u := rand.Uint64()
	for u >= limit {
		u = rand.Uint64()
	}
	return spellCallID(u)
}

// IsCallIDShaped reports whether id has the shape NewCallID makes: nine ASCII
// letters and digits.
func IsCallIDShaped(id string) bool {
	if len(id) != callIDLength {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// ShapedCallID returns id when it already has NewCallID's shape, and
// otherwise nine alphanumerics derived from it: the same id always gives the
// same result, so a call and its result still match, and a conversation sent
// again renders the same prompt (its cached prefix stays valid). Distinct ids
// collide with a chance of one in 62⁹ per pair.
func ShapedCallID(id string) string {
	if IsCallIDShaped(id) {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return spellCallID(binary.LittleEndian.Uint64(sum[:8]) % callIDSpace)
}

// spellCallID writes u (below 62⁹) as nine alphanumerics.
func spellCallID(u uint64) string {
	var b [callIDLength]byte
	for i := range b {
		b[i] = callIDAlphabet[u%62]
		u /= 62
	}
	return string(b[:])
}
