// Package keyspage serves the "Developer keys" settings section as an
// http.Handler: the organization's keys, a form to create one, the new key
// shown once on the page a create redirects to (Post/Redirect/Get: a reload
// neither shows it again nor creates another; see RevealStore), and
// revocation with a confirmation step, and rolling a key (a new key, the
// old one kept for a grace period). The host application mounts it under
// its own settings path, wraps it in its own layout, and tells it who is
// signed in; the package never handles passwords or sessions.
//
//	page, err := keyspage.New(keyspage.Config{
//		Keys:     manager, // *keys.Manager
//		Identify: identify, // the host's session → organization and user
//		Path:     "/settings/developer-keys",
//	})
//	mux.Handle("/settings/developer-keys/", page)
//
// The page is server rendered with html/template and works without
// JavaScript; a small embedded script only adds a copy button, a confirm
// dialog for revocation, and takes a new key off the page when it is left
// (for back-forward caches). Every response has Cache-Control: no-store, a
// Content-Security-Policy without inline script, and refuses framing; every
// state-changing request passes net/http's CrossOriginProtection.
//
// The rules are keys.Manager's: the page asks it (CanCreate, Create, List,
// Revoke) and turns its errors into sentences placed next to the control
// they concern.
//
// Files:
//
//   - keyspage.go: Config, New and the routes;
//   - page.go: the handlers (the page, create, confirm and revoke) and the
//     errors turned into sentences;
//   - reveal.go: RevealStore, the new key held for the page it is shown on;
//   - roll.go: Roller, the roll form and its POST (keys.Manager.Roll);
//   - templates/, assets/: the embedded templates, style sheet and script.
package keyspage
