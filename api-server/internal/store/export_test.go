package store

// Rows returns the page's rows (tests only: their strings may point into
// the page's arena, valid until Release).
func (p *Page[R]) Rows() []R {
	if p == nil {
		return nil
	}
	return p.rows
}

// PoisonReleased makes Release overwrite a page's arena.
func PoisonReleased(on bool) { poisonReleased = on }
