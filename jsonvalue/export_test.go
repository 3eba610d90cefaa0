package jsonvalue

// MaterializeSlow is Materialize without the fast path.
func MaterializeSlow(raw []byte, limit int) (Value, error) { return materialize(raw, limit, false) }

// FastPath runs the fast path alone.
func FastPath(raw []byte, limit int) (Value, bool) {
	return fast(raw, nil, limit, false)
}
