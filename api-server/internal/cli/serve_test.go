package cli

import (
	"testing"

	"github.com/adsnap/svc/keys-admin/database"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
)

// TestMaxInFlightKeepsOneForTheWriter: by default the admission gate
// admits one request fewer than the pool has connections, the one left
// being the last-used writer's (keys.Authenticator.Run takes one at a time,
// outside the gate); --max-in-flight, when given, wins.
func TestMaxInFlightKeepsOneForTheWriter(t *testing.T) {
	b := dbtest.Postgres(t)
	for _, tc := range []struct{ pool, flag, want int }{{8, 0, 7}, {1, 0, 1}, {8, 3, 3}} {
		db, err := database.Connect(t.Context(), b.URL, database.Options{MaxOpenConns: tc.pool})
		if err != nil {
			t.Fatal(err)
		}
		c := &config{MaxInFlight: tc.flag}
		if got := c.maxInFlight(db); got != tc.want {
			t.Errorf("pool %d, --max-in-flight %d: %d places, want %d", tc.pool, tc.flag, got, tc.want)
		}
		db.Close()
	}
}
