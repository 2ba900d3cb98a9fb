package verify

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/adsnap/svc/svc-cli/internal/cmdutil"
)

// Rollback protection (security review 2, issue 40): the release a
// SHA256SUMS is signed for is the version its trusted comment names
// ("svc-cli 1.2.3 (commit …)", scripts/release-cli.sh). svc verify accepts
// it only when it is the --version asked for or, without --version, when
// it is not older than this svc: a site that serves an older, genuinely
// signed release cannot pass it off as the current one.

// signedVersion finds "svc-cli VERSION" in a trusted comment.
var signedVersion = regexp.MustCompile(`(?:^|\s)svc-cli (\d+\.\d+\.\d+[0-9A-Za-z.+-]*)`)

// checkRelease checks the trusted comment's release against want (the
// --version asked for, "" for none) and min (this svc's version; no
// minimum when it is not a release version, such as "dev").
func checkRelease(sums, comment, want, min string) error {
	m := signedVersion.FindStringSubmatch(comment)
	if m == nil {
		return cmdutil.VerifyErrorf("the trusted comment of %s's signature names no svc-cli release, so it cannot be told from an older one: trust none of the files", sums)
	}
	signed := m[1]
	switch {
	case want != "" && strings.TrimPrefix(want, "v") != signed:
		return cmdutil.VerifyErrorf("%s is signed for svc %s, not the %s you asked for (--version): trust none of the files", sums, signed, want)
	case want == "" && older(signed, min):
		return cmdutil.VerifyErrorf("%s is signed for svc %s, older than this svc (%s): a site may be rolling you back to an older release; "+
			"if you do mean svc %s, name it: --version %s", sums, signed, min, signed, signed)
	}
	return nil
}

// older reports whether version a is older than b, both X.Y.Z[-PRE][+BUILD]
// (a pre-release before its release, pre-releases compared as text); false
// when either is not such a version.
func older(a, b string) bool {
	ca, pa, okA := splitVersion(a)
	cb, pb, okB := splitVersion(b)
	if !okA || !okB {
		return false
	}
	for i := range ca {
		if ca[i] != cb[i] {
			return ca[i] < cb[i]
		}
	}
	switch {
	case pa == pb:
		return false
	case pa == "":
		return false
	case pb == "":
		return true
	}
	return pa < pb
}

// splitVersion parses X.Y.Z[-PRE][+BUILD] into its numbers and PRE.
func splitVersion(v string) (core [3]uint64, pre string, ok bool) {
	v, _, _ = strings.Cut(v, "+")
	v, pre, _ = strings.Cut(v, "-")
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return core, "", false
	}
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return core, "", false
		}
		core[i] = n
	}
	return core, pre, true
}
