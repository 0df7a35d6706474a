package backend

import "testing"

func TestIsLocal(t *testing.T) {
	cases := map[string]bool{
		"127.0.0.1":                  true,
		"127.8.9.10":                 true,
		"127.0.0.1:11434":            true,
		"http://127.0.0.1:8080/v1":   true,
		"::1":                        true,
		"[::1]:8080":                 true,
		"http://[::1]:1234":          true,
		"::ffff:127.0.0.1":           true,
		"0.0.0.0":                    true,
		"0.0.0.0:8000":               true,
		"::":                         true,
		"localhost":                  true,
		"LOCALHOST":                  true,
		"localhost.":                 true,
		"LocalHost.:11434":           true,
		"https://localhost/":         true,
		"myhost.local":               true,
		"MyMac.LOCAL.":               true,
		"http://studio.local:1234":   true,
		"10.0.0.5":                   false,
		"192.168.1.20:11434":         false,
		"172.16.0.1":                 false,
		"172.31.255.255":             false,
		"fc00::1":                    false,
		"fd12:3456::1":               false,
		"[fe80::1%eth0]:80":          false,
		"example.com":                false,
		"localhost.example.com":      false,
		"notlocalhost":               false,
		"local":                      false,
		"8.8.8.8":                    false,
		"":                           false,
		"http://evil.com@127.0.0.1/": true, // the host is 127.0.0.1; userinfo is not the host
		"http://127.0.0.1.evil.com/": false,
	}
	for in, want := range cases {
		if got := IsLocal(in); got != want {
			t.Errorf("IsLocal(%q) = %v, want %v", in, got, want)
		}
	}
}
