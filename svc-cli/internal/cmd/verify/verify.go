// Package verify is the `svc verify` command: it checks downloads of a svc
// release with the svc a user already trusts, as install-svc.sh does with
// minisign or OpenSSL.
package verify

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"aead.dev/minisign"
	"github.com/spf13/cobra"

	"github.com/adsnap/svc/svc-cli/internal/build"
	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
	"github.com/adsnap/svc/svc-cli/internal/iostreams"
)

// sumsName is the checksum list of a release; sigSuffix names its signature.
const (
	sumsName  = "SHA256SUMS"
	sigSuffix = ".minisig"
	// maxSums bounds what is read of SHA256SUMS and of its signature.
	maxSums = 1 << 20
)

// VerifyOptions are the parsed flags and arguments of `svc verify`.
type VerifyOptions struct {
	IO *iostreams.IOStreams

	// Files are the downloads to check.
	Files []string
	// Sums is SHA256SUMS (default: beside the first file).
	Sums string
	// Signature is the signature of Sums (default: Sums + ".minisig").
	Signature string
	// PublicKey is the minisign public key (base64) the signature must
	// verify with (default: the release key built into svc).
	PublicKey string
	// Version is the release asked for (--version): the trusted comment
	// must name it. Empty: any release not older than MinVersion.
	Version string
	// MinVersion is the oldest release accepted without Version (default:
	// this svc's version; none for a build that names no release).
	MinVersion string
}

// NewCmdVerify returns the verify command. runF, when not nil, runs
// instead of the command body (for flag tests).
func NewCmdVerify(f *cmdutil.Factory, runF func(*VerifyOptions) error) *cobra.Command {
	opts := &VerifyOptions{IO: f.IOStreams, MinVersion: build.Version()}
	cmd := &cobra.Command{
		Use:   "verify FILE...",
		Short: "Check downloads of svc: the signature of SHA256SUMS, then each file's SHA-256",
		Long: fmt.Sprintf(`Check files downloaded from {site_url}/developers/ before you use them, with
the svc you already trust (no minisign or OpenSSL needed). First the
signature of SHA256SUMS (SHA256SUMS.minisig: minisign's format, Ed25519)
with the release public key built into this svc, then the SHA-256 of each
FILE against its line in SHA256SUMS. Nothing is downloaded: put SHA256SUMS
and SHA256SUMS.minisig beside the files, or name them with --sums and
--signature.

Built-in release key: %s
The project's README publishes the same key; --public-key checks against
another one (a test release, or a key rotated after this svc was built).

It refuses (exit 8, and then trust none of the files) when the signature is
missing, was made by another key, or does not match SHA256SUMS (the list
was changed after it was signed), and names each file whose SHA-256 does not
match its line or that SHA256SUMS does not list. It also refuses a release
older than this svc (%s), as the signature's trusted comment names it
("svc-cli VERSION"), unless --version names that release: a site cannot roll
you back to an older, genuinely signed release without you asking.`, build.ReleaseKey(), build.Version()),
		Example: `  curl -fsSLO {site_url}/developers/svc-cli-1.0.0-linux-amd64.tgz
  curl -fsSLO {site_url}/developers/SHA256SUMS
  curl -fsSLO {site_url}/developers/SHA256SUMS.minisig
  svc verify svc-cli-1.0.0-linux-amd64.tgz
  svc verify --sums dl/SHA256SUMS dl/*.mcpb`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmdutil.FlagErrorf("%q needs at least one FILE to check (SHA256SUMS alone checks only the signature)", cmd.CommandPath())
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			opts.Files = args
			if opts.Sums == "" {
				opts.Sums = filepath.Join(filepath.Dir(args[0]), sumsName)
			}
			if opts.Signature == "" {
				opts.Signature = opts.Sums + sigSuffix
			}
			if opts.PublicKey == "" {
				opts.PublicKey = build.ReleaseKey()
			}
			if _, err := parseKey(opts.PublicKey); err != nil {
				return cmdutil.FlagErrorf("--public-key: %v", err)
			}
			if runF != nil {
				return runF(opts)
			}
			return verifyRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Sums, "sums", "", "the SHA256SUMS file (default: SHA256SUMS beside the first FILE)")
	cmd.Flags().StringVar(&opts.Signature, "signature", "", "its signature (default: the SHA256SUMS file with .minisig added)")
	cmd.Flags().StringVar(&opts.Version, "version", "", "the release you mean to check (such as an older one, on purpose): the signature's trusted comment must name it")
	cmd.Flags().StringVar(&opts.PublicKey, "public-key", "", "the minisign public key (base64, as minisign -P takes it) to check against instead of the built-in release key")
	return cmd
}

// parseKey parses a minisign public key given as its base64 line.
func parseKey(text string) (minisign.PublicKey, error) {
	var key minisign.PublicKey
	if strings.ContainsAny(text, "\r\n") {
		return key, errors.New("give the key's base64 line (RW...), not a file")
	}
	if err := key.UnmarshalText([]byte(strings.TrimSpace(text))); err != nil {
		return key, errors.New("not a minisign public key (want the base64 line that starts with RW)")
	}
	return key, nil
}

func verifyRun(opts *VerifyOptions) error {
	key, err := parseKey(opts.PublicKey)
	if err != nil {
		return cmdutil.FlagErrorf("--public-key: %v", err)
	}
	sums, comment, err := checkSignature(key, opts.PublicKey, opts.Sums, opts.Signature)
	if err != nil {
		return err
	}
	if err := checkRelease(opts.Sums, comment, opts.Version, opts.MinVersion); err != nil {
		return err // release.go: rollback protection
	}
	out := opts.IO.Out
	fmt.Fprintf(out, "%s: signature OK, by the release key %s (trusted comment: %s)\n", opts.Sums, keyID(key.ID()), comment)
	want, err := parseSums(sums)
	if err != nil {
		return cmdutil.VerifyErrorf("%s: %v", opts.Sums, err)
	}
	failed := 0
	for _, f := range opts.Files {
		if sameFile(f, opts.Sums) {
			continue // its signature was checked
		}
		if problem := checkFile(f, want); problem != "" {
			failed++
			fmt.Fprintf(out, "%s: FAILED: %s\n", f, problem)
			continue
		}
		fmt.Fprintf(out, "%s: OK\n", f)
	}
	if failed > 0 {
		return cmdutil.VerifyErrorf("%d of %d files did not verify against the signed %s: do not use them", failed, len(opts.Files), opts.Sums)
	}
	return nil
}

// checkSignature reads SHA256SUMS and its signature and verifies them with
// key. It returns the content of SHA256SUMS and the trusted comment.
func checkSignature(key minisign.PublicKey, keyText, sumsPath, sigPath string) ([]byte, string, error) {
	sums, err := readLimited(sumsPath)
	if err != nil {
		return nil, "", cmdutil.VerifyErrorf("cannot read %s: %v", sumsPath, err)
	}
	sigText, err := readLimited(sigPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", cmdutil.VerifyErrorf("no signature: %s is missing; download it from where %s came from (without it, %s proves nothing about who made the files)",
			sigPath, sumsPath, sumsPath)
	}
	if err != nil {
		return nil, "", cmdutil.VerifyErrorf("cannot read %s: %v", sigPath, err)
	}
	var sig minisign.Signature
	if err := sig.UnmarshalText(sigText); err != nil {
		return nil, "", cmdutil.VerifyErrorf("%s is not a minisign signature: trust none of the files", sigPath)
	}
	if sig.KeyID != key.ID() {
		return nil, "", cmdutil.VerifyErrorf("%s was made by another key (key ID %s), not by the release key %s (key ID %s): trust none of the files",
			sigPath, keyID(sig.KeyID), strings.TrimSpace(keyText), keyID(key.ID()))
	}
	if !minisign.Verify(key, sums, sigText) {
		return nil, "", cmdutil.VerifyErrorf("the signature %s does not match %s: the list (or the signature's trusted comment) was changed after it was signed; trust none of the files",
			sigPath, sumsPath)
	}
	return sums, sig.TrustedComment, nil
}

// parseSums reads sha256sum's format: "HASH  NAME" or "HASH *NAME".
func parseSums(data []byte) (map[string]string, error) {
	want := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" {
			continue
		}
		sum, name, ok := strings.Cut(line, " ")
		name = strings.TrimPrefix(name, " ")
		name = strings.TrimPrefix(name, "*")
		if _, err := hex.DecodeString(sum); !ok || len(sum) != 2*sha256.Size || err != nil || name == "" {
			return nil, fmt.Errorf("line %d is not \"SHA-256  FILE\"", n)
		}
		if _, dup := want[name]; dup {
			return nil, fmt.Errorf("%s is listed twice", name)
		}
		want[name] = strings.ToLower(sum)
	}
	return want, sc.Err()
}

// checkFile returns why path does not match its line, or "".
func checkFile(path string, want map[string]string) string {
	name := filepath.Base(path)
	sum, ok := want[name]
	if !ok {
		return "SHA256SUMS does not list " + name
	}
	f, err := os.Open(path)
	if err != nil {
		return "cannot read it: " + err.Error()
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "cannot read it: " + err.Error()
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sum {
		return "SHA-256 mismatch: the file is " + got + ", SHA256SUMS says " + sum + " (corrupted or altered)"
	}
	return ""
}

func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSums+1))
	if err == nil && len(data) > maxSums {
		err = errors.New("larger than 1 MiB")
	}
	return data, err
}

// sameFile reports whether a and b name the same file.
func sameFile(a, b string) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(ia, ib)
}

// keyID formats a key ID as minisign prints it.
func keyID(id uint64) string { return fmt.Sprintf("%016X", id) }
