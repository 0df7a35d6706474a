package chat

import "testing"

func TestNewCallIDShape(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := NewCallID()
		if !IsCallIDShaped(id) {
			t.Fatalf("%q is not nine letters and digits", id)
		}
		if seen[id] {
			t.Fatalf("%q made twice", id)
		}
		seen[id] = true
	}
}

func TestIsCallIDShaped(t *testing.T) {
	for id, want := range map[string]bool{
		"abc123XYZ": true, "call00001": true,
		"abc123XY": false, "abc123XYZ0": false, "call_0001": false, "abc-23XYZ": false, "abc12éXY": false, "": false,
	} {
		if got := IsCallIDShaped(id); got != want {
			t.Errorf("IsCallIDShaped(%q) = %v", id, got)
		}
	}
}

// A reshaped id is nine letters and digits, the same for the same id,
// different for different ids, and an id already of that shape is kept.
func TestShapedCallID(t *testing.T) {
	if got := ShapedCallID("abc123XYZ"); got != "abc123XYZ" {
		t.Errorf("a shaped id changed to %q", got)
	}
	seen := map[string]string{}
	for _, id := range []string{"", "call_0_0", "call_0_1", "toolu_01A09q90qw90lq917835lq9", "call_" + "abcdefghijklmnopqrstuvwx", "abc123XY"} {
		got := ShapedCallID(id)
		if !IsCallIDShaped(got) {
			t.Errorf("ShapedCallID(%q) = %q, not nine letters and digits", id, got)
		}
		if again := ShapedCallID(id); again != got {
			t.Errorf("ShapedCallID(%q) gave %q then %q", id, got, again)
		}
		if other, dup := seen[got]; dup {
			t.Errorf("%q and %q both give %q", other, id, got)
		}
		seen[got] = id
	}
}
