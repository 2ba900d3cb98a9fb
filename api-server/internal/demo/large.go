package demo

import (
	"context"
	"fmt"

	"github.com/adsnap/svc/api-server/internal/snapshot"
	"github.com/adsnap/svc/api-server/internal/store"
	"github.com/adsnap/svc/api-server/internal/telemetry"
	"github.com/uptrace/bun"
)

// Scales of `svc-api demo --scale`.
const (
	ScaleSmall = "small"
	ScaleLarge = "large"
)

// LoadScale migrates db and imports the demo of scale: Load for small; for
// large, snapshot.DemoLarge and then snapshot.DemoLargeRestated, two
// imports, the second restating the last week (issue 46).
func LoadScale(ctx context.Context, db *bun.DB, scale string) (string, error) {
	switch scale {
	case "", ScaleSmall:
		return Load(ctx, db)
	case ScaleLarge:
	default:
		return "", fmt.Errorf("--scale must be %s or %s, not %q", ScaleSmall, ScaleLarge, scale)
	}
	if _, err := store.Migrate(ctx, db); err != nil {
		return "", err
	}
	now := Now()
	var sums []string
	for _, doc := range []*snapshot.Document{snapshot.DemoLarge(now), snapshot.DemoLargeRestated(now)} {
		sum, err := snapshot.Import(ctx, db, doc, now)
		telemetry.ImportRun(err)
		if err != nil {
			return "", fmt.Errorf("import large demo snapshot: %w", err)
		}
		sums = append(sums, fmt.Sprint(sum))
	}
	return fmt.Sprintf("%s; then the last %d days restated: %s", sums[0], snapshot.RestatedDays, sums[1]), nil
}
