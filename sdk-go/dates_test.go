package svc

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestInsightDates checks the insight date window against a fixed clock:
// today is 2026-11-20 (UTC).
func TestInsightDates(t *testing.T) {
	t.Parallel()
	today := Date{2026, 11, 20}
	d := func(y, m, day int) Date { return Date{y, time.Month(m), day} }
	tests := []struct {
		name     string
		from, to Date
		want     DateRange // when err is nil
		days     int
		err      error  // a reason for errors.Is, or nil
		problem  string // part of the one problem, when err is set
		problems int
	}{
		{name: "defaults: the 30 days ending today", want: DateRange{d(2026, 10, 22), today}, days: 30},
		{name: "only from: up to today", from: d(2026, 11, 1), want: DateRange{d(2026, 11, 1), today}, days: 20},
		{name: "only to: the 30 days ending on to", to: d(2026, 6, 30), want: DateRange{d(2026, 6, 1), d(2026, 6, 30)}, days: 30},
		{name: "today only", from: today, to: today, want: DateRange{today, today}, days: 1},
		{name: "89 days", from: d(2026, 8, 24), to: today, want: DateRange{d(2026, 8, 24), today}, days: 89},
		{name: "90 days", from: d(2026, 8, 23), to: today, want: DateRange{d(2026, 8, 23), today}, days: 90},
		{name: "90 days, only from", from: d(2026, 8, 23), want: DateRange{d(2026, 8, 23), today}, days: 90},
		{name: "91 days", from: d(2026, 8, 22), to: today, err: ErrRangeTooLong, problem: "the range 2026-08-22 to 2026-11-20 spans 91 days; at most 90 are allowed", problems: 1},
		{name: "91 days, only from", from: d(2026, 8, 22), err: ErrRangeTooLong, problem: "spans 91 days", problems: 1},
		{name: "90 days in the past", from: d(2025, 1, 1), to: d(2025, 3, 31), want: DateRange{d(2025, 1, 1), d(2025, 3, 31)}, days: 90},
		{name: "to tomorrow", to: d(2026, 11, 21), err: ErrFutureDate, problem: "to 2026-11-21 is in the future (today is 2026-11-20 UTC)", problems: 1},
		{name: "from tomorrow", from: d(2026, 11, 21), err: ErrFutureDate, problem: "from 2026-11-21 is in the future", problems: 1},
		{name: "both tomorrow", from: d(2026, 11, 21), to: d(2026, 11, 21), err: ErrFutureDate, problem: "from 2026-11-21", problems: 2},
		{name: "from after to", from: d(2026, 11, 10), to: d(2026, 11, 9), err: ErrDatesReversed, problem: "from 2026-11-10 is after to 2026-11-09", problems: 1},
		{name: "from today, to defaulted", from: d(2026, 11, 20), to: Date{}, want: DateRange{today, today}, days: 1},
		{name: "invalid date", from: d(2026, 2, 30), err: ErrInvalidDate, problem: "from is not a valid date", problems: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := InsightDates(tt.from, tt.to, today)
			if tt.err == nil {
				if err != nil {
					t.Fatalf("InsightDates(%v, %v) error %v", tt.from, tt.to, err)
				}
				if got != tt.want || got.Days() != tt.days {
					t.Errorf("InsightDates(%v, %v) = %v (%d days), want %v (%d days)", tt.from, tt.to, got, got.Days(), tt.want, tt.days)
				}
				return
			}
			if !errors.Is(err, tt.err) {
				t.Fatalf("InsightDates(%v, %v) error %v, want %v", tt.from, tt.to, err, tt.err)
			}
			dr, ok := errors.AsType[*DateRangeError](err)
			if !ok || len(dr.Problems) != tt.problems || !strings.Contains(dr.Problems[0], tt.problem) {
				t.Errorf("error %#v, want %d problems, the first containing %q", err, tt.problems, tt.problem)
			}
			if got != (DateRange{}) {
				t.Errorf("range %v with an error", got)
			}
			if (dr.Range != DateRange{}) != (tt.err == ErrDatesReversed || tt.err == ErrRangeTooLong) {
				t.Errorf("DateRangeError.Range = %v", dr.Range)
			}
			// The listing refuses the same options with the same reason.
			_, qerr := (&InsightListOptions{From: tt.from, To: tt.to}).query(today)
			if !errors.Is(qerr, tt.err) {
				t.Errorf("query error %v, want %v", qerr, tt.err)
			}
			if _, ok := errors.AsType[*ValidationError](qerr); !ok {
				t.Errorf("query error %T, want a *ValidationError", qerr)
			}
		})
	}
}
