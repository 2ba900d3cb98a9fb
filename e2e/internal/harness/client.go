package harness

import (
	"net"
	"net/http"
	"time"
)

// ClientFrom returns an HTTP client whose connections leave from the local
// address ip (any address of 127.0.0.0/8 is this machine), so that each
// scenario has its own per-IP rate-limit bucket. Redirects are not followed.
func ClientFrom(ip string) *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{
		Timeout:       20 * time.Second,
		Transport:     &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 16},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
