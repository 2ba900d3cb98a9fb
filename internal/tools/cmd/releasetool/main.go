// Command releasetool holds the steps of scripts/release-cli.sh that the
// shell does badly: the release signature, throwaway keys for tests and the
// demo, and the provenance statement.
//
// Usage:
//
//	releasetool pubkey
//	releasetool sign -trusted-comment TEXT FILE
//	releasetool throwaway DIR
//	releasetool provenance -out FILE [flags] ARTIFACT...
//
// pubkey prints the public key of the release key (one base64 line, as
// `minisign -P` takes it). sign writes FILE.minisig: a minisign signature
// (Ed25519 over the BLAKE2b-512 hash of FILE, minisign's default "ED"
// algorithm, and a signed trusted comment), which Debian's `minisign -V`,
// `svc verify` and install-svc.sh check. Ed25519 signatures are
// deterministic, so the same key and file give the same bytes: the release
// stays reproducible. Both read the private key from the environment, never
// from a flag (a command line is visible to every user of the machine):
//
//	SVC_RELEASE_KEY           the text of a minisign secret key file, or
//	SVC_RELEASE_KEY_FILE      the path of one, outside the repository
//	SVC_RELEASE_KEY_PASSWORD  its password, when it is encrypted
//
// throwaway writes a key pair made for one run (DIR/minisign.key unencrypted,
// DIR/minisign.pub) and a self-signed code-signing certificate for `mcpb
// sign` (DIR/mcpb-cert.pem, DIR/mcpb-key.pem); it prints the public key.
//
// provenance writes one in-toto Statement (v1) with a SLSA provenance v1
// predicate naming every ARTIFACT by file name and SHA-256 (see
// provenance.go and RELEASING.md, "Provenance").
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "releasetool:", err)
		var u usageError
		if errors.As(err, &u) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

const usage = "usage: releasetool pubkey | sign -trusted-comment TEXT FILE | throwaway DIR | provenance -out FILE [flags] ARTIFACT..."

func run(args []string, getenv func(string) string, stdout io.Writer) error {
	if len(args) == 0 {
		return usageError{usage}
	}
	switch args[0] {
	case "pubkey":
		if len(args) != 1 {
			return usageError{usage}
		}
		key, err := loadKey(getenv)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(stdout, publicKey(key))
		return err
	case "sign":
		fs := flag.NewFlagSet("sign", flag.ContinueOnError)
		comment := fs.String("trusted-comment", "", "the signed comment (one line)")
		if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 1 {
			return usageError{usage}
		}
		key, err := loadKey(getenv)
		if err != nil {
			return err
		}
		return signFile(key, fs.Arg(0), *comment)
	case "throwaway":
		if len(args) != 2 {
			return usageError{usage}
		}
		pub, err := throwaway(args[1])
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(stdout, pub)
		return err
	case "provenance":
		return provenanceCmd(args[1:])
	}
	return usageError{usage}
}
