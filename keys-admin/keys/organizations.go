package keys

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// UpsertOrganization inserts or updates an organization and the given
// members (other members are left as they are). The host platform owns these
// rows in a real deployment; the snapshot import and tests use this to make a
// fresh database usable. Run it inside the caller's transaction.
func UpsertOrganization(ctx context.Context, db bun.IDB, org Organization, members []Member, now time.Time) error {
	now = now.UTC().Truncate(time.Microsecond)
	org.CreatedAt, org.UpdatedAt = now, now
	if _, err := db.NewInsert().Model(&org).
		On("CONFLICT (id) DO UPDATE").
		Set("name = EXCLUDED.name").
		Set("subscription_status = EXCLUDED.subscription_status").
		Set("trial_ends_at = EXCLUDED.trial_ends_at").
		Set("updated_at = EXCLUDED.updated_at").
		Exec(ctx); err != nil {
		return fmt.Errorf("upsert organization %s: %w", org.ID, err)
	}
	for _, m := range members {
		m.OrganizationID = org.ID
		m.CreatedAt, m.UpdatedAt = now, now
		if _, err := db.NewInsert().Model(&m).
			On("CONFLICT (organization_id, user_id) DO UPDATE").
			Set("role = EXCLUDED.role").
			Set("removed_at = EXCLUDED.removed_at").
			Set("updated_at = EXCLUDED.updated_at").
			Exec(ctx); err != nil {
			return fmt.Errorf("upsert member %s of %s: %w", m.UserID, org.ID, err)
		}
	}
	return nil
}
