package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"time"
)

// The conditional and compressed run (issue 43, DESIGN §4c), on svc-api in
// the main run, after the lists: a 100-row /insights page's size as sent
// identity, zstd and gzip (target: at least 5.5× smaller); /insights
// req/s under wrk with compression requested against the same endpoint
// uncompressed, measured back to back (target ≥ 0.9×); and the p50 of a
// 304 (the page re-requested with its tag), one request at a time on
// loopback, which bounds its server time from above (target ≤ 1 ms).

// The targets of issue 43.
const (
	compressMinRatio = 5.5
	compressMinRPS   = 0.9
	notModifiedMaxMS = 1.0
)

// conditionalResult is what the run measured.
type conditionalResult struct {
	Identity  int        `json:"identity_bytes"`
	Zstd      int        `json:"zstd_bytes"`
	Gzip      int        `json:"gzip_bytes"`
	Plain     loadResult `json:"plain"`
	Encoded   loadResult `json:"compressed"`
	P50304    float64    `json:"not_modified_p50_ms"`
	Err       string     `json:"error,omitempty"`
	Requested string     `json:"accept_encoding"`
}

// conditionalPath is the measured page: 100 rows of the 90-day window.
func conditionalPath(today time.Time) string {
	return fmt.Sprintf("/api/v1/developer/insights?limit=100&from=%s&to=%s",
		today.AddDate(0, 0, -89).Format(time.DateOnly), today.Format(time.DateOnly))
}

// measureConditional runs the issue 43 measurements on sv.
func (r *rig) measureConditional(ctx context.Context, sv server) conditionalResult {
	res := conditionalResult{Requested: "zstd, gzip"}
	url := sv.base + conditionalPath(r.today)
	var tag string
	for _, enc := range []string{"", "zstd", "gzip"} {
		n, t, err := fetchOnce(ctx, url, sv.bearer, enc)
		if err != nil {
			res.Err = err.Error()
			return res
		}
		switch enc {
		case "":
			res.Identity, tag = n, t
		case "zstd":
			res.Zstd = n
		default:
			res.Gzip = n
		}
	}
	var plain, encoded []loadResult
	for range r.s.repeat {
		p, err := wrk(ctx, url, sv.bearer, r.s.conns, r.s.duration)
		if err == nil {
			var e loadResult
			e, err = wrk(ctx, url, sv.bearer, r.s.conns, r.s.duration, "Accept-Encoding: "+res.Requested)
			encoded = append(encoded, e)
		}
		if err != nil {
			res.Err = err.Error()
			return res
		}
		plain = append(plain, p)
	}
	res.Plain, res.Encoded = median(plain), median(encoded)
	var ts []float64
	for i := range 205 {
		t0 := time.Now()
		status, err := revalidate(ctx, url, sv.bearer, tag)
		if err != nil || status != http.StatusNotModified {
			res.Err = fmt.Sprintf("revalidation: status %d, %v", status, err)
			return res
		}
		if i >= 5 {
			ts = append(ts, float64(time.Since(t0).Microseconds())/1000)
		}
	}
	slices.Sort(ts)
	res.P50304 = ts[len(ts)/2]
	fmt.Fprintf(os.Stderr, "bench: issue 43: 100-row page %d B identity, %d B zstd, %d B gzip; %0.f req/s plain, %0.f compressed; 304 p50 %.3f ms\n",
		res.Identity, res.Zstd, res.Gzip, res.Plain.RPS, res.Encoded.RPS, res.P50304)
	return res
}

// notModifiedClient keeps one connection for the sequential revalidations.
var notModifiedClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}

// fetchOnce GETs url with Accept-Encoding enc ("" none) and returns the
// body's bytes as sent and the ETag; the answer must be 200 in encoding enc.
func fetchOnce(ctx context.Context, url, bearer, enc string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Authorization", "Bearer "+bearer)
	if enc != "" {
		req.Header.Set("Accept-Encoding", enc)
	}
	resp, err := notModifiedClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, "", err
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != enc || resp.Header.Get("ETag") == "" {
		return 0, "", fmt.Errorf("%s (Accept-Encoding %q): %d, Content-Encoding %q, ETag %q",
			url, enc, resp.StatusCode, resp.Header.Get("Content-Encoding"), resp.Header.Get("ETag"))
	}
	return len(b), resp.Header.Get("ETag"), nil
}

// revalidate GETs url with If-None-Match tag and returns the status.
func revalidate(ctx context.Context, url, bearer, tag string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("If-None-Match", tag)
	resp, err := notModifiedClient.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// conditionalTargets are the targets of issue 43 on c.
func conditionalTargets(c conditionalResult) []target {
	ran := c.Err == "" && c.Identity > 0
	ratio := func(n int) float64 {
		if n == 0 {
			return 0
		}
		return float64(c.Identity) / float64(n)
	}
	z, g := ratio(c.Zstd), ratio(c.Gzip)
	rps := 0.0
	if c.Plain.RPS > 0 {
		rps = c.Encoded.RPS / c.Plain.RPS
	}
	return []target{
		{fmt.Sprintf("100-row /insights page compressed ≥ %.1f× smaller (zstd, gzip)", compressMinRatio),
			fmt.Sprintf("%.1f×, %.1f× (%d B → %d B, %d B)", z, g, c.Identity, c.Zstd, c.Gzip), ran && min(z, g) >= compressMinRatio, ran},
		{fmt.Sprintf("/insights req/s with compression requested ≥ %.1f× uncompressed (same run)", compressMinRPS),
			fmt.Sprintf("%.2f× (%.0f vs %.0f req/s)", rps, c.Encoded.RPS, c.Plain.RPS), ran && rps >= compressMinRPS, ran && c.Plain.RPS > 0},
		{fmt.Sprintf("304 p50 ≤ %.0f ms (one at a time, loopback: server time and more)", notModifiedMaxMS),
			ms(c.P50304) + " ms", ran && c.P50304 > 0 && c.P50304 <= notModifiedMaxMS, ran && c.P50304 > 0},
	}
}
