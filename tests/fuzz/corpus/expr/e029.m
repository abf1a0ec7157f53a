any(v > 2) + all(v > 0)
