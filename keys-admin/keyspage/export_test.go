package keyspage

import (
	"net/http"
	"time"
)

// NewWithClock is New with a clock, for the tests of RevealTTL.
func NewWithClock(cfg Config, now func() time.Time) (http.Handler, error) {
	return newHandler(cfg, now)
}
