package keysadmin

// Version is the version of this module, as in versions.yaml at the root of
// the repository (a test of the e2e module checks that they agree); it is
// updated by `make release MODULE=keys-admin`.
const Version = "1.0.0"
