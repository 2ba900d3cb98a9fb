package server

import (
	"encoding/json"
	"testing"
)

// TestAppendMeta: the envelope's meta is encoding/json's bytes.
func TestAppendMeta(t *testing.T) {
	next := 51
	for _, m := range []meta{
		{Source: "stored_snapshot", Limit: 50, Offset: 1, NextOffset: &next, Returned: 50,
			GeneratedAt: "2026-11-21T06:00:00Z", DataAsOf: "2026-11-21T06:00:00Z", Note: Note + capNoteInsights},
		{Note: "<&>\u2028"},
	} {
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendMeta(nil, &m); string(got) != string(want) {
			t.Errorf("got %s\nwant %s", got, want)
		}
	}
}
