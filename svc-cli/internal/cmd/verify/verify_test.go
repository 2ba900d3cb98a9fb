package verify

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aead.dev/minisign"

	"github.com/adsnap/svc/svc-cli/internal/build"
	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
	"github.com/adsnap/svc/svc-cli/internal/testapi"
)

func TestNewCmdVerify(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name    string
		args    string
		want    VerifyOptions
		wantErr string
	}{
		{name: "defaults: beside the first file, the built-in key", args: dir + "/a.tgz " + dir + "/b.tgz",
			want: VerifyOptions{Files: []string{dir + "/a.tgz", dir + "/b.tgz"}, Sums: dir + "/SHA256SUMS", Signature: dir + "/SHA256SUMS.minisig", PublicKey: build.ReleaseKey(), MinVersion: build.Version()}},
		{name: "every flag", args: "--sums s --signature sig --version 0.9.0 --public-key " + build.DefaultReleaseKey + " x",
			want: VerifyOptions{Files: []string{"x"}, Sums: "s", Signature: "sig", PublicKey: build.DefaultReleaseKey, Version: "0.9.0", MinVersion: build.Version()}},
		{name: "signature defaults beside --sums", args: "--sums dl/SHA256SUMS x",
			want: VerifyOptions{Files: []string{"x"}, Sums: "dl/SHA256SUMS", Signature: "dl/SHA256SUMS.minisig", PublicKey: build.ReleaseKey(), MinVersion: build.Version()}},
		{name: "no file", args: "", wantErr: `"verify" needs at least one FILE to check (SHA256SUMS alone checks only the signature)`},
		{name: "bad key", args: "--public-key RWQnotakey x", wantErr: "--public-key: not a minisign public key (want the base64 line that starts with RW)"},
		{name: "unknown flag", args: "--key x y", wantErr: "unknown flag: --key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ios, _, _, _ := testapi.Streams(testapi.TTY{})
			var got *VerifyOptions
			err := testapi.Execute(t, NewCmdVerify(testapi.Factory(ios, nil), func(o *VerifyOptions) error {
				got = o
				return nil
			}), tt.args)
			if tt.wantErr != "" {
				var fe *cmdutil.FlagError
				if !errors.As(err, &fe) || err.Error() != tt.wantErr {
					t.Fatalf("error = %v (%T), want usage error %q", err, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got.IO = nil
			if fmt.Sprint(*got) != fmt.Sprint(tt.want) {
				t.Errorf("options = %+v, want %+v", *got, tt.want)
			}
		})
	}
}

// release writes files, their SHA256SUMS and its signature by key into a
// new directory, as scripts/release-cli.sh does.
func release(t *testing.T, key minisign.PrivateKey, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	var sums strings.Builder
	for _, name := range []string{"a.tgz", "b.mcpb"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(files[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(files[name]))
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), name)
	}
	writeSigned(t, dir, key, sums.String())
	return dir
}

func writeSigned(t *testing.T, dir string, key minisign.PrivateKey, sums string) {
	t.Helper()
	r := minisign.NewReader(strings.NewReader(sums))
	if _, err := io.Copy(io.Discard, r); err != nil {
		t.Fatal(err)
	}
	sig := r.SignWithComments(key, "timestamp:0\tfile:SHA256SUMS\thashed\tsvc-cli 1.0.0", "test")
	if err := os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(sums), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SHA256SUMS.minisig"), sig, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyRun(t *testing.T) {
	t.Parallel()
	pub, key, err := minisign.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, other, err := minisign.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"a.tgz": "archive bytes", "b.mcpb": "bundle bytes"}
	id := fmt.Sprintf("%016X", pub.ID())
	good := "SHA256SUMS: signature OK, by the release key " + id + " (trusted comment: timestamp:0\tfile:SHA256SUMS\thashed\tsvc-cli 1.0.0)\n"

	tests := []struct {
		name    string
		tamper  func(t *testing.T, dir string)
		args    []string // beside the files; default both files
		key     string
		wantOut string
		wantErr string
	}{
		{name: "good", wantOut: good + "a.tgz: OK\nb.mcpb: OK\n"},
		{name: "SHA256SUMS alone: the signature only", args: []string{"SHA256SUMS"}, wantOut: good},
		{name: "one byte of an archive changed", tamper: func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "a.tgz"), []byte("archive bytez"), 0o644) //nolint:errcheck
		}, wantOut: good + "a.tgz: FAILED: SHA-256 mismatch: the file is " + sha("archive bytez") + ", SHA256SUMS says " + sha("archive bytes") + " (corrupted or altered)\nb.mcpb: OK\n",
			wantErr: "1 of 2 files did not verify against the signed SHA256SUMS: do not use them"},
		{name: "SHA256SUMS changed and re-hashed", tamper: func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "a.tgz"), []byte("evil"), 0o644) //nolint:errcheck
			sums := sha("evil") + "  a.tgz\n" + sha("bundle bytes") + "  b.mcpb\n"
			os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(sums), 0o644) //nolint:errcheck
		}, wantErr: "the signature SHA256SUMS.minisig does not match SHA256SUMS: the list (or the signature's trusted comment) was changed after it was signed; trust none of the files"},
		{name: "signed by another key", tamper: func(t *testing.T, dir string) {
			sums, _ := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
			writeSigned(t, dir, other, string(sums))
		}, wantErr: "SHA256SUMS.minisig was made by another key (key ID " + fmt.Sprintf("%016X", other.ID()) + "), not by the release key " + pub.String() + " (key ID " + id + "): trust none of the files"},
		{name: "no signature", tamper: func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "SHA256SUMS.minisig")) //nolint:errcheck
		}, wantErr: "no signature: SHA256SUMS.minisig is missing; download it from where SHA256SUMS came from (without it, SHA256SUMS proves nothing about who made the files)"},
		{name: "not a signature", tamper: func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "SHA256SUMS.minisig"), []byte("nope\n"), 0o644) //nolint:errcheck
		}, wantErr: "SHA256SUMS.minisig is not a minisign signature: trust none of the files"},
		{name: "a file SHA256SUMS does not list", tamper: func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "c.tgz"), []byte("c"), 0o644) //nolint:errcheck
		}, args: []string{"c.tgz"}, wantOut: good + "c.tgz: FAILED: SHA256SUMS does not list c.tgz\n",
			wantErr: "1 of 1 files did not verify against the signed SHA256SUMS: do not use them"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := release(t, key, files)
			if tt.tamper != nil {
				tt.tamper(t, dir)
			}
			args := tt.args
			if args == nil {
				args = []string{"a.tgz", "b.mcpb"}
			}
			for i, a := range args {
				args[i] = filepath.Join(dir, a)
			}
			ios, _, stdout, _ := testapi.Streams(testapi.TTY{})
			err := testapi.Execute(t, NewCmdVerify(testapi.Factory(ios, nil), nil), "--public-key "+pub.String()+" "+strings.Join(args, " "))
			// The messages name the files as given; the test compares names.
			if out := strings.ReplaceAll(stdout.String(), dir+string(filepath.Separator), ""); out != tt.wantOut {
				t.Errorf("stdout:\n%s\nwant:\n%s", out, tt.wantOut)
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			code, msg := cmdutil.ExitFor(err)
			if msg = strings.ReplaceAll(msg, dir+string(filepath.Separator), ""); code != cmdutil.ExitInvalid || msg != tt.wantErr {
				t.Errorf("exit %d %q, want %d %q", code, msg, cmdutil.ExitInvalid, tt.wantErr)
			}
		})
	}
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
