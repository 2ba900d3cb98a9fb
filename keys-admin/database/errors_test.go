package database_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/adsnap/svc/keys-admin/database"
	"github.com/adsnap/svc/keys-admin/database/dbtest"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestUnavailable: dependency failures by SQLSTATE and by type are
// Unavailable; a statement the database refuses is not.
func TestUnavailable(t *testing.T) {
	t.Parallel()
	for code, want := range map[string]bool{
		"08006": true, "08001": true, "53300": true, "57P01": true, "57P03": true,
		"57014": true, "40001": true, "40P01": true,
		"42601": false, "42P01": false, "23505": false, "22P02": false, "": false,
	} {
		err := fmt.Errorf("page: %w", &pgconn.PgError{Code: code})
		if got := database.Unavailable(err); got != want {
			t.Errorf("SQLSTATE %q: Unavailable = %v, want %v", code, got, want)
		}
	}
	for name, err := range map[string]error{
		"deadline": fmt.Errorf("x: %w", context.DeadlineExceeded),
		"net":      &net.OpError{Op: "dial", Err: errors.New("connection refused")},
	} {
		if !database.Unavailable(err) {
			t.Errorf("%s: not Unavailable", name)
		}
	}
	for name, err := range map[string]error{
		"nil": nil, "canceled": context.Canceled, "plain": errors.New("bug"),
	} {
		if database.Unavailable(err) {
			t.Errorf("%s: Unavailable", name)
		}
	}

	// Real failures: nothing listens on the port; a syntax error and a
	// missing table from each backend.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if _, err := database.Open(ctx, "postgres://u@"+addr+"/db?sslmode=disable&connect_timeout=2", database.Options{}); !database.Unavailable(err) {
		t.Errorf("unreachable server: Unavailable(%v) = false", err)
	}
	dbtest.Each(t, nil, func(t *testing.T, b dbtest.Backend) {
		_, err := b.DB.ExecContext(t.Context(), "SELEC 1")
		if err == nil || database.Unavailable(err) {
			t.Errorf("syntax error %v: Unavailable", err)
		}
		_, err = b.DB.ExecContext(t.Context(), "SELECT * FROM no_such_table")
		if err == nil || database.Unavailable(err) || !database.SchemaMissing(err) {
			t.Errorf("missing table %v: Unavailable %v, SchemaMissing %v", err, database.Unavailable(err), database.SchemaMissing(err))
		}
	})
}
