package jsonesc

import (
	"encoding/json"
	"testing"
)

// Every escape, decoded one after another, as encoding/json unquotes the
// string: the simple ones, \u with both cases of hex, surrogate pairs, lone
// and reversed halves, a high half before a non-escape; and the invalid ones.
func TestAppendAsEncodingJSON(t *testing.T) {
	for _, body := range []string{
		`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u00e9`, `\u00E9`, `\u2028`,
		`\ud83d\ude00`, `\ud83d`, `\ude00`, `\ude00\ud83d`, `\ud83d\u0041`, `\ud83dx`, `\ud83d\ud83d\ude00`, `\ud83d\n`,
	} {
		var want string
		if err := json.Unmarshal([]byte(`"`+body+`"`), &want); err != nil {
			t.Fatal(err)
		}
		var b []byte
		for i := 0; i < len(body); {
			if body[i] != '\\' {
				b = append(b, body[i])
				i++
				continue
			}
			var ok bool
			if b, i, ok = Append(b, body, i); !ok {
				t.Fatalf("%s: not valid at %d", body, i)
			}
		}
		if string(b) != want {
			t.Errorf("%s: %q, encoding/json %q", body, b, want)
		}
		if bb, _, _ := Append(nil, []byte(body), 0); len(body) > 0 && len(bb) == 0 {
			t.Errorf("%s: nothing from the []byte form", body)
		}
	}
	for _, bad := range []string{`\`, `\x`, `\u12`, `\u12g4`, `\U0041`, `\'`} {
		if _, _, ok := Append(nil, bad, 0); ok {
			t.Errorf("%s: taken as valid", bad)
		}
	}
}
