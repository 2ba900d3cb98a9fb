package main

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"aead.dev/minisign"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// TestSignReproducible: the throwaway key signs; the same key and file give
// the same signature, which verifies, and fails on a changed file.
func TestSignReproducible(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var out bytes.Buffer
	if err := run([]string{"throwaway", dir}, env(nil), &out); err != nil {
		t.Fatal(err)
	}
	pub, err := minisign.PublicKeyFromFile(filepath.Join(dir, "minisign.pub"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(out.String()); got != pub.String() {
		t.Errorf("throwaway printed %q, minisign.pub holds %q", got, pub.String())
	}
	for _, f := range []string{"minisign.key", "mcpb-key.pem"} {
		if info, err := os.Stat(filepath.Join(dir, f)); err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v, want mode 0600", f, info.Mode(), err)
		}
	}
	getenv := env(map[string]string{envKeyFile: filepath.Join(dir, "minisign.key")})
	out.Reset()
	if err := run([]string{"pubkey"}, getenv, &out); err != nil || strings.TrimSpace(out.String()) != pub.String() {
		t.Errorf("pubkey: %q %v, want %q", out.String(), err, pub.String())
	}
	file := filepath.Join(t.TempDir(), "SHA256SUMS")
	if err := os.WriteFile(file, []byte("abc  x.tgz\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var sigs [][]byte
	for range 2 {
		if err := run([]string{"sign", "-trusted-comment", "timestamp:1\tfile:SHA256SUMS\thashed", file}, getenv, &out); err != nil {
			t.Fatal(err)
		}
		sig, err := os.ReadFile(file + ".minisig")
		if err != nil {
			t.Fatal(err)
		}
		sigs = append(sigs, sig)
	}
	if !bytes.Equal(sigs[0], sigs[1]) {
		t.Errorf("two signatures differ:\n%s\n%s", sigs[0], sigs[1])
	}
	var sig minisign.Signature
	if err := sig.UnmarshalText(sigs[0]); err != nil || sig.Algorithm != minisign.HashEdDSA || sig.TrustedComment != "timestamp:1\tfile:SHA256SUMS\thashed" {
		t.Errorf("signature %+v %v: want the prehashed algorithm and the trusted comment", sig, err)
	}
	if !minisign.Verify(pub, []byte("abc  x.tgz\n"), sigs[0]) {
		t.Error("the signature does not verify")
	}
	if minisign.Verify(pub, []byte("abd  x.tgz\n"), sigs[0]) {
		t.Error("the signature verifies a changed file")
	}
	// The same key from the variable that holds its text.
	keyText, _ := os.ReadFile(filepath.Join(dir, "minisign.key"))
	out.Reset()
	if err := run([]string{"pubkey"}, env(map[string]string{envKey: string(keyText)}), &out); err != nil || strings.TrimSpace(out.String()) != pub.String() {
		t.Errorf("pubkey from %s: %q %v", envKey, out.String(), err)
	}
}

func TestLoadKeyRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := run([]string{"throwaway", dir}, env(nil), new(bytes.Buffer)); err != nil {
		t.Fatal(err)
	}
	keyText, _ := os.ReadFile(filepath.Join(dir, "minisign.key"))
	// The same key marked as encrypted (KDF "Sc"), as `minisign -G` writes it.
	lines := strings.SplitN(string(keyText), "\n", 2)
	raw, _ := base64.StdEncoding.DecodeString(strings.TrimSpace(lines[1]))
	raw[2], raw[3] = 'S', 'c'
	encrypted := lines[0] + "\n" + base64.StdEncoding.EncodeToString(raw) + "\n"
	for _, tt := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"none", nil, "no release key: set SVC_RELEASE_KEY_FILE"},
		{"both", map[string]string{envKey: string(keyText), envKeyFile: "x"}, "set one of"},
		{"no such file", map[string]string{envKeyFile: filepath.Join(dir, "nope")}, "SVC_RELEASE_KEY_FILE: open"},
		{"not a key", map[string]string{envKey: "untrusted comment: x\nbm90IGEga2V5\n"}, "the release key is not a minisign secret key"},
		{"encrypted, no password", map[string]string{envKey: encrypted}, "the release key is encrypted: set SVC_RELEASE_KEY_PASSWORD"},
		{"encrypted, wrong password", map[string]string{envKey: encrypted, envPassword: "pw"}, "cannot decrypt the release key"},
	} {
		_, err := loadKey(env(tt.env))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), strings.TrimSpace(lines[1])) {
			t.Errorf("%s: the error quotes the key", tt.name)
		}
	}
}

func TestModuleResources(t *testing.T) {
	t.Parallel()
	sum := "h1:" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xab}, 32))
	got, err := moduleResources([]*debug.Module{
		{Path: "github.com/adsnap/svc/svc-cli", Version: "v1.0.0", Sum: sum},
		{Path: "aead.dev/minisign", Version: "v0.3.0", Sum: sum},
		{Path: "github.com/adsnap/svc/svc-cli", Version: "v1.0.0", Sum: sum},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].URI != "pkg:golang/aead.dev/minisign@v0.3.0" || got[1].URI != "pkg:golang/github.com/adsnap/svc/svc-cli@v1.0.0" ||
		got[0].Digest["dirHash"] != strings.Repeat("ab", 32) {
		t.Errorf("resources: %+v", got)
	}
	for _, m := range []*debug.Module{
		{Path: "x", Version: "v1.0.0"},
		{Path: "x", Version: "v1.0.0", Sum: sum, Replace: &debug.Module{Path: "../x"}},
		{Path: "x", Version: "v1.0.0", Sum: "h2:abc"},
	} {
		if _, err := moduleResources([]*debug.Module{m}); err == nil {
			t.Errorf("%+v accepted", m)
		}
	}
}
