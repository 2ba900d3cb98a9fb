package store

import (
	"time"

	"github.com/uptrace/bun"
)

// The store's tables as bun models, for what writes them (the snapshot
// import). The read queries do not use them (resources_gen.go).

// OrganizationSnapshot is a row of organization_snapshots: the newest sync
// time of the organization's snapshot rows (Meta.DataAsOf), recorded by
// each import.
type OrganizationSnapshot struct {
	bun.BaseModel `bun:"table:organization_snapshots"`

	OrganizationID string    `bun:"organization_id,pk"`
	DataAsOf       time.Time `bun:"data_as_of"`
	ImportedAt     time.Time `bun:"imported_at"`
}
