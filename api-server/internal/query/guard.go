package query

import "strings"

// The further reasons of the request guard (ScreenURL, GuardAPI).
const (
	// CredentialInURL: a key-shaped value in the path or query, in any reading.
	CredentialInURL Rejection = "credential in url"
	// EncodedPath: a percent-encoded path ("/%61ccounts", "%2F").
	EncodedPath Rejection = "encoded path"
	// OrgHeaderGiven: a header naming an organization or tenant.
	OrgHeaderGiven Rejection = "organization header"
	// AmbiguousAuthorization: more than one Authorization header.
	AmbiguousAuthorization Rejection = "two authorization headers"
)

// ScreenURL decides, for every path, on the request-target as the client
// sent it (http.Request.RequestURI): a key-shaped value in the path or the
// query, in any reading (URLHoldsKey), is CredentialInURL; a
// percent-encoded path is EncodedPath (served paths are plain ASCII, and an
// encoded variant would reach an endpoint under a name the guard and the
// log did not see). It allocates only when the URL holds escapes.
func ScreenURL(requestURI string) Rejection {
	rawPath, rawQuery, _ := strings.Cut(requestURI, "?")
	switch {
	case URLHoldsKey(rawPath) || URLHoldsKey(rawQuery):
		return CredentialInURL
	case strings.IndexByte(rawPath, '%') >= 0:
		return EncodedPath
	}
	return None
}

// GuardAPI is step 2 of DESIGN §3 for the API's endpoints: credential
// names and organization overrides in the query (Inspect), a header naming
// an organization or tenant (its name returned too), and more than one
// Authorization header. A credential wins over the others.
func GuardAPI(rawQuery string, header map[string][]string) (Rejection, string) {
	if r := Inspect(rawQuery); r != None {
		return r, ""
	}
	if h := OrgHeader(header); h != "" {
		return OrgHeaderGiven, h
	}
	if len(header["Authorization"]) > 1 {
		return AmbiguousAuthorization, ""
	}
	return None, ""
}

// AcceptRequestID reports whether a client's X-Request-Id may be echoed and
// logged: short (1 to 64), plain ([A-Za-z0-9._-]) and not key-shaped. (A
// loop rather than a regexp: it runs on every request, at a third of the
// guard's cost as a regexp.)
func AcceptRequestID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !isBase62(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return !KeyShaped(id)
}
