package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"time"

	"aead.dev/minisign"
)

// The environment variables that hold the release key (see the package doc).
const (
	envKey      = "SVC_RELEASE_KEY"
	envKeyFile  = "SVC_RELEASE_KEY_FILE"
	envPassword = "SVC_RELEASE_KEY_PASSWORD"
)

// loadKey reads the release key from SVC_RELEASE_KEY or SVC_RELEASE_KEY_FILE,
// decrypting it with SVC_RELEASE_KEY_PASSWORD when minisign encrypted it
// (its default; `minisign -G -W` writes an unencrypted one). Errors never
// quote the key or the password.
func loadKey(getenv func(string) string) (minisign.PrivateKey, error) {
	text, path := getenv(envKey), getenv(envKeyFile)
	var data []byte
	switch {
	case text != "" && path != "":
		return minisign.PrivateKey{}, usageError{"set one of " + envKey + " and " + envKeyFile + ", not both"}
	case text != "":
		data = []byte(text)
	case path != "":
		var err error
		if data, err = os.ReadFile(path); err != nil {
			return minisign.PrivateKey{}, fmt.Errorf("%s: %w", envKeyFile, err)
		}
	default:
		return minisign.PrivateKey{}, usageError{"no release key: set " + envKeyFile + " (a minisign secret key file kept outside the repository) or " + envKey + " (its text)"}
	}
	var key minisign.PrivateKey
	if minisign.IsEncrypted(data) {
		password := getenv(envPassword)
		if password == "" {
			return key, usageError{"the release key is encrypted: set " + envPassword}
		}
		k, err := minisign.DecryptKey(password, data)
		if err != nil {
			return key, errors.New("cannot decrypt the release key: wrong " + envPassword + ", or not a minisign secret key")
		}
		return k, nil
	}
	if err := key.UnmarshalText(data); err != nil {
		return key, errors.New("the release key is not a minisign secret key")
	}
	return key, nil
}

// publicKey returns the public key of key as minisign prints it: base64 of
// "Ed", the key ID and the Ed25519 public key.
func publicKey(key minisign.PrivateKey) string {
	return key.Public().(minisign.PublicKey).String()
}

// keyID formats a key ID as minisign does (16 upper-case hex digits).
func keyID(id uint64) string { return fmt.Sprintf("%016X", id) }

// signFile writes path+".minisig": minisign's prehashed format ("ED":
// Ed25519 over BLAKE2b-512 of the file), what `minisign -S` writes.
func signFile(key minisign.PrivateKey, path, trustedComment string) error {
	if strings.ContainsAny(trustedComment, "\r\n") {
		return usageError{"the trusted comment must be one line"}
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := minisign.NewReader(f)
	if _, err := io.Copy(io.Discard, r); err != nil {
		return err
	}
	sig := r.SignWithComments(key, trustedComment, "signature from the svc release key "+keyID(key.ID()))
	return os.WriteFile(path+".minisig", sig, 0o644)
}

// throwaway writes a minisign key pair and a self-signed code-signing
// certificate into dir (created if needed) and returns the public key.
func throwaway(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	pub, priv, err := minisign.GenerateKey(rand.Reader)
	if err != nil {
		return "", err
	}
	keyText, err := priv.MarshalText()
	if err != nil {
		return "", err
	}
	pubText, err := pub.MarshalText()
	if err != nil {
		return "", err
	}
	certPEM, keyPEM, err := selfSignedCert("svc release (throwaway)")
	if err != nil {
		return "", err
	}
	for _, f := range []struct {
		name string
		data []byte
		mode os.FileMode
	}{
		{"minisign.key", append(keyText, '\n'), 0o600},
		{"minisign.pub", append(pubText, '\n'), 0o644},
		{"mcpb-key.pem", keyPEM, 0o600},
		{"mcpb-cert.pem", certPEM, 0o644},
	} {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, f.mode); err != nil {
			return "", err
		}
	}
	return pub.String(), nil
}

// selfSignedCert returns a self-signed RSA certificate for code signing and
// its key (PKCS #8), both PEM. RSA because `mcpb sign` (node-forge's PKCS #7)
// signs with RSA keys only. Valid from 2020 so that a signing time taken
// from SOURCE_DATE_EPOCH (the commit time) falls inside it.
func selfSignedCert(name string) (certPEM, keyPEM []byte, err error) {
	key, err := rsa.GenerateKey(rand.Reader, 3072)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: name, Organization: []string{"svc release"}},
		NotBefore:             time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:              time.Now().AddDate(2, 0, 0),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning},
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}), nil
}
