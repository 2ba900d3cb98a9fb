package svc

import (
	"context"
	"net/url"
	"time"
)

// freshnessEndpoint is the path of the organization's freshness.
const freshnessEndpoint = "/insights/freshness"

// InsightFreshness is GET /insights/freshness: how fresh the stored
// insights are.
type InsightFreshness struct {
	Data struct {
		// DataAsOf is the newest sync time among the organization's rows.
		DataAsOf time.Time `json:"dataAsOf"`
		// LastImport is the newest import recorded; nil when none is.
		LastImport *LastImport `json:"lastImport"`
	} `json:"data"`
	Meta struct {
		Source          string     `json:"source"`
		LiveMetaRequest bool       `json:"liveMetaRequest"`
		GeneratedAt     *time.Time `json:"generatedAt"`
		Note            string     `json:"note"`
	} `json:"meta"`
	// Response is the HTTP response's metadata.
	Response *Response `json:"-"`
}

// LastImport is one import of the organization's data: when it committed,
// how many insight rows it added or changed (Upserts) and removed, and the
// days whose rows it changed, which a later import may restate again.
type LastImport struct {
	CommittedAt time.Time `json:"committedAt"`
	Upserts     int64     `json:"upserts"`
	Deletes     int64     `json:"deletes"`
	ChangedDays []Date    `json:"changedDays"`
}

// Freshness returns when the organization's insights were last imported
// and which days that import changed, with one request (scope
// insights:read). A service older than the endpoint answers 404
// ([IsNotFound]). API: GET /insights/freshness.
func (s *InsightsService) Freshness(ctx context.Context) (*InsightFreshness, error) {
	out := new(InsightFreshness)
	resp, err := s.client.get(ctx, freshnessEndpoint, url.Values{}, out, false)
	if err != nil {
		return nil, err
	}
	out.Response = resp
	return out, nil
}
