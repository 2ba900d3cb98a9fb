package ratelimit

import (
	"cmp"
	"errors"
	"net/url"
	"slices"
	"strings"
)

// urlError is go-redis's error about rawURL with every part of the URL
// that may be a secret taken out: go-redis echoes the value it cannot
// parse (an addr= parameter, a path, a number), and a Cluster or Sentinel
// addr= may carry user:password@ (security review 2, issue 40). The names
// of parameters stay; their values, the user, the password and the path do
// not. what prefixes the message ("redis cluster url").
func urlError(what, rawURL string, err error) error {
	msg := err.Error()
	var secrets []string
	add := func(s string) {
		if len(s) > 1 {
			secrets = append(secrets, s)
			if u, err := url.QueryUnescape(s); err == nil && u != s {
				secrets = append(secrets, u)
			}
		}
	}
	if u, perr := url.Parse(rawURL); perr == nil {
		add(u.User.Username())
		pw, _ := u.User.Password()
		add(pw)
		add(u.User.String())
		add(u.Path)
		add(u.RawPath)
		for kv := range strings.SplitSeq(u.RawQuery, "&") {
			_, v, _ := strings.Cut(kv, "=")
			add(v)
		}
	}
	// The longest first, so that a value is not left in part.
	slices.SortFunc(secrets, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	for _, s := range secrets {
		msg = strings.ReplaceAll(msg, s, "…")
	}
	return errors.New(what + ": " + msg + " (values not shown: the URL may hold a password)")
}
